/// Splits bytes from a PostgreSQL server into messages. It never touches a socket.
///
/// Feed it the bytes not consumed yet; it answers "need more bytes", or a message and how
/// many bytes it took, or throws. The caller drops the consumed bytes and feeds the rest
/// again, followed by newly read ones:
///
///     let decoder = BackendMessageDecoder()
///     let step = try decoder.decode([0x5A, 0, 0, 0, 5, 0x49])
///     // step == .message(.readyForQuery(.idle), consumed: 6)
///
/// Every message is a type byte, a 32-bit length that counts itself and the body, and the
/// body. The type and the length are checked as soon as they arrive, before the body is
/// waited for: an unknown type, a length below 4, a length this kind cannot have, or one over
/// `maxMessageLength` throws at once, so a broken or hostile server cannot make the client
/// buffer without bound. Inside a body every field is checked against the body's end.
///
/// - Complexity: O(n) in the message's length; a message is parsed once, when it is whole.
package struct BackendMessageDecoder: Sendable, Hashable {
    /// The default `maxMessageLength`: 64 MiB, far above any row Trips stores.
    static let defaultMaxMessageLength = 64 * 1024 * 1024

    /// The longest declared length accepted (the length field counts itself and the body;
    /// the type byte comes on top). PostgreSQL's own ceiling for one value is 1 GiB.
    /// Default: 67,108,864 (64 MiB).
    let maxMessageLength: Int

    init(maxMessageLength: Int = Self.defaultMaxMessageLength) {
        self.maxMessageLength = maxMessageLength
    }

    /// What the decoder found at the start of the input.
    enum Step: Sendable, Hashable {
        /// The input holds no whole message yet.
        case needMoreBytes
        /// A message, which took the first `consumed` bytes of the input (1 + its declared length).
        case message(BackendMessage, consumed: Int)
    }

    /// Decodes the message at the start of `input`, if it is whole.
    func decode(_ input: UnsafeRawBufferPointer) throws(PostgresWireError) -> Step {
        guard let (kind, total) = try frame(input) else { return .needMoreBytes }
        var reader = MessageBodyReader(UnsafeRawBufferPointer(rebasing: input[5..<total]), kind: kind)
        let message = try Self.parse(&reader)
        try reader.finish()
        return .message(message, consumed: total)
    }

    /// The message at the start of `input` when it is one of the bodiless answers every
    /// statement gets (BindComplete, ParseComplete, NoData, CloseComplete) or ReadyForQuery,
    /// whole and well formed, and the bytes it took; nil for anything else, which `decode`
    /// reads (and refuses, if it is malformed). Half a transaction's messages are these:
    /// told from their header, without a body reader and an outcome wrapped twice.
    static func shortMessage(_ input: UnsafeRawBufferPointer) -> (BackendMessage, consumed: Int)? {
        guard input.count >= 5, input[1] == 0, input[2] == 0, input[3] == 0 else { return nil }
        switch (input[0], input[4]) {
        case (BackendMessage.Kind.bindComplete.rawValue, 4): return (.bindComplete, 5)
        case (BackendMessage.Kind.parseComplete.rawValue, 4): return (.parseComplete, 5)
        case (BackendMessage.Kind.noData.rawValue, 4): return (.noData, 5)
        case (BackendMessage.Kind.closeComplete.rawValue, 4): return (.closeComplete, 5)
        case (BackendMessage.Kind.readyForQuery.rawValue, 5):
            guard input.count >= 6, let status = PostgresTransactionStatus(rawValue: input[5]) else { return nil }
            return (.readyForQuery(status), 6)
        default: return nil
        }
    }

    /// The DataRow at the start of `input`, read in place when it is whole: each value's bytes
    /// as a range of `input` (nil for NULL) written over `bounds`, and how many bytes the
    /// message took; nil when the input does not hold all of it yet. The checks are
    /// `decode`'s. For rows read by the thousand, where an array per value would be most of
    /// the work (`PostgresRowValues`).
    func dataRow(_ input: UnsafeRawBufferPointer, bounds: inout [Range<Int>?]) throws(PostgresWireError) -> Int? {
        guard let (kind, total) = try frame(input) else { return nil }
        precondition(kind == .dataRow, "dataRow(_:bounds:) reads DataRow messages only")
        var reader = MessageBodyReader(UnsafeRawBufferPointer(rebasing: input[5..<total]), kind: kind)
        let count = try reader.count()
        // Rows of one answer have the same width: the array is made once and written over.
        if bounds.count != count { bounds = Array(repeating: nil, count: count) }
        try bounds.withUnsafeMutableBufferPointer { (slots) throws(PostgresWireError) in
            for column in 0..<count {
                let length = try reader.int32()
                guard length >= 0 else {
                    guard length == -1 else { throw .invalidValueLength(length: length) }
                    slots[column] = nil
                    continue
                }
                let start = 5 + reader.offset
                try reader.skip(Int(length))
                slots[column] = start..<start + Int(length)
            }
        }
        try reader.finish()
        return total
    }

    /// The kind and whole length (type byte included) of the message at the start of `input`,
    /// checked as soon as its header is there; nil until the input holds all of it.
    private func frame(_ input: UnsafeRawBufferPointer) throws(PostgresWireError) -> (BackendMessage.Kind, total: Int)? {
        guard let type = input.first else { return nil }
        guard let kind = BackendMessage.Kind(rawValue: type) else { throw .unknownMessageType(type) }
        guard input.count >= 5 else { return nil }
        let declared = Int(Int32(bitPattern: UInt32(input[1]) << 24 | UInt32(input[2]) << 16 | UInt32(input[3]) << 8 | UInt32(input[4])))
        guard kind.validLengths.contains(declared) else { throw .invalidLength(kind, length: declared) }
        guard declared <= maxMessageLength else { throw .messageTooLong(kind, length: declared, limit: maxMessageLength) }
        let total = 1 + declared
        guard input.count >= total else { return nil }
        return (kind, total)
    }

    /// Decodes the message at the start of `input`, if it is whole.
    func decode(_ input: [UInt8]) throws(PostgresWireError) -> Step {
        // withUnsafeBytes rethrows untyped errors, so the outcome crosses it as a Result.
        let outcome = input.withUnsafeBytes { bytes in Result { () throws(PostgresWireError) in try decode(bytes) } }
        return try outcome.get()
    }

    private static func parse(_ reader: inout MessageBodyReader) throws(PostgresWireError) -> BackendMessage {
        switch reader.kind {
        case .authentication: return .authentication(try authentication(&reader))
        case .parameterStatus: return .parameterStatus(name: try reader.string(), value: try reader.string())
        case .backendKeyData:
            return .backendKeyData(BackendMessage.BackendKeyData(processID: try reader.int32(), secretKey: reader.rest()))
        case .readyForQuery:
            let status = try reader.uint8()
            guard let transactionStatus = PostgresTransactionStatus(rawValue: status) else {
                throw .invalidTransactionStatus(status)
            }
            return .readyForQuery(transactionStatus)
        case .rowDescription: return .rowDescription(try columns(&reader))
        case .dataRow: return .dataRow(try values(&reader))
        case .commandComplete: return .commandComplete(tag: try reader.string())
        case .emptyQueryResponse: return .emptyQueryResponse
        case .errorResponse: return .errorResponse(try diagnostic(&reader))
        case .noticeResponse: return .noticeResponse(try diagnostic(&reader))
        case .parseComplete: return .parseComplete
        case .bindComplete: return .bindComplete
        case .closeComplete: return .closeComplete
        case .noData: return .noData
        case .portalSuspended: return .portalSuspended
        case .parameterDescription:
            let count = try reader.count()
            var types: [UInt32] = []
            for _ in 0..<count { types.append(try reader.uint32()) }
            return .parameterDescription(types)
        case .notificationResponse:
            return .notificationResponse(
                PostgresNotification(processID: try reader.int32(), channel: try reader.string(), payload: try reader.string()))
        case .negotiateProtocolVersion:
            let version = try reader.int32()
            let count = Int(try reader.int32())
            guard count >= 0 else { throw .invalidCount(.negotiateProtocolVersion, count: count) }
            var options: [String] = []
            for _ in 0..<count { options.append(try reader.string()) }
            return .negotiateProtocolVersion(newestVersion: version, unrecognizedOptions: options)
        }
    }

    private static func authentication(_ reader: inout MessageBodyReader) throws(PostgresWireError) -> BackendMessage.Authentication {
        switch try reader.int32() {
        case 0: return .ok
        case 3: return .cleartextPassword
        case 5: return .md5Password(salt: try reader.bytes(4))
        case 10:
            // Mechanism names, ended by an empty one.
            var mechanisms: [String] = []
            while true {
                let mechanism = try reader.string()
                if mechanism.isEmpty { break }
                mechanisms.append(mechanism)
            }
            return .sasl(mechanisms: mechanisms)
        case 11: return .saslContinue(reader.rest())
        case 12: return .saslFinal(reader.rest())
        case let code:
            // The data of methods we do not speak is not ours to check.
            _ = reader.rest()
            return .unsupported(code: code)
        }
    }

    private static func columns(_ reader: inout MessageBodyReader) throws(PostgresWireError) -> [BackendMessage.ColumnDescription] {
        let count = try reader.count()
        var columns: [BackendMessage.ColumnDescription] = []
        columns.reserveCapacity(min(count, reader.remaining / 19))  // each takes at least 19 bytes
        for _ in 0..<count {
            let column = BackendMessage.ColumnDescription(
                name: try reader.string(), tableOID: try reader.uint32(), columnNumber: try reader.int16(),
                typeOID: try reader.uint32(), typeSize: try reader.int16(), typeModifier: try reader.int32(),
                formatCode: try reader.int16())
            guard column.formatCode == 0 || column.formatCode == 1 else { throw .invalidFormatCode(column.formatCode) }
            columns.append(column)
        }
        return columns
    }

    private static func values(_ reader: inout MessageBodyReader) throws(PostgresWireError) -> [[UInt8]?] {
        let count = try reader.count()
        var values: [[UInt8]?] = []
        values.reserveCapacity(min(count, reader.remaining / 4))  // each takes at least 4 bytes
        for _ in 0..<count {
            let length = try reader.int32()
            if length == -1 {
                values.append(nil)
                continue
            }
            guard length >= 0 else { throw .invalidValueLength(length: length) }
            values.append(try reader.bytes(Int(length)))
        }
        return values
    }

    /// Fields as a code byte and a string each, ended by a zero byte.
    private static func diagnostic(_ reader: inout MessageBodyReader) throws(PostgresWireError) -> PostgresDiagnostic {
        var fields: [PostgresDiagnostic.FieldCode: String] = [:]
        while true {
            let code = try reader.uint8()
            if code == 0 { break }
            fields[PostgresDiagnostic.FieldCode(rawValue: code)] = try reader.string()
        }
        return try PostgresDiagnostic(fields: fields, of: reader.kind)
    }
}
