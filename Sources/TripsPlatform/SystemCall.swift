import Glibc

/// A system call failed with `errno`.
@usableFromInline package struct SystemError: Error, Hashable, CustomStringConvertible {
    /// The call that failed, such as `bind`.
    package let call: String
    package let errno: Int32

    @usableFromInline package init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    @usableFromInline package var description: String { "\(call): \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// The outcome of a non-blocking call that did not fail.
@usableFromInline package enum IOResult<Value> {
    case done(Value)
    /// EAGAIN / EWOULDBLOCK: try again when epoll says so.
    case wouldBlock
}

/// The one wrapper for system calls: retries EINTR, reports EAGAIN as `.wouldBlock`, throws
/// `SystemError` for any other failure (a negative return). Inlinable, so that the event loop
/// (another module) gets it specialized for each call's integer type, as before the split.
@inlinable @inline(__always)
package func systemCall<Result: BinaryInteger>(
    _ name: StaticString, _ call: () -> Result
) throws(SystemError) -> IOResult<Result> {
    while true {
        let result = call()
        if result >= 0 { return .done(result) }
        let code = errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
        throw SystemError(call: "\(name)", errno: code)
    }
}

/// For calls that never return EAGAIN: the result, or the error.
@inlinable @inline(__always)
package func blockingSystemCall<Result: BinaryInteger>(
    _ name: StaticString, _ call: () -> Result
) throws(SystemError) -> Result {
    switch try systemCall(name, call) {
    case .done(let result): return result
    case .wouldBlock: throw SystemError(call: "\(name)", errno: EAGAIN)
    }
}

/// Writes every byte of `bytes` to `descriptor`, across partial writes and EINTR; throws the
/// first other failure (a write that takes nothing counts as EIO). For blocking descriptors:
/// files, pipes, terminals.
package func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
        let written = try blockingSystemCall("write") { write(descriptor, bytes.baseAddress! + offset, bytes.count - offset) }
        guard written > 0 else { throw SystemError(call: "write", errno: EIO) }
        offset += written
    }
}
