import TripsFormats

/// One row's values in text format, as the server sent them, lent to a
/// `PostgresConnection.query(_:eachRow:)` body for the length of its call: no copy and no
/// `String` until the reader makes the values it keeps. Rows read by the million (a store's
/// start-up) cost what their values cost, not an array and a string per value on top.
///
///     try connection.query(PostgresStatement("SELECT id, city FROM trips")) { row in
///         let city = row[1].map { String(decoding: $0, as: UTF8.self) }  // nil for NULL
///     }
///
/// The bytes are the connection's read buffer: a body must not keep them past its return.
package struct PostgresRowValues {
    /// The DataRow message the values are in.
    private let message: UnsafeRawBufferPointer
    /// Each value's bytes in `message`; nil for NULL.
    private let bounds: [Range<Int>?]

    init(message: UnsafeRawBufferPointer, bounds: [Range<Int>?]) {
        self.message = message
        self.bounds = bounds
    }

    /// How many values the row has: one per column.
    package var count: Int { bounds.count }

    /// The bytes of the DataRow message the values are in: what holding the row costs, about.
    var messageByteCount: Int { message.count }

    /// The bytes of the value in `column` (counted from 0); nil for NULL.
    package subscript(column: Int) -> UnsafeRawBufferPointer? {
        bounds[column].map { UnsafeRawBufferPointer(rebasing: message[$0]) }
    }

    /// Every value as text, as `PostgresRows` keeps them; nil for NULL. A value that is not
    /// UTF-8 is a wire error: the session's client encoding is UTF8.
    package func texts() throws(PostgresConnectionError) -> [String?] {
        var texts: [String?] = []
        texts.reserveCapacity(count)
        for column in 0..<count {
            guard let bytes = self[column] else {
                texts.append(nil)
                continue
            }
            guard let text = UTF8Text.string(bytes) else { throw .wire(.invalidUTF8(.dataRow)) }
            texts.append(text)
        }
        return texts
    }
}
