import Glibc

/// The parts of the request grammar that need no parser state: the version, the start of a
/// method, a field line's split, a chunk's size line, the next line end.
extension RequestParser {
    /// HTTP-version = "HTTP/" DIGIT "." DIGIT; anything else is 400, a well-formed other version 505.
    static func parseVersion(_ bytes: UnsafeRawBufferPointer) -> Result<HTTPVersion, HTTPParseError> {
        guard bytes.count == 8, UnsafeRawBufferPointer(rebasing: bytes[0..<5]).equals("HTTP/"), bytes[6] == UInt8(ascii: "."),
            let major = digitValue(bytes[5]), let minor = digitValue(bytes[7])
        else { return .failure(.invalidVersion) }
        switch (major, minor) {
        case (1, 1): return .success(.http1_1)
        case (1, 0): return .success(.http1_0)
        default: return .failure(.versionNotSupported)
        }
    }

    static func hasHTTPScheme(_ bytes: UnsafeRawBufferPointer) -> Bool {
        startsCaseInsensitive(bytes, with: "http://") || startsCaseInsensitive(bytes, with: "https://")
    }

    /// The authority of an absolute-form target (`http://` or `https://` up to the first `/`,
    /// `?` or `#`), perhaps empty.
    static func authority(ofAbsoluteTarget target: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let start = startsCaseInsensitive(target, with: "https://") ? 8 : 7
        var end = start
        while end < target.count, target[end] != UInt8(ascii: "/"), target[end] != UInt8(ascii: "?"), target[end] != UInt8(ascii: "#") {
            end += 1
        }
        return UnsafeRawBufferPointer(rebasing: target[start..<end])
    }

    /// Rejects early a request line whose method already holds a byte no method can hold
    /// (a TLS handshake sent to this port, say), instead of waiting for a line end.
    static func checkPartialMethod(_ input: UnsafeRawBufferPointer, from offset: Int) -> HTTPParseError? {
        var index = offset
        while index < input.count {
            let byte = input[index]
            if byte == ASCII.space { return nil }
            if !isTokenByte(byte) && byte != ASCII.cr { return .invalidMethod }
            index += 1
        }
        return nil
    }

    // MARK: - Fields

    /// Where a field line splits: the name ends at `nameEnd`, the trimmed value spans `valueStart..<valueEnd`.
    struct FieldSplit {
        var nameEnd: Int
        var valueStart: Int
        var valueEnd: Int
    }

    /// field-line = field-name ":" OWS field-value OWS
    ///
    /// https://www.rfc-editor.org/rfc/rfc9112#name-field-syntax
    static func scanFieldLine(_ line: UnsafeRawBufferPointer) -> Result<FieldSplit, HTTPParseError> {
        let first = line[0]
        if isWhitespace(first) { return .failure(.obsoleteLineFolding) }
        var index = 0
        while index < line.count, isTokenByte(line[index]) { index += 1 }
        guard index < line.count, index > 0 else { return .failure(.invalidFieldName) }
        let stop = line[index]
        if stop != UInt8(ascii: ":") {
            if isWhitespace(stop), line[index...].contains(UInt8(ascii: ":")) {
                return .failure(.whitespaceBeforeColon)
            }
            return .failure(stop == ASCII.cr ? .invalidLineEnding : .invalidFieldName)
        }
        let nameEnd = index
        var start = index + 1
        while start < line.count, isWhitespace(line[start]) { start += 1 }
        var end = line.count
        while end > start, isWhitespace(line[end - 1]) { end -= 1 }
        if let refused = ByteRun.firstRefusedInFieldValue(UnsafeRawBufferPointer(rebasing: line[start..<end])) {
            return .failure(line[start + refused] == ASCII.cr ? .invalidLineEnding : .invalidFieldValue)
        }
        return .success(FieldSplit(nameEnd: nameEnd, valueStart: start, valueEnd: end))
    }

    // MARK: - Chunks

    /// `chunk-size [ chunk-ext ]`, with the extensions checked and ignored:
    ///
    ///     chunk-size = 1*HEXDIG
    ///     chunk-ext  = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
    ///
    /// So whitespace may only come before a `;` or an `=` or after one, every extension has a
    /// name, and `5 `, `5;` and `5;=v` are refused, while `5;ext=v` and `5 ; ext = "v"` pass.
    ///
    /// https://www.rfc-editor.org/rfc/rfc9112#name-chunked-transfer-coding
    static func parseChunkSize(_ line: UnsafeRawBufferPointer) -> Int? {
        var size = 0
        var index = 0
        while index < line.count, let digit = hexValue(line[index]) {
            guard size <= Int.max >> 4 else { return nil }
            size = size << 4 | Int(digit)
            index += 1
        }
        guard index > 0 else { return nil }
        func skipWhitespace() {
            while index < line.count, isWhitespace(line[index]) { index += 1 }
        }
        func token() -> Bool {
            let start = index
            while index < line.count, isTokenByte(line[index]) { index += 1 }
            return index > start
        }
        while index < line.count {
            skipWhitespace()
            guard index < line.count, line[index] == UInt8(ascii: ";") else { return nil }
            index += 1
            skipWhitespace()
            guard token() else { return nil }
            let afterName = index
            skipWhitespace()
            guard index < line.count, line[index] == UInt8(ascii: "=") else {
                index = afterName  // no value: what follows must be another extension
                continue
            }
            index += 1
            skipWhitespace()
            guard index < line.count else { return nil }
            if line[index] == UInt8(ascii: "\"") {
                guard let end = quotedStringEnd(line, from: index) else { return nil }
                index = end
            } else if !token() {
                return nil
            }
        }
        return size
    }

    // MARK: - Bytes

    /// The index of the next LF at or after `from`, found with memchr.
    @inline(__always)
    static func findLineFeed(_ input: UnsafeRawBufferPointer, from: Int) -> Int? {
        find(ASCII.lf, in: input, from: from)
    }

    /// The index of the next `byte` at or after `from`, found with memchr (a vector compare,
    /// not a branch per byte).
    @inline(__always)
    static func find(_ byte: UInt8, in input: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
        guard from < input.count, let base = input.baseAddress else { return nil }
        guard let found = memchr(base + from, Int32(byte), input.count - from) else { return nil }
        return UnsafeRawPointer(found) - base
    }
}
