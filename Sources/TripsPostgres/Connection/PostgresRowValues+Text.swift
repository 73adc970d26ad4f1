/// Values read from their text format in place, as PostgreSQL writes them, with no `String`
/// made of any but the texts kept: what a reader of many rows wants (`PostgresRowValues`).
extension PostgresRowValues {
    /// The value in `column` as a whole number (`smallint`, `integer` or `bigint`); nil for
    /// NULL or any other text.
    package func integer(_ column: Int) -> Int64? {
        number(column)
    }

    /// The value in `column` as a `double precision` (`820454400`, `1.5e-07`, `Infinity`); nil
    /// for NULL or any other text.
    package func double(_ column: Int) -> Double? {
        number(column)
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

    /// A number's text, which fits in a `String` without a buffer of its own (15 bytes or
    /// fewer), read as Swift reads one; longer text is no number PostgreSQL writes for these
    /// types but `bigint`'s extremes and long decimals, which are read the same way.
    private func number<Number: LosslessStringConvertible>(_ column: Int) -> Number? {
        guard let bytes = self[column], bytes.count <= 32 else { return nil }
        return Number(String(decoding: bytes, as: UTF8.self))
    }
}
