// Only the libFuzzer entry point lives here: no top-level code (see TextImportProperties.swift).

/// Feeds arbitrary text to the sentence importer and to text favorite drops.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTextImport(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkTextImport(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
