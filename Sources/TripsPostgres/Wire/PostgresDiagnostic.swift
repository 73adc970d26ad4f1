/// The fields of an ErrorResponse or a NoticeResponse, by their one-byte codes.
///
/// Severity, SQLSTATE and message are always present (the decoder refuses a message without
/// them); the others are there when they apply. Fields of unknown codes are kept, as the
/// protocol asks clients to ignore rather than refuse them.
/// https://www.postgresql.org/docs/current/protocol-error-fields.html
package struct PostgresDiagnostic: Sendable, Hashable {
    /// `ERROR`, `FATAL`, `PANIC`, `WARNING`, `NOTICE`, …: from V (never translated) when the
    /// server sends it, else from S.
    package let severity: String
    package let sqlState: SQLState
    /// The primary message, one line (M).
    package let message: String
    /// Every field by its code, the three above included.
    package let fields: [FieldCode: String]

    /// A field's one-byte code.
    package struct FieldCode: RawRepresentable, Sendable, Hashable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        private init(_ character: Unicode.Scalar) { self.rawValue = UInt8(ascii: character) }

        /// S: the severity, possibly translated.
        package static let localizedSeverity = FieldCode("S")
        /// V: the severity, never translated.
        package static let severity = FieldCode("V")
        /// C: the SQLSTATE.
        package static let sqlState = FieldCode("C")
        /// M: the primary message.
        package static let message = FieldCode("M")
        /// D: more detail, possibly several lines.
        package static let detail = FieldCode("D")
        /// H: a suggestion what to do.
        package static let hint = FieldCode("H")
        /// P: a 1-based character position in the query.
        package static let position = FieldCode("P")
        /// W: the context, such as a PL/pgSQL call stack.
        package static let context = FieldCode("W")
        /// s: the schema of the object concerned.
        package static let schemaName = FieldCode("s")
        /// t: the table concerned.
        package static let tableName = FieldCode("t")
        /// c: the column concerned.
        package static let columnName = FieldCode("c")
        /// d: the data type concerned.
        package static let dataTypeName = FieldCode("d")
        /// n: the constraint that failed, such as `trips_pkey`.
        package static let constraintName = FieldCode("n")
        /// F, L, R: where in the server's source the error was raised.
        package static let file = FieldCode("F")
        package static let line = FieldCode("L")
        package static let routine = FieldCode("R")
    }

    /// Builds a diagnostic from the fields of a message of `kind`; refuses fields without S,
    /// C or M, or with a C that is not an SQLSTATE.
    package init(fields: [FieldCode: String], of kind: BackendMessage.Kind = .errorResponse) throws(PostgresWireError) {
        guard let localizedSeverity = fields[.localizedSeverity] else {
            throw .missingDiagnosticField(kind, code: FieldCode.localizedSeverity.rawValue)
        }
        guard let code = fields[.sqlState] else { throw .missingDiagnosticField(kind, code: FieldCode.sqlState.rawValue) }
        guard let sqlState = SQLState(rawValue: code) else { throw .invalidSQLState(code) }
        guard let message = fields[.message] else { throw .missingDiagnosticField(kind, code: FieldCode.message.rawValue) }
        self.severity = fields[.severity] ?? localizedSeverity
        self.sqlState = sqlState
        self.message = message
        self.fields = fields
    }

    package subscript(code: FieldCode) -> String? { fields[code] }

    package var detail: String? { fields[.detail] }
    package var hint: String? { fields[.hint] }
    package var constraintName: String? { fields[.constraintName] }
    package var tableName: String? { fields[.tableName] }

    /// FATAL and PANIC end the session: the server closes the connection after sending them.
    package var endsSession: Bool { severity == "FATAL" || severity == "PANIC" }
}
