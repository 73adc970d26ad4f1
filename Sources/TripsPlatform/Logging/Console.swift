import Glibc
import Synchronization

/// Lines for whoever runs the server: lifecycle news on standard output, warnings and errors
/// on standard error, in the format `--log-format` chose (`use(_:)`, once at start).
///
/// In logfmt (the default) a line is written as given: `trips-server listening on …`. As JSON
/// it is `{"timestamp":"…","level":"info","message":"…"}`, the message without the program's
/// `trips-server: ` prefix (and a warning's `warning: `), which `level` already says.
///
/// A stream that is closed or whose reader went away (`| head -1`: EPIPE, or EBADF) loses the
/// line and nothing else: the server goes on serving and still exits 0 on SIGTERM.
package enum Console {
    private static let writesJSON = Atomic(false)

    /// Writes every later line in `format`. Called once options are read; lines before that
    /// (a usage error) are plain text.
    package static func use(_ format: LogFormat) {
        writesJSON.store(format == .json, ordering: .relaxed)
    }

    /// A lifecycle line (`listening on …`, `stopped`) on standard output.
    package static func info(_ line: String) {
        write(line, level: .info, to: STDOUT_FILENO)
    }

    /// Something was wrong and the server worked around it, on standard error:
    /// `trips-server: warning: <message>`.
    package static func warning(_ message: String) {
        write("trips-server: warning: " + message, level: .warn, to: STDERR_FILENO)
    }

    /// An error on standard error.
    package static func error(_ line: String) {
        write(line, level: .error, to: STDERR_FILENO)
    }

    private static func write(_ line: String, level: LogLevelName, to descriptor: Int32) {
        let bytes = render(line, level: level, format: writesJSON.load(ordering: .relaxed) ? .json : .logfmt, at: LogTimestamp.now())
        // Nowhere else to report a failing standard stream: the line is dropped.
        bytes.withUnsafeBytes { buffer in _ = try? writeAll(descriptor, buffer) }
    }

    /// The bytes of one line, its line feed included.
    static func render(_ line: String, level: LogLevelName, format: LogFormat, at time: timespec) -> [UInt8] {
        var bytes: [UInt8] = []
        guard format == .json else {
            bytes.append(contentsOf: line.utf8)
            bytes.append(UInt8(ascii: "\n"))
            return bytes
        }
        var message = Substring(line)
        for prefix in level == .warn ? ["trips-server: ", "warning: "] : ["trips-server: "] where message.hasPrefix(prefix) {
            message = message.dropFirst(prefix.count)
        }
        var timestamp = LogTimestamp()
        var json = LogLine(format: .json, into: &bytes)
        json.text("time", "timestamp", into: &bytes) { timestamp.append(time, to: &$0) }
        json.string("level", "level", level.rawValue, into: &bytes)
        json.string("msg", "message", String(message), into: &bytes)
        json.end(into: &bytes)
        return bytes
    }
}
