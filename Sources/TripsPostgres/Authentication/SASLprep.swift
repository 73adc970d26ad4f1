import Foundation

/// SASLprep (RFC 4013) of a password, as PostgreSQL's `pg_saslprep` does it, so that we
/// derive the same SCRAM key the server stored.
///
/// PostgreSQL is lenient where the RFC refuses: a password that SASLprep prohibits is used
/// as its raw bytes instead. So this never fails, it only chooses between the prepared and
/// the raw UTF-8 bytes.
///
/// Simplified in one place: the bidirectional rule (RFC 3454 §6, tables D.1 and D.2) is not
/// checked. A password with right-to-left letters (Hebrew, Arabic) that breaks that rule is
/// used raw by PostgreSQL and normalized here, so such a password may not log in when its
/// NFKC form differs from what was typed. Every other step is PostgreSQL's: pure ASCII as
/// is; non-ASCII spaces mapped to U+0020 and the "commonly mapped to nothing" characters
/// removed; raw bytes when that leaves nothing or when a prohibited or (in Unicode 3.2)
/// unassigned character remains; otherwise NFKC.
///
/// https://www.rfc-editor.org/rfc/rfc4013
package enum SASLprep {
    /// The bytes SCRAM hashes for `password`.
    static func preparedPassword(_ password: String) -> [UInt8] {
        let raw = Array(password.utf8)
        if raw.allSatisfy({ $0 < 0x80 }) { return raw }
        var mapped = String.UnicodeScalarView()
        for scalar in password.unicodeScalars {
            if isNonASCIISpace(scalar.value) {
                mapped.append(" ")
            } else if !isMappedToNothing(scalar.value) {
                mapped.append(scalar)
            }
        }
        // PostgreSQL checks the mapped input, before normalization; so do we.
        guard !mapped.isEmpty, !mapped.contains(where: isProhibited) else { return raw }
        return Array(String(mapped).precomposedStringWithCompatibilityMapping.utf8)
    }

    /// RFC 3454 table C.1.2.
    private static func isNonASCIISpace(_ value: UInt32) -> Bool {
        value == 0x00A0 || value == 0x1680 || (0x2000...0x200B).contains(value) || value == 0x202F || value == 0x205F
            || value == 0x3000
    }

    /// RFC 3454 table B.1.
    private static func isMappedToNothing(_ value: UInt32) -> Bool {
        value == 0x00AD || value == 0x034F || value == 0x1806 || (0x180B...0x180D).contains(value) || (0x200B...0x200D).contains(value)
            || value == 0x2060 || (0xFE00...0xFE0F).contains(value) || value == 0xFEFF
    }

    /// SASLprep's prohibited output (RFC 4013 §2.3) or a code point unassigned in
    /// Unicode 3.2 (RFC 3454 table A.1, which is what `age` answers).
    private static func isProhibited(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if prohibitedRanges.contains(where: { $0.contains(value) }) { return true }
        // C.4: the last two code points of every plane are non-characters.
        if value & 0xFFFE == 0xFFFE { return true }
        guard let age = scalar.properties.age else { return true }
        return age.major > 3 || (age.major == 3 && age.minor > 2)
    }

    /// RFC 3454 tables C.1.2 through C.9 that SASLprep prohibits, less C.4's plane ends
    /// (above) and C.5's surrogates (never a `Unicode.Scalar`).
    private static let prohibitedRanges: [ClosedRange<UInt32>] = [
        0x0000...0x001F, 0x007F...0x00A0,  // C.2.1, C.2.2, C.1.2
        0x0340...0x0341,  // C.8
        0x06DD...0x06DD, 0x070F...0x070F,  // C.2.2
        0x1680...0x1680,  // C.1.2
        0x180E...0x180E,  // C.2.2
        0x2000...0x200F, 0x2028...0x202F, 0x205F...0x2063, 0x206A...0x206F,  // C.1.2, C.2.2, C.8
        0x2FF0...0x2FFB,  // C.7
        0x3000...0x3000,  // C.1.2
        0xE000...0xF8FF,  // C.3
        0xFDD0...0xFDEF,  // C.4
        0xFEFF...0xFEFF,  // C.2.2
        0xFFF9...0xFFFD,  // C.2.2, C.6
        0x1D173...0x1D17A,  // C.2.2
        0xE0001...0xE0001, 0xE0020...0xE007F,  // C.9
        0xF0000...0xFFFFD, 0x100000...0x10FFFD,  // C.3
    ]
}
