/// Names one request in the access log and in its response's `X-Request-ID`: the client's
/// own id when it sends a sane one, otherwise the loop's random prefix and a counter.
///
/// Written straight into byte buffers, so a generated id costs no allocation.
package enum RequestID: Sendable, Hashable {
    case client(String)
    case generated(UInt64)

    /// Longest client id kept; longer or stranger ones are replaced, not echoed (into the
    /// access log, a proxy's log, or a page's script that reads the field).
    static let maxClientLength = 64

    /// The client's `X-Request-ID` when it is 1...64 characters of `A-Z a-z 0-9 . _ -`: a
    /// UUID, a trace id or nginx's `$request_id` fit.
    init?(clientValue value: String?) {
        guard let value, !value.isEmpty, value.utf8.count <= Self.maxClientLength,
            value.utf8.allSatisfy(Self.isAllowed)
        else { return nil }
        self = .client(value)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }

    /// Appends `X-Request-ID: <id>` and CRLF. Every answer has one: a generated id's line is
    /// written on the stack and appended at once (each append to the output costs more than
    /// writing its few bytes).
    func appendFieldLine(to output: inout [UInt8], prefix: [UInt8]) {
        guard case .generated(let counter) = self, Self.inlinePrefixLengths.contains(prefix.count) else {
            output.append(contentsOf: "X-Request-ID: ".utf8)
            append(to: &output, prefix: prefix)
            output.append(contentsOf: [ASCII.cr, ASCII.lf])
            return
        }
        var line: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &line) { room in
            let length = prefix.withUnsafeBytes { Self.writeGeneratedLine(counter, prefix: $0, into: room.baseAddress!) }
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: room[..<length]))
        }
    }

    /// The prefix lengths `writeGeneratedLine` takes: a loop's is 11 bytes and more.
    static let inlinePrefixLengths = 2...28
    /// The longest line `writeGeneratedLine` writes: the name, a prefix of 28 bytes, 16
    /// digits and CRLF.
    static let maxGeneratedLineLength = 14 + 28 + 16 + 2

    /// Writes `X-Request-ID: <prefix><counter in hex>` and CRLF at `line`, which has room for
    /// `maxGeneratedLineLength` bytes, for a prefix of `inlinePrefixLengths`; returns the
    /// line's length. All 16 digits are stored first, as two words ending where the line's
    /// digits end, then the name and prefix over the leading zeros: no loop per byte.
    static func writeGeneratedLine(_ counter: UInt64, prefix: UnsafeRawBufferPointer, into line: UnsafeMutableRawPointer) -> Int {
        let name: StaticString = "X-Request-ID: "
        let digitCount = max(1, (UInt64.bitWidth - counter.leadingZeroBitCount + 3) / 4)
        let digitsEnd = name.utf8CodeUnitCount + prefix.count + digitCount  // at least 16: the prefix's two bytes
        let digits = TraceContext.hexDigits(counter)
        line.storeBytes(of: digits.0, toByteOffset: digitsEnd - 16, as: UInt64.self)
        line.storeBytes(of: digits.1, toByteOffset: digitsEnd - 8, as: UInt64.self)
        line.copyMemory(from: name.utf8Start, byteCount: name.utf8CodeUnitCount)
        (line + name.utf8CodeUnitCount).copyMemory(from: prefix.baseAddress!, byteCount: prefix.count)
        line.storeBytes(of: ASCII.cr, toByteOffset: digitsEnd, as: UInt8.self)
        line.storeBytes(of: ASCII.lf, toByteOffset: digitsEnd + 1, as: UInt8.self)
        return digitsEnd + 2
    }

    /// Appends the id: the client's text, or `prefix` and the counter in hex.
    func append(to output: inout [UInt8], prefix: [UInt8]) {
        switch self {
        case .client(let value):
            output.append(contentsOf: value.utf8)
        case .generated(let counter):
            output.append(contentsOf: prefix)
            // Hex digits by arithmetic: a lookup table here was an array allocated per call.
            var shift = 60
            while shift > 0 && (counter >> UInt64(shift)) & 0xF == 0 { shift -= 4 }
            while shift >= 0 {
                let nibble = UInt8(truncatingIfNeeded: counter >> UInt64(shift)) & 0xF
                output.append(nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10))
                shift -= 4
            }
        }
    }
}

/// Issues request ids on one loop: a random prefix per loop, then a counter.
///
/// Confined to its loop.
package final class RequestIDGenerator {
    /// `<8 random hex digits>-<loop>-`, so ids from different loops and runs do not collide.
    let prefix: [UInt8]
    private var counter: UInt64 = 0

    init(loopIndex: Int) {
        let hex = String(UInt32.random(in: .min ... .max), radix: 16)
        prefix = Array((String(repeating: "0", count: 8 - hex.count) + hex + "-\(loopIndex)-").utf8)
    }

    /// The id for a request whose `X-Request-ID` is `clientValue`: the client's, when it is
    /// sane, or the next generated one.
    func id(clientValue: String?) -> RequestID {
        if let client = RequestID(clientValue: clientValue) { return client }
        counter &+= 1
        return .generated(counter)
    }

    /// An id for a message that never became a request (a parse error).
    func next() -> RequestID {
        counter &+= 1
        return .generated(counter)
    }
}

@available(*, unavailable)
extension RequestIDGenerator: Sendable {}

/// A request's id with the prefix of the loop that issued it: what its answer's
/// `X-Request-ID` says, kept unformatted until a problem document needs it as its `instance`.
package struct IssuedRequestID: Sendable, Hashable {
    let id: RequestID
    let prefix: [UInt8]

    /// The id as `X-Request-ID` writes it.
    package var text: String {
        var bytes: [UInt8] = []
        id.append(to: &bytes, prefix: prefix)
        return String(decoding: bytes, as: UTF8.self)
    }
}
