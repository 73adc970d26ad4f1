/// Text read from bytes that must be UTF-8 (a request body, a journal, a database row).
///
/// Most of it is ASCII, which is valid UTF-8 as it is: checked eight bytes at a time and
/// copied. `String(validating:as:)` is generic over the encoding and looks up type metadata
/// on every call, ~950 instructions before it reads a byte; it is left for the rest.
public enum UTF8Text {
    /// Whether every byte is ASCII (below 0x80).
    public static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while bytes.count - index >= 8 {
            guard bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 else { return false }
            index += 8
        }
        while index < bytes.count {
            guard bytes[index] < 0x80 else { return false }
            index += 1
        }
        return true
    }

    /// Whether `bytes` are UTF-8, for bytes kept as bytes; `isASCII` when already known.
    public static func isUTF8(_ bytes: UnsafeRawBufferPointer, isASCII: Bool? = nil) -> Bool {
        (isASCII ?? Self.isASCII(bytes)) || String(validating: bytes, as: UTF8.self) != nil
    }

    /// The string `bytes` spell, or nil when they are not UTF-8.
    public static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        string(bytes, isASCII: isASCII(bytes))
    }

    /// The string `bytes` spell, or nil when they are not UTF-8, for bytes already known to
    /// be ASCII or not.
    public static func string(_ bytes: UnsafeRawBufferPointer, isASCII: Bool) -> String? {
        isASCII ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }
}
