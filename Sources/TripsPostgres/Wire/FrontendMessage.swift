import Glibc

/// A message this client sends to a PostgreSQL server (protocol 3.0).
///
/// Only what Trips uses: the startup, password and SASL answers, the extended query protocol
/// with every value in text format, the simple query for fixed SQL we write, and Terminate.
/// https://www.postgresql.org/docs/current/protocol-message-formats.html
package enum FrontendMessage: Sendable, Hashable {
    /// StartupMessage: protocol 3.0, `client_encoding` UTF8 and the session's identity.
    case startup(user: String, database: String, applicationName: String)
    /// PasswordMessage: the cleartext password, or the `md5…` digest an authenticator made.
    case password(String)
    /// SASLInitialResponse: the chosen mechanism and the client-first message (nil: none).
    case saslInitialResponse(mechanism: String, data: [UInt8]?)
    /// SASLResponse: the next client message of the exchange.
    case saslResponse([UInt8])
    /// Parse: prepares `query` as the statement `statement` ("" is the unnamed one); every
    /// parameter's type is left for the server to infer.
    case parse(statement: String, query: String)
    /// Bind: binds `parameters` (written as Bind sends them, with their formats) to `statement`
    /// as `portal`, and asks for every result column in text format.
    case bind(portal: String, statement: String, parameters: PostgresParameters)
    /// Describe: asks for the row description of a portal or a prepared statement.
    case describe(DescribeTarget)
    /// Execute: runs `portal`, returning at most `maxRows` rows (0: all of them).
    case execute(portal: String, maxRows: Int32)
    /// Sync: ends an extended query; the server answers with ReadyForQuery, after an error too.
    case sync
    /// Flush: asks the server to send what it has answered so far, without waiting for Sync.
    case flush
    /// Query: the simple protocol, for fixed SQL we write (`BEGIN`, `LISTEN trips`), never data.
    case query(String)
    /// Terminate: a polite goodbye before closing the socket.
    case terminate
    /// Sent alone on a new connection (no type byte, like `startup`): asks the server to stop
    /// what the session with this key is running.
    case cancelRequest(BackendMessage.BackendKeyData)

    /// What Describe describes.
    package enum DescribeTarget: Sendable, Hashable {
        case portal(String)
        case statement(String)
    }

    /// The value an encoding error is about.
    package enum Field: Sendable, Hashable, CustomStringConvertible {
        case user
        case database
        case applicationName
        case password
        case mechanism
        case statementName
        case portalName
        case query
        /// The parameter at this index, from 0 (`$1` is 0).
        case parameter(Int)

        package var description: String {
            switch self {
            case .user: "user name"
            case .database: "database name"
            case .applicationName: "application name"
            case .password: "password"
            case .mechanism: "SASL mechanism name"
            case .statementName: "statement name"
            case .portalName: "portal name"
            case .query: "query"
            case .parameter(let index): "parameter $\(index + 1)"
            }
        }
    }

    /// Protocol 3.0 as the startup message writes it: major version in the high 16 bits.
    package static let protocolVersion: Int32 = 3 << 16
    /// What a cancel request sends where the startup message has its version: 1234 in the
    /// high 16 bits, 5678 in the low ones.
    package static let cancelRequestCode: Int32 = 80_877_102

    /// Appends the message to `buffer`, type byte and length included.
    ///
    /// On an error `buffer` is left as it was, so messages batched before this one can still
    /// be sent.
    package func encode(into buffer: inout [UInt8]) throws(PostgresEncodingError) {
        let start = buffer.count
        do {
            try append(to: &buffer)
        } catch {
            buffer.removeSubrange(start...)
            throw error
        }
    }

    private func append(to buffer: inout [UInt8]) throws(PostgresEncodingError) {
        var writer = Writer(buffer: buffer)
        buffer = []  // the writer holds the only reference, so appending does not copy
        defer { buffer = writer.buffer }
        switch self {
        case .startup(let user, let database, let applicationName):
            writer.beginMessage(type: nil)
            writer.int32(Self.protocolVersion)
            writer.constant("user")
            try writer.cString(user, .user)
            writer.constant("database")
            try writer.cString(database, .database)
            writer.constant("application_name")
            try writer.cString(applicationName, .applicationName)
            writer.constant("client_encoding")
            writer.constant("UTF8")
            writer.byte(0)  // the end of the parameters
        case .password(let password):
            writer.beginMessage(type: UInt8(ascii: "p"))
            try writer.cString(password, .password)
        case .saslInitialResponse(let mechanism, let data):
            writer.beginMessage(type: UInt8(ascii: "p"))
            try writer.cString(mechanism, .mechanism)
            if let data {
                try writer.int32(length: data.count)
                writer.bytes(data)
            } else {
                writer.int32(-1)
            }
        case .saslResponse(let data):
            writer.beginMessage(type: UInt8(ascii: "p"))
            writer.bytes(data)
        case .parse(let statement, let query):
            writer.beginMessage(type: UInt8(ascii: "P"))
            try writer.cString(statement, .statementName)
            try writer.cString(query, .query)
            writer.int16(0)  // no parameter types: the server infers them
        case .bind(let portal, let statement, let parameters):
            guard parameters.count <= Int(UInt16.max) else { throw .tooManyParameters(count: parameters.count) }
            writer.beginMessage(type: UInt8(ascii: "B"))
            try writer.cString(portal, .portalName)
            try writer.cString(statement, .statementName)
            if let refusal = parameters.refusal { throw refusal }
            // None while all are text; otherwise one for each.
            writer.int16(UInt16(parameters.formats.count))
            for format in parameters.formats { writer.int16(format) }
            writer.int16(UInt16(parameters.count))
            writer.bytes(parameters.encoded)
            writer.int16(0)  // no result format codes: all text
        case .describe(let target):
            writer.beginMessage(type: UInt8(ascii: "D"))
            switch target {
            case .portal(let name):
                writer.byte(UInt8(ascii: "P"))
                try writer.cString(name, .portalName)
            case .statement(let name):
                writer.byte(UInt8(ascii: "S"))
                try writer.cString(name, .statementName)
            }
        case .execute(let portal, let maxRows):
            writer.beginMessage(type: UInt8(ascii: "E"))
            try writer.cString(portal, .portalName)
            writer.int32(maxRows)
        case .sync:
            writer.beginMessage(type: UInt8(ascii: "S"))
        case .flush:
            writer.beginMessage(type: UInt8(ascii: "H"))
        case .query(let sql):
            writer.beginMessage(type: UInt8(ascii: "Q"))
            try writer.cString(sql, .query)
        case .terminate:
            writer.beginMessage(type: UInt8(ascii: "X"))
        case .cancelRequest(let key):
            writer.beginMessage(type: nil)
            writer.int32(Self.cancelRequestCode)
            writer.int32(key.processID)
            writer.bytes(key.secretKey)
        }
        try writer.endMessage()
    }

    /// Whether `utf8` holds a NUL, looked for with memchr: a query can be long, and
    /// `String.UTF8View.contains` took a tenth of a writing instance's time (parameters are
    /// looked at as they are written: `PostgresParameters`).
    fileprivate static func containsNUL(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return false }
        return memchr(base, 0, utf8.count) != nil
    }

    /// Appends fields in network byte order and fills in the length when the message ends.
    private struct Writer {
        var buffer: [UInt8]
        private var lengthOffset = 0

        init(buffer: [UInt8]) { self.buffer = buffer }

        /// Writes the type byte (the startup message has none) and room for the length.
        mutating func beginMessage(type: UInt8?) {
            if let type { buffer.append(type) }
            lengthOffset = buffer.count
            int32(0)
        }

        /// The length counts itself and the body, not the type byte.
        mutating func endMessage() throws(PostgresEncodingError) {
            let length = buffer.count - lengthOffset
            guard length <= Int(Int32.max) else { throw .messageTooLong(length: length) }
            let offset = lengthOffset
            buffer.withUnsafeMutableBytes { $0.storeBytes(of: Int32(length).bigEndian, toByteOffset: offset, as: Int32.self) }
        }

        mutating func byte(_ value: UInt8) { buffer.append(value) }

        // Byte by byte: appending the value's bytes as a raw buffer went through the generic
        // append, ~115 instructions for each of a transaction's ~45 counts and lengths.
        mutating func int16(_ value: UInt16) {
            buffer.append(UInt8(truncatingIfNeeded: value >> 8))
            buffer.append(UInt8(truncatingIfNeeded: value))
        }

        mutating func int32(_ value: Int32) {
            let bits = UInt32(bitPattern: value)
            buffer.append(UInt8(truncatingIfNeeded: bits >> 24))
            buffer.append(UInt8(truncatingIfNeeded: bits >> 16))
            buffer.append(UInt8(truncatingIfNeeded: bits >> 8))
            buffer.append(UInt8(truncatingIfNeeded: bits))
        }

        /// A count of bytes that follow, which must fit the protocol's signed 32 bits.
        mutating func int32(length: Int) throws(PostgresEncodingError) {
            guard length <= Int(Int32.max) else { throw .messageTooLong(length: length) }
            int32(Int32(length))
        }

        mutating func bytes(_ value: some Collection<UInt8>) { buffer.append(contentsOf: value) }

        /// A NUL-terminated string we wrote, which holds no NUL.
        mutating func constant(_ value: StaticString) {
            value.withUTF8Buffer { buffer.append(contentsOf: $0) }
            buffer.append(0)
        }

        /// A NUL-terminated string; a NUL inside would end it early, so it is refused.
        mutating func cString(_ value: String, _ field: FrontendMessage.Field) throws(PostgresEncodingError) {
            // The unnamed portal and statement: three of every statement's four names.
            guard !value.isEmpty else { return buffer.append(0) }
            var value = value
            guard !value.withUTF8(FrontendMessage.containsNUL) else { throw .nulCharacter(in: field) }
            value.withUTF8 { buffer.append(contentsOf: $0) }
            buffer.append(0)
        }
    }
}
