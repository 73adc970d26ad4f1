/// Where storage reports what it did on its own: a torn record dropped, a compaction that failed.
package protocol StorageLog: Sendable {
    /// Something was wrong and storage worked around it; an operator should know.
    func warning(_ message: String)
    /// Routine news, such as a finished compaction.
    func info(_ message: String)
}
