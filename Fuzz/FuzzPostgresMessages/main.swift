// Only the libFuzzer entry point lives here: no top-level code (see PostgresMessageProperties.swift).

/// Feeds arbitrary bytes, in random-sized pieces, to the PostgreSQL backend message decoder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPostgresMessages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkPostgresMessages(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
