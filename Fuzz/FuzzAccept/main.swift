// Only the libFuzzer entry point lives here: no top-level code (see AcceptProperties.swift).

/// Feeds arbitrary `Accept` values to the parser and to content negotiation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAccept(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkAccept(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
