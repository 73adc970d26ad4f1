import Glibc

/// Lines for whoever runs the server: lifecycle news on standard output, warnings and errors
/// on standard error.
///
/// A stream that is closed or whose reader went away (`| head -1`: EPIPE, or EBADF) loses the
/// line and nothing else: the server goes on serving and still exits 0 on SIGTERM.
package enum Console {
    /// A lifecycle line (`listening on …`, `stopped`) on standard output.
    package static func info(_ line: String) {
        write(line, to: STDOUT_FILENO)
    }

    /// A warning or an error on standard error.
    package static func error(_ line: String) {
        write(line, to: STDERR_FILENO)
    }

    private static func write(_ line: String, to descriptor: Int32) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        // Nowhere else to report a failing standard stream: the line is dropped.
        bytes.withUnsafeBytes { buffer in _ = try? writeAll(descriptor, buffer) }
    }
}
