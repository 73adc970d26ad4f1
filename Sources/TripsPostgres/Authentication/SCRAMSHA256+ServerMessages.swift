import Foundation
import TripsPlatform

extension SCRAMSHA256 {
    /// The server-first-message, validated: `r=<nonce>,s=<salt>,i=<count>` in this order,
    /// then optional extensions, which RFC 5802 §5.1 says to ignore.
    ///
    /// https://www.rfc-editor.org/rfc/rfc5802#section-7
    package struct ServerFirst: Sendable, Hashable {
        /// Our nonce followed by the server's.
        package let nonce: [UInt8]
        package let salt: [UInt8]
        package let iterationCount: Int

        package init(_ message: [UInt8], clientNonce: [UInt8], maximumIterationCount: Int) throws(SCRAMError) {
            var attributes = try Attributes(message)
            if attributes.nextName == UInt8(ascii: "m") { throw .unsupportedMandatoryExtension }
            let nonce = try attributes.take("r")
            guard nonce.allSatisfy(SCRAMSHA256.isPrintable) else { throw .malformedMessage }
            guard nonce.count > clientNonce.count, nonce.starts(with: clientNonce) else { throw .nonceMismatch }
            guard let salt = SCRAMSHA256.canonicalBase64(try attributes.take("s")), !salt.isEmpty else { throw .invalidSalt }
            self.nonce = nonce
            self.salt = salt
            self.iterationCount = try Self.iterationCount(try attributes.take("i"), maximum: maximumIterationCount)
        }

        /// RFC 5802's posit-number, from `minimumIterationCount` to `maximum`.
        private static func iterationCount(_ digits: [UInt8], maximum: Int) throws(SCRAMError) -> Int {
            guard let first = digits.first, first != UInt8(ascii: "0") || digits.count == 1,
                digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { throw .invalidIterationCount }
            var count = 0
            for digit in digits {
                let (tens, overflowed) = count.multipliedReportingOverflow(by: 10)
                guard !overflowed, tens <= maximum - Int(digit - UInt8(ascii: "0")) else { throw .iterationCountOutOfRange }
                count = tens + Int(digit - UInt8(ascii: "0"))
            }
            guard count >= SCRAMSHA256.minimumIterationCount else { throw .iterationCountOutOfRange }
            return count
        }
    }

    /// The server-final-message: `v=<signature>`, or `e=<error>`, then optional extensions.
    package struct ServerFinal: Sendable, Hashable {
        package let serverSignature: [UInt8]

        package init(_ message: [UInt8]) throws(SCRAMError) {
            var attributes = try Attributes(message)
            if attributes.nextName == UInt8(ascii: "e") {
                throw .serverError(String(decoding: try attributes.take("e"), as: UTF8.self))
            }
            guard let signature = SCRAMSHA256.canonicalBase64(try attributes.take("v")), signature.count == SHA256.digestByteCount
            else { throw .invalidServerSignature }
            self.serverSignature = signature
        }
    }

    /// The bytes `text` encodes, if it is base64 exactly as it would be written (padding and
    /// unused bits included): Foundation alone also accepts forms such as `====`.
    fileprivate static func canonicalBase64(_ text: [UInt8]) -> [UInt8]? {
        let string = String(decoding: text, as: UTF8.self)
        guard let data = Data(base64Encoded: string), data.base64EncodedString() == string else { return nil }
        return Array(data)
    }
}

/// A server message split into its `a=value` attributes, read front to back.
private struct Attributes {
    private var remaining: ArraySlice<(name: UInt8, value: [UInt8])>

    /// Checks the whole message: UTF-8, and each attribute one ASCII letter, `=`, and a value
    /// without NUL (RFC 5802's attr-val). Each value is checked further where it is used.
    init(_ message: [UInt8]) throws(SCRAMError) {
        guard String(validating: message, as: UTF8.self) != nil else { throw .malformedMessage }
        var attributes: [(name: UInt8, value: [UInt8])] = []
        for part in message.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            guard part.count >= 2, let name = part.first, Self.isLetter(name), part[part.startIndex + 1] == UInt8(ascii: "="),
                !part.contains(0)
            else { throw .malformedMessage }
            attributes.append((name, Array(part.dropFirst(2))))
        }
        self.remaining = attributes[...]
    }

    /// The name of the attribute `take` would read.
    var nextName: UInt8? { remaining.first?.name }

    /// The value of the next attribute, which must be `name`.
    mutating func take(_ name: Character) throws(SCRAMError) -> [UInt8] {
        guard let next = remaining.first, let ascii = name.asciiValue, next.name == ascii else { throw .missingAttribute(name) }
        remaining = remaining.dropFirst()
        return next.value
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
