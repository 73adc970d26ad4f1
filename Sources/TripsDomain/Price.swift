import Foundation

/// A trip's price: the exact `Decimal` and its digits as every writer prints them
/// (`Decimal.description`: `1299.99`, `2450`, `0.005`), made once when the price is.
///
/// The JSON, the page (per language), the journal and PostgreSQL all print a price;
/// `Decimal.description` costs microseconds each time, so a price read from text keeps its
/// digits (put in `Decimal.description`'s canonical form without calling it), and a price made
/// from a `Decimal` describes it once. Equality, hashing and order are the `Decimal`'s.
public struct Price: Sendable, Hashable, Comparable {
    /// `value.description`: an optional `-`, the integer digits (at least one), and a `.`
    /// with the fraction's digits when there is a fraction, never a trailing zero after it.
    public let digits: String
    /// The number, exactly. After `digits`: a `Decimal` is 20 bytes aligned to 4, so a price
    /// is 36 bytes this way round and 40 the other.
    public let value: Decimal

    /// The price of `value`; its digits are `value.description`.
    public init(_ value: Decimal) {
        self.value = value
        digits = value.description
    }

    /// The price `sign × significand × 10^exponent`, where `significand` holds ASCII digits
    /// with no leading or trailing zero (empty for zero) and at most `Decimal.exactDigits` of
    /// them, and `exponent` is in `Decimal.exponents`: the digits are written from these parts
    /// as `Decimal.description` writes them, with no `Decimal` arithmetic.
    package init(isNegative: Bool, significand: [UInt8], exponent: Int) {
        guard !significand.isEmpty else {
            self.init(value: Decimal(), digits: "0")
            return
        }
        let digits = Self.canonicalDigits(isNegative: isNegative, significand: significand, exponent: exponent)
        var magnitude: UInt64 = 0
        let value: Decimal
        if significand.count <= 19, significand.last != UInt8(ascii: "0") {
            for digit in significand { magnitude = magnitude * 10 + UInt64(digit - 0x30) }
            let unsigned = Decimal(sign: .plus, exponent: exponent, significand: Decimal(magnitude))
            value = isNegative ? -unsigned : unsigned
        } else {
            // Longer significands (up to 38 digits, or padded with zeros to bring the exponent
            // into range) are rare: `Decimal` reads them from text.
            let text = (isNegative ? "-" : "") + String(decoding: significand, as: UTF8.self) + "e\(exponent)"
            value = Decimal(string: text, locale: nil) ?? Decimal()
        }
        self.init(value: value, digits: digits)
    }

    /// A price of zero or more stored in at most 18 digits as `digits` writes it (`0`, `2450`,
    /// `1299.99`: no sign, exponent or leading zero; trailing zeros after a point are read,
    /// and left out of the digits), its digits the bytes as they are; nil for any other text.
    /// What start-up reads a million times.
    package init?(storedDigits bytes: UnsafeRawBufferPointer) {
        var significand: UInt64 = 0
        var digitCount = 0
        var fractionDigits = 0
        var isFraction = false
        var end = 0  // past the last byte the digits keep: no trailing zero after the point, nor a bare point
        for (offset, byte) in bytes.enumerated() {
            if byte >= 0x30 && byte <= 0x39 {
                significand = significand &* 10 &+ UInt64(byte - 0x30)
                digitCount += 1
                if isFraction { fractionDigits += 1 }
                if !isFraction || byte != 0x30 { end = offset + 1 }
            } else if byte == UInt8(ascii: "."), !isFraction, digitCount > 0 {
                isFraction = true
            } else {
                return nil
            }
        }
        let wholeDigits = digitCount - fractionDigits
        guard wholeDigits > 0, digitCount <= 18, bytes.first != 0x30 || wholeDigits == 1, !isFraction || fractionDigits > 0
        else { return nil }
        guard significand != 0 else {
            self = .zero
            return
        }
        var exponent = -fractionDigits
        while significand % 10 == 0 {
            significand /= 10
            exponent += 1
        }
        self.init(
            value: Decimal(sign: .plus, exponent: exponent, significand: Decimal(significand)),
            digits: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<end]), as: UTF8.self))
    }

    /// Nothing at all: `0`.
    package static let zero = Price(isNegative: false, significand: [], exponent: 0)

    private init(value: Decimal, digits: String) {
        self.value = value
        self.digits = digits
    }

    public static func == (left: Price, right: Price) -> Bool { left.value == right.value }
    public static func < (left: Price, right: Price) -> Bool { left.value < right.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }

    /// `Decimal.description`'s text for the parts `init(isNegative:significand:exponent:)` takes.
    private static func canonicalDigits(isNegative: Bool, significand: [UInt8], exponent: Int) -> String {
        let count = significand.count
        let point = count + exponent  // digits before the point; zero or less: "0." and zeros first
        var text: [UInt8] = []
        text.reserveCapacity(count + Swift.max(exponent, 0) + Swift.max(-point, 0) + 3)
        if isNegative { text.append(UInt8(ascii: "-")) }
        if exponent >= 0 {
            text.append(contentsOf: significand)
            text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: exponent))
        } else if point > 0 {
            text.append(contentsOf: significand.prefix(point))
            text.append(UInt8(ascii: "."))
            text.append(contentsOf: significand.dropFirst(point))
        } else {
            text.append(contentsOf: [UInt8(ascii: "0"), UInt8(ascii: ".")])
            text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -point))
            text.append(contentsOf: significand)
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension Decimal {
    /// The most significant digits a `Decimal` keeps; a number with more would be rounded.
    package static let exactDigits = 38
    /// The exponents a `Decimal` holds: it is a whole number of up to 38 digits times ten to
    /// one of these.
    package static let exponents = -128...127
}
