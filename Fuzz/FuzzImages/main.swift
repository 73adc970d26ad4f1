// Only the libFuzzer entry point lives here: no top-level code (see ImageProperties.swift).

/// Feeds arbitrary bytes to the image readers and metadata removers, as each declared format.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkImage(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
