// Only the libFuzzer entry point lives here: no top-level code (see RequestParserProperties.swift).

/// Feeds arbitrary bytes, in arbitrary splits, to the HTTP request parser.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkRequestParser(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
