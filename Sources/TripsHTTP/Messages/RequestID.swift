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
        let name = "X-Request-ID: "
        guard case .generated(let counter) = self, prefix.count <= 28 else {
            output.append(contentsOf: name.utf8)
            append(to: &output, prefix: prefix)
            output.append(contentsOf: [ASCII.cr, ASCII.lf])
            return
        }
        // 14 + at most 28 + 16 + 2 bytes: 60 of the 64 here.
        var line: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        let digitCount = max(1, (UInt64.bitWidth - counter.leadingZeroBitCount + 3) / 4)
        let length = withUnsafeMutableBytes(of: &line) { bytes in
            var end = 0
            for byte in name.utf8 {
                bytes[end] = byte
                end += 1
            }
            for byte in prefix {
                bytes[end] = byte
                end += 1
            }
            withUnsafeBytes(of: TraceContext.hexDigits(counter)) { digits in
                for byte in digits[(16 - digitCount)...] {
                    bytes[end] = byte
                    end += 1
                }
            }
            bytes[end] = ASCII.cr
            bytes[end + 1] = ASCII.lf
            return end + 2
        }
        withUnsafeBytes(of: line) { output.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<length])) }
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

    /// The id for a request: the client's, or the next generated one.
    func id(for request: HTTPRequest) -> RequestID {
        if let client = RequestID(clientValue: request.headerFields[.xRequestID]) { return client }
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
