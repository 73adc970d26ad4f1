/// What one statement returned: its columns, its rows as text, and its command tag.
///
/// Every value comes in text format (Bind asks for it), read as UTF-8; nil is SQL NULL.
package struct PostgresRows: Sendable, Hashable {
    /// The column names, in order; empty for a statement that returns no rows.
    package let columns: [String]
    /// One array of values per row, in the columns' order.
    package let rows: [[String?]]
    /// The CommandComplete tag (`SELECT 2`, `INSERT 0 1`, `UPDATE 3`, `BEGIN`); empty for an
    /// empty query.
    package let commandTag: String

    /// The rows the statement inserted, updated, deleted, selected, moved, fetched or copied:
    /// the tag's last number, when it has one (`INSERT 0 5` → 5, `BEGIN` → nil).
    package var affectedRows: Int? {
        guard let last = commandTag.split(separator: " ").last, commandTag.contains(" ") else { return nil }
        return Int(last)
    }

    /// The value of the column named `column` in row `row`; nil for NULL or no such column.
    package subscript(row: Int, column: String) -> String? {
        guard rows.indices.contains(row), let index = columns.firstIndex(of: column) else { return nil }
        return rows[row][index]
    }
}
