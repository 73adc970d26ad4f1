import Foundation
import TripsFormats

/// Why a number's text is not a price a `Decimal` holds exactly.
package enum PriceLiteralError: Error, Equatable {
    /// Not JSON number syntax (an optional `-`, digits, an optional fraction and exponent).
    case notANumber
    /// More than `Decimal.exactDigits` significant digits: it would be rounded.
    case tooManyDigits
    /// Its exponent is beyond what a `Decimal` holds.
    case outOfRange
}

extension Price {
    /// A number exactly as written: `1299.99` stays `1299.99`, `1299.990` and `1.29999e3`
    /// are the same price with the same digits. A number `Decimal` cannot hold exactly is
    /// refused rather than rounded, whichever way it is written: `1e128` and `10e127` are the
    /// same number, and both are kept. Leading zeros are read (PostgreSQL's text has none;
    /// JSON's parser refuses them before this).
    package init(literal: some Collection<UInt8>) throws(PriceLiteralError) {
        var bytes = literal.makeIterator()
        var next = bytes.next()
        let isNegative = next == UInt8(ascii: "-")
        if isNegative { next = bytes.next() }
        // The significant digits: leading zeros dropped as they come, trailing ones counted.
        var significand: [UInt8] = []
        var trailingZeros = 0
        var fractionDigits = 0
        var integerDigits = 0
        var isFraction = false
        while let byte = next {
            if byte >= 0x30 && byte <= 0x39 {
                if isFraction { fractionDigits += 1 } else { integerDigits += 1 }
                if byte == 0x30 {
                    if !significand.isEmpty { trailingZeros += 1 }
                } else {
                    significand.append(contentsOf: repeatElement(0x30, count: trailingZeros))
                    trailingZeros = 0
                    significand.append(byte)
                    // Far more digits than a Decimal keeps: refused without reading them all.
                    guard significand.count <= Decimal.exactDigits else { throw .tooManyDigits }
                }
            } else if byte == UInt8(ascii: "."), !isFraction, integerDigits > 0 {
                isFraction = true
            } else {
                break
            }
            next = bytes.next()
        }
        guard integerDigits > 0, !isFraction || fractionDigits > 0 else { throw .notANumber }
        var written = 0
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            next = bytes.next()
            let isNegativeExponent = next == UInt8(ascii: "-")
            if isNegativeExponent || next == UInt8(ascii: "+") { next = bytes.next() }
            var exponentDigits = 0
            while let byte = next, byte >= 0x30 && byte <= 0x39 {
                // An exponent this far out is out of range whatever the digits (and safe to add to).
                if written < 1 << 32 { written = written * 10 + Int(byte - 0x30) }
                exponentDigits += 1
                next = bytes.next()
            }
            guard exponentDigits > 0 else { throw .notANumber }
            if isNegativeExponent { written = -written }
        }
        guard next == nil else { throw .notANumber }
        guard !significand.isEmpty else {
            self.init(isNegative: false, significand: significand, exponent: 0)
            return
        }
        guard written.magnitude < 1 << 32 else { throw .outOfRange }
        // The number is `significand` × 10^exponent: the point and the trailing zeros moved into it.
        var exponent = written - fractionDigits + trailingZeros
        // Above the highest exponent, the significand takes zeros while it has room.
        while exponent > Decimal.exponents.upperBound, significand.count < Decimal.exactDigits {
            significand.append(0x30)
            exponent -= 1
        }
        guard Decimal.exponents.contains(exponent) else { throw .outOfRange }
        self.init(isNegative: isNegative, significand: significand, exponent: exponent)
    }
}

extension Price: JSONReadable {
    /// A JSON number, exactly as written (`init(literal:)`).
    /// Most prices are sent as a store writes them (`1299.99`: no sign, no exponent, at most 18
    /// digits), which `init(storedDigits:)` reads in one pass to the same price; any other
    /// spelling takes the general reading.
    package init(json: JSONValue) throws(JSONTypeMismatch) {
        guard case .number(var literal) = json else { throw Self.mismatch("a number", json) }
        if let price = literal.withUTF8({ Price(storedDigits: UnsafeRawBufferPointer($0)) }) {
            self = price
            return
        }
        do {
            try self.init(literal: literal.utf8)
        } catch .tooManyDigits {
            throw JSONTypeMismatch(
                reason: "\(literal) has more than \(Decimal.exactDigits) significant digits, which cannot be kept exactly")
        } catch {
            throw JSONTypeMismatch(reason: "\(literal) is out of range")
        }
    }
}
