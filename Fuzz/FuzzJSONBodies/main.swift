// Only the libFuzzer entry point lives here: no top-level code (see JSONBodyProperties.swift).

/// Feeds arbitrary bytes to the JSON parser and to every body that reads JSON.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONBodies(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkJSONBodies(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
