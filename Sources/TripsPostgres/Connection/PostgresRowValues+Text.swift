/// Values read from their text format in place, as PostgreSQL writes them, with no `String`
/// made of any but the texts kept: what a reader of many rows wants (`PostgresRowValues`).
extension PostgresRowValues {
    /// The value in `column` as a whole number (`smallint`, `integer` or `bigint`: an optional
    /// minus and decimal digits); nil for NULL, any other text, or a number past `Int64`.
    package func integer(_ column: Int) -> Int64? {
        guard let bytes = self[column], let first = bytes.first else { return nil }
        let isNegative = first == UInt8(ascii: "-")
        let start = isNegative ? 1 : 0
        // Nineteen digits stay below UInt64's limit, whatever they are.
        guard bytes.count > start, bytes.count - start <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for index in start..<bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            magnitude = magnitude &* 10 &+ UInt64(digit)
        }
        guard magnitude <= UInt64(Int64.max) + (isNegative ? 1 : 0) else { return nil }
        return isNegative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
    }

    /// The value in `column` as a `double precision` (`820454400`, `1.5e-07`, `Infinity`); nil
    /// for NULL or any other text.
    package func double(_ column: Int) -> Double? {
        guard let bytes = self[column] else { return nil }
        if let value = Self.shortDecimal(bytes) { return value }
        // What the short form does not cover (an exponent, more digits, `NaN`) as Swift reads
        // it; no number PostgreSQL writes is longer.
        guard bytes.count <= 32 else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    /// The value in `column` as a `boolean` (`t` or `f`); nil for NULL or any other text.
    package func boolean(_ column: Int) -> Bool? {
        guard let bytes = self[column], bytes.count == 1 else { return nil }
        switch bytes[0] {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: return nil
        }
    }

    /// `[-]digits[.digits]` with at most 15 digits in all, without reading a `String`: the
    /// digits as a whole number and the power of ten that divides them are both exact as
    /// doubles, so the one division rounds once, to the nearest double, as `strtod` does
    /// (Clinger's fast path). Anything else answers nil.
    private static func shortDecimal(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard let first = bytes.first else { return nil }
        let isNegative = first == UInt8(ascii: "-")
        var significand: UInt64 = 0
        var digitCount = 0
        var fractionDigits: Int?
        for byte in bytes.dropFirst(isNegative ? 1 : 0) {
            let digit = byte &- UInt8(ascii: "0")
            if digit < 10 {
                guard digitCount < 15 else { return nil }
                significand = significand * 10 + UInt64(digit)
                digitCount += 1
                fractionDigits? += 1
            } else if byte == UInt8(ascii: "."), fractionDigits == nil {
                fractionDigits = 0
            } else {
                return nil
            }
        }
        guard digitCount > 0 else { return nil }
        let magnitude = Double(significand) / exactPowersOfTen[fractionDigits ?? 0]
        return isNegative ? -magnitude : magnitude
    }

    /// 1e0 through 1e15, each exact as a double.
    private static let exactPowersOfTen: [Double] = (0...15).map { exponent in
        (0..<exponent).reduce(1.0) { power, _ in power * 10 }
    }
}
