import Glibc

/// Where storage reports what it did on its own: a torn record dropped, a compaction that failed.
protocol StorageLog: Sendable {
    /// Something was wrong and storage worked around it; an operator should know.
    func warning(_ message: String)
    /// Routine news, such as a finished compaction.
    func info(_ message: String)
}

/// Writes one line per message to standard error.
struct StandardErrorLog: StorageLog {
    init() {}

    func warning(_ message: String) {
        write("trips-server: warning: \(message)\n")
    }

    func info(_ message: String) {
        write("trips-server: \(message)\n")
    }

    private func write(_ line: String) {
        let bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(STDERR_FILENO, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }  // nowhere else to report a failing stderr
            offset += written
        }
    }
}
