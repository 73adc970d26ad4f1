import Foundation
import Testing
import TripsTestSupport

@testable import TripsPostgres
@testable import TripsServer

@Suite struct BackendMessageDecoderTests {
    /// One of every message the decoder knows, as a server writes it, with its value. Built
    /// on each use: a static table would live for the whole run, which LeakSanitizer reports.
    static var samples: [([UInt8], BackendMessage)] {
        [
            (Wire.authentication(0), .authentication(.ok)),
            (Wire.authentication(3), .authentication(.cleartextPassword)),
            (Wire.authentication(5, [1, 2, 3, 4]), .authentication(.md5Password(salt: [1, 2, 3, 4]))),
            (
                Wire.authentication(10, Wire.cString("SCRAM-SHA-256-PLUS") + Wire.cString("SCRAM-SHA-256") + [0]),
                .authentication(.sasl(mechanisms: ["SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"]))
            ),
            (
                Wire.authentication(11, Array("r=abc,s=c2FsdA==,i=4096".utf8)),
                .authentication(.saslContinue(Array("r=abc,s=c2FsdA==,i=4096".utf8)))
            ),
            (Wire.authentication(12, Array("v=c2ln".utf8)), .authentication(.saslFinal(Array("v=c2ln".utf8)))),
            (Wire.authentication(7), .authentication(.unsupported(code: 7))),
            (Wire.authentication(8, [9, 9]), .authentication(.unsupported(code: 8))),
            (Wire.parameterStatus("server_version", "16.2"), .parameterStatus(name: "server_version", value: "16.2")),
            (Wire.parameterStatus("application_name", ""), .parameterStatus(name: "application_name", value: "")),
            (
                Wire.message("K", Wire.int32(4242) + [0xDE, 0xAD, 0xBE, 0xEF]),
                .backendKeyData(.init(processID: 4242, secretKey: [0xDE, 0xAD, 0xBE, 0xEF]))
            ),
            (Wire.readyForQuery("I"), .readyForQuery(.idle)),
            (Wire.readyForQuery("T"), .readyForQuery(.inTransaction)),
            (Wire.readyForQuery("E"), .readyForQuery(.failedTransaction)),
            (
                Wire.message(
                    "T",
                    Wire.int16(2) + Wire.cString("id") + Wire.int32(16_384) + Wire.int16(1) + Wire.int32(23) + Wire.int16(4)
                        + Wire.int32(-1)
                        + Wire.int16(0) + Wire.cString("ville") + Wire.int32(16_384) + Wire.int16(2) + Wire.int32(1043) + Wire.int16(-1)
                        + Wire.int32(36) + Wire.int16(1)),
                .rowDescription([
                    .init(name: "id", tableOID: 16_384, columnNumber: 1, typeOID: 23, typeSize: 4, typeModifier: -1, formatCode: 0),
                    .init(name: "ville", tableOID: 16_384, columnNumber: 2, typeOID: 1043, typeSize: -1, typeModifier: 36, formatCode: 1),
                ])
            ),
            (Wire.message("T", Wire.int16(0)), .rowDescription([])),
            (Wire.dataRow(["1", nil, "", "Zürich"]), .dataRow([Array("1".utf8), nil, [], Array("Zürich".utf8)])),
            (Wire.message("D", Wire.int16(1) + Wire.int32(2) + [0xFF, 0x00]), .dataRow([[0xFF, 0x00]])),
            (Wire.message("D", Wire.int16(0)), .dataRow([])),
            (Wire.commandComplete("INSERT 0 1"), .commandComplete(tag: "INSERT 0 1")),
            (Wire.message("I", []), .emptyQueryResponse),
            (
                Wire.diagnostic(
                    "E",
                    [
                        ("S", "ERREUR"), ("V", "ERROR"), ("C", "23505"),
                        ("M", "duplicate key value violates unique constraint \"trips_pkey\""),
                        ("D", "Key (id)=(1) already exists."), ("s", "public"), ("t", "trips"), ("n", "trips_pkey"), ("F", "nbtinsert.c"),
                        ("L", "664"), ("R", "_bt_check_unique"), ("q", "unknown code kept"),
                    ]),
                .errorResponse(
                    try! PostgresDiagnostic(fields: [
                        .localizedSeverity: "ERREUR", .severity: "ERROR", .sqlState: "23505",
                        .message: "duplicate key value violates unique constraint \"trips_pkey\"", .detail: "Key (id)=(1) already exists.",
                        .schemaName: "public", .tableName: "trips", .constraintName: "trips_pkey", .file: "nbtinsert.c", .line: "664",
                        .routine: "_bt_check_unique", .init(rawValue: UInt8(ascii: "q")): "unknown code kept",
                    ]))
            ),
            (
                Wire.diagnostic("N", [("S", "NOTICE"), ("C", "00000"), ("M", "table \"x\" does not exist, skipping")]),
                .noticeResponse(
                    try! PostgresDiagnostic(
                        fields: [.localizedSeverity: "NOTICE", .sqlState: "00000", .message: "table \"x\" does not exist, skipping"],
                        of: .noticeResponse))
            ),
            (Wire.message("1", []), .parseComplete),
            (Wire.message("2", []), .bindComplete),
            (Wire.message("3", []), .closeComplete),
            (Wire.message("n", []), .noData),
            (Wire.message("s", []), .portalSuspended),
            (Wire.message("t", Wire.int16(2) + Wire.int32(25) + Wire.int32(-1)), .parameterDescription([25, UInt32.max])),
            (
                Wire.notification(pid: 77, "trips", "{\"id\":1}"),
                .notificationResponse(.init(processID: 77, channel: "trips", payload: "{\"id\":1}"))
            ),
            (Wire.notification(pid: 77, "trips", ""), .notificationResponse(.init(processID: 77, channel: "trips", payload: ""))),
            (
                Wire.message("v", Wire.int32(0x0003_0000) + Wire.int32(1) + Wire.cString("_pq_.compression")),
                .negotiateProtocolVersion(newestVersion: 0x0003_0000, unrecognizedOptions: ["_pq_.compression"])
            ),
        ]
    }

    @Test func everyKindOfMessageDecodesIntoItsValueAndTakesItsWholeLength() throws {
        for (bytes, expected) in Self.samples {
            let step = try BackendMessageDecoder().decode(bytes)
            #expect(step == .message(expected, consumed: bytes.count), "\(expected)")
        }
    }

    /// The short way to the answers every statement gets says what `decode` says of them, or
    /// nothing (a cut, a malformed or another message), leaving it to `decode`.
    @Test func theShortMessagesReadAsDecodeReadsThem() throws {
        var short = 0
        for (bytes, expected) in Self.samples {
            let found = bytes.withUnsafeBytes { BackendMessageDecoder.shortMessage($0) }
            if let found {
                short += 1
                #expect(found.0 == expected && found.consumed == bytes.count, "\(expected)")
            }
            for end in 0..<bytes.count {
                #expect(Array(bytes[..<end]).withUnsafeBytes { BackendMessageDecoder.shortMessage($0) } == nil, "\(expected) cut at \(end)")
            }
        }
        #expect(short >= 5)
        for malformed in [Wire.readyForQuery("X"), Wire.message("Z", length: 6, [0x49, 0]), Wire.message("2", length: 5, [0])] {
            #expect(malformed.withUnsafeBytes { BackendMessageDecoder.shortMessage($0) } == nil)
            #expect(throws: PostgresWireError.self) { try BackendMessageDecoder().decode(malformed) }
        }
    }

    @Test func aMessageWithoutAllItsBytesAsksForMore() throws {
        for (bytes, expected) in Self.samples {
            for end in 0..<bytes.count {
                #expect(try BackendMessageDecoder().decode(Array(bytes[..<end])) == .needMoreBytes, "\(expected) cut at \(end)")
            }
        }
    }

    /// Every sample, back to back, as one stream.
    static let stream = samples.flatMap(\.0)

    @Test func everySplitPointGivesTheSameMessages() {
        let whole = decodeStream([Self.stream])
        #expect(whole.messages == Self.samples.map(\.1))
        #expect(whole.error == nil && whole.leftover == 0)
        for split in 0...Self.stream.count {
            let halves = decodeStream([Array(Self.stream[..<split]), Array(Self.stream[split...])])
            #expect(halves == whole, "split at \(split)")
        }
        #expect(decodeStream(Self.stream.map { [$0] }) == whole)
    }

    @Test func aStartupConversationDecodesInOrder() {
        let bytes =
            Wire.authentication(0) + Wire.parameterStatus("client_encoding", "UTF8") + Wire.parameterStatus("server_version", "15.6")
            + Wire.message("K", Wire.int32(9) + Wire.int32(1234)) + Wire.readyForQuery()
        let decoded = decodeStream([bytes])
        #expect(decoded.messages.map(\.kind) == [.authentication, .parameterStatus, .parameterStatus, .backendKeyData, .readyForQuery])
        #expect(decoded.consumed.reduce(0, +) == bytes.count)
    }

    @Test(arguments: [
        // (bytes, the error)
        ([UInt8(ascii: "H"), 0, 0, 0, 4], PostgresWireError.unknownMessageType(UInt8(ascii: "H"))),  // CopyOutResponse: never asked for
        ([0], .unknownMessageType(0)),
        (Array("HTTP/1.1 400 Bad Request\r\n".utf8), .unknownMessageType(UInt8(ascii: "H"))),
        (Wire.message("Z", length: 3, []), .invalidLength(.readyForQuery, length: 3)),
        (Wire.message("Z", length: -1, []), .invalidLength(.readyForQuery, length: -1)),
        (Wire.message("Z", length: Int32.min, []), .invalidLength(.readyForQuery, length: Int(Int32.min))),
        (Wire.message("Z", length: 6, [0x49]), .invalidLength(.readyForQuery, length: 6)),
        (Wire.message("1", length: 5, []), .invalidLength(.parseComplete, length: 5)),
        (Wire.message("C", length: 4, []), .invalidLength(.commandComplete, length: 4)),
        (Wire.message("K", length: 8, []), .invalidLength(.backendKeyData, length: 8)),
        (Wire.message("K", length: 265, []), .invalidLength(.backendKeyData, length: 265)),
        (Wire.message("R", length: 7, []), .invalidLength(.authentication, length: 7)),
        (Wire.message("D", length: 5, []), .invalidLength(.dataRow, length: 5)),
        // Longer than any payload NOTIFY can send: refused before it is buffered.
        (Wire.message("A", length: 130_569, []), .invalidLength(.notificationResponse, length: 130_569)),
        (
            Wire.message("D", length: Int32.max, []),
            .messageTooLong(.dataRow, length: Int(Int32.max), limit: BackendMessageDecoder.defaultMaxMessageLength)
        ),
        (Wire.readyForQuery("X"), .invalidTransactionStatus(UInt8(ascii: "X"))),
        (Wire.message("C", Array("SELECT 1".utf8)), .unterminatedString(.commandComplete)),
        (Wire.message("C", [0xC3, 0x28, 0]), .invalidUTF8(.commandComplete)),
        (Wire.message("C", Wire.cString("BEGIN") + [1]), .trailingBytes(.commandComplete, count: 1)),
        (Wire.message("S", Wire.cString("name")), .unterminatedString(.parameterStatus)),
        (
            Wire.message("S", Wire.cString("name") + Wire.cString("value") + Wire.cString("more")),
            .trailingBytes(.parameterStatus, count: 5)
        ),
        (Wire.message("S", [0xFF, 0] + Wire.cString("v")), .invalidUTF8(.parameterStatus)),
        (Wire.authentication(5, [1, 2, 3]), .truncated(.authentication)),
        (Wire.authentication(5, [1, 2, 3, 4, 5]), .trailingBytes(.authentication, count: 1)),
        (Wire.authentication(0, [0]), .trailingBytes(.authentication, count: 1)),
        (Wire.authentication(3, [0]), .trailingBytes(.authentication, count: 1)),
        (Wire.authentication(10, Wire.cString("SCRAM-SHA-256")), .unterminatedString(.authentication)),
        (Wire.authentication(10, Wire.cString("SCRAM-SHA-256") + [0, 7]), .trailingBytes(.authentication, count: 1)),
        (Wire.message("T", Wire.int16(-1)), .invalidCount(.rowDescription, count: -1)),
        (Wire.message("T", Wire.int16(1) + Wire.cString("id") + Wire.int32(0)), .truncated(.rowDescription)),
        (
            Wire.message(
                "T",
                Wire.int16(2) + Wire.cString("id") + Wire.int32(0) + Wire.int16(0) + Wire.int32(23) + Wire.int16(4) + Wire.int32(-1)
                    + Wire.int16(0)), .unterminatedString(.rowDescription)
        ),
        (
            Wire.message(
                "T",
                Wire.int16(1) + Wire.cString("id") + Wire.int32(0) + Wire.int16(0) + Wire.int32(23) + Wire.int16(4) + Wire.int32(-1)
                    + Wire.int16(2)), .invalidFormatCode(2)
        ),
        (
            Wire.message(
                "T",
                Wire.int16(1) + [0x80, 0] + Wire.int32(0) + Wire.int16(0) + Wire.int32(23) + Wire.int16(4) + Wire.int32(-1) + Wire.int16(0)),
            .invalidUTF8(.rowDescription)
        ),
        (Wire.message("D", Wire.int16(-2)), .invalidCount(.dataRow, count: -2)),
        (Wire.message("D", Wire.int16(1)), .truncated(.dataRow)),
        (Wire.message("D", Wire.int16(1) + Wire.int32(5) + [1, 2]), .truncated(.dataRow)),
        (Wire.message("D", Wire.int16(1) + Wire.int32(Int32.max) + [1, 2]), .truncated(.dataRow)),
        (Wire.message("D", Wire.int16(1) + Wire.int32(-2)), .invalidValueLength(length: -2)),
        (Wire.message("D", Wire.int16(1) + Wire.int32(Int32.min)), .invalidValueLength(length: Int32.min)),
        (Wire.message("D", Wire.int16(2) + Wire.int32(-1)), .truncated(.dataRow)),
        (Wire.message("D", Wire.int16(0) + Wire.int32(-1)), .trailingBytes(.dataRow, count: 4)),
        (Wire.message("E", [0]), .missingDiagnosticField(.errorResponse, code: UInt8(ascii: "S"))),
        (Wire.diagnostic("E", [("S", "ERROR"), ("M", "no code")]), .missingDiagnosticField(.errorResponse, code: UInt8(ascii: "C"))),
        (Wire.diagnostic("N", [("S", "NOTICE"), ("C", "00000")]), .missingDiagnosticField(.noticeResponse, code: UInt8(ascii: "M"))),
        (
            Wire.diagnostic("E", [("V", "ERROR"), ("C", "23505"), ("M", "no S")]),
            .missingDiagnosticField(.errorResponse, code: UInt8(ascii: "S"))
        ),
        (Wire.diagnostic("E", [("S", "ERROR"), ("C", "2350"), ("M", "short code")]), .invalidSQLState("2350")),
        (Wire.diagnostic("E", [("S", "ERROR"), ("C", "23505 "), ("M", "long code")]), .invalidSQLState("23505 ")),
        (Wire.diagnostic("E", [("S", "ERROR"), ("C", "2350a"), ("M", "lower case")]), .invalidSQLState("2350a")),
        (Wire.message("E", [UInt8(ascii: "S")] + Wire.cString("ERROR")), .truncated(.errorResponse)),
        (Wire.message("E", [UInt8(ascii: "S"), 0x45, 0x52]), .unterminatedString(.errorResponse)),
        (
            Wire.message(
                "E",
                [UInt8(ascii: "S")] + Wire.cString("ERROR") + [UInt8(ascii: "C")] + Wire.cString("XX000") + [UInt8(ascii: "M")]
                    + Wire.cString("x") + [0, 1]), .trailingBytes(.errorResponse, count: 1)
        ),
        (Wire.message("t", Wire.int16(-1)), .invalidCount(.parameterDescription, count: -1)),
        (Wire.message("t", Wire.int16(2) + Wire.int32(25)), .truncated(.parameterDescription)),
        (Wire.message("A", Wire.int32(1) + Wire.cString("chan")), .unterminatedString(.notificationResponse)),
        (Wire.message("A", Wire.int32(1) + Wire.cString("chan") + [0xE2, 0x82, 0]), .invalidUTF8(.notificationResponse)),
        (Wire.message("v", Wire.int32(0x0003_0000) + Wire.int32(-1)), .invalidCount(.negotiateProtocolVersion, count: -1)),
        (
            Wire.message("v", Wire.int32(0x0003_0000) + Wire.int32(2) + Wire.cString("_pq_.a")),
            .unterminatedString(.negotiateProtocolVersion)
        ),
        (Wire.message("v", Wire.int32(0x0003_0000) + Wire.int32(Int32.max)), .unterminatedString(.negotiateProtocolVersion)),
    ])
    func aMalformedMessageIsATypedErrorHoweverItIsSplit(bytes: [UInt8], expected: PostgresWireError) {
        // After a good message, so the error must also leave the message before it intact.
        let stream = Wire.readyForQuery() + bytes
        let whole = decodeStream([stream])
        #expect(whole.messages == [.readyForQuery(.idle)] && whole.error == expected)
        for split in 0...stream.count {
            #expect(decodeStream([Array(stream[..<split]), Array(stream[split...])]) == whole, "split at \(split)")
        }
        #expect(decodeStream(stream.map { [$0] }) == whole)
    }

    /// The connection reads DataRows in place (`dataRow(_:bounds:)`): the same values, the
    /// same errors and the same length as `decode`, however much of the row has arrived.
    @Test(arguments: [
        Wire.dataRow(["1", nil, "Zürich", ""]),
        Wire.dataRow([]),
        Wire.dataRow([nil]),
        Wire.message("D", length: 5, []),
        Wire.message("D", Wire.int16(-2)),
        Wire.message("D", Wire.int16(1) + Wire.int32(5) + [1, 2]),
        Wire.message("D", Wire.int16(1) + Wire.int32(-2)),
        Wire.message("D", Wire.int16(2) + Wire.int32(-1)),
        Wire.message("D", Wire.int16(0) + Wire.int32(-1)),
        Wire.message("D", length: Int32.max, []),
    ])
    func aDataRowReadInPlaceAgreesWithDecode(bytes: [UInt8]) {
        let decoder = BackendMessageDecoder()
        for end in 1...bytes.count {
            let input = Array(bytes[..<end])
            let decoded = Result { () throws(PostgresWireError) in try decoder.decode(input) }
            var bounds: [Range<Int>?] = [0..<1]  // what a row before left: overwritten
            let inPlace = input.withUnsafeBytes { raw in
                Result { () throws(PostgresWireError) -> [[UInt8]?]? in
                    guard let consumed = try decoder.dataRow(raw, bounds: &bounds) else { return nil }
                    #expect(consumed == end)
                    let row = PostgresRowValues(message: raw, bounds: bounds)
                    return (0..<row.count).map { row[$0].map { Array($0) } }
                }
            }
            switch (decoded, inPlace) {
            case (.success(.needMoreBytes), .success(nil)): continue
            case (.success(.message(.dataRow(let values), _)), .success(let read?)): #expect(read == values)
            case (.failure(let expected), .failure(let error)): #expect(error == expected)
            default: Issue.record("\(end) bytes: decode \(decoded), in place \(inPlace)")
            }
        }
    }

    @Test func aRowsValuesReadAsTheTypesTheirTextSpells() {
        let message =
            Wire.dataRow(["-42", "820454460.5", "t", "f", "1e400", "12a", "", nil, "Infinity"])
            + Wire.dataRow(["9223372036854775807", "-9223372036854775808", "9223372036854775808", "-", "0.1", "-0.000123456789012"])
            + Wire.dataRow(["1234567890123456", "1.5e-07", "NaN", "12.3.4", ".", "99999999999999999999"])
        var bounds: [Range<Int>?] = []
        message.withUnsafeBytes { raw in
            _ = try? BackendMessageDecoder().dataRow(raw, bounds: &bounds)
            let row = PostgresRowValues(message: raw, bounds: bounds)
            #expect(row.count == 9)
            #expect(row.integer(0) == -42 && row.double(0) == -42)
            #expect(row.double(1) == 820_454_460.5 && row.integer(1) == nil)
            #expect(row.boolean(2) == true && row.boolean(3) == false && row.boolean(0) == nil)
            #expect(row.double(4) == .infinity && row.integer(4) == nil)
            #expect(row.integer(5) == nil && row.double(5) == nil)
            #expect(row.integer(6) == nil && row.double(6) == nil && row.boolean(6) == nil)
            #expect(row[7] == nil && row.integer(7) == nil && row.double(7) == nil && row.boolean(7) == nil)
            #expect(row.double(8) == .infinity)
        }
        // Every double read as Swift reads its text, whichever way it was read.
        var offset = 0
        while offset < message.count {
            message[offset...].withUnsafeBytes { raw in
                guard let consumed = try? BackendMessageDecoder().dataRow(raw, bounds: &bounds) else {
                    Issue.record("row at \(offset) does not read")
                    offset = message.count
                    return
                }
                let row = PostgresRowValues(message: raw, bounds: bounds)
                for column in 0..<row.count {
                    let text = row[column].map { String(decoding: $0, as: UTF8.self) }
                    let expected = text.flatMap { Double($0) }
                    #expect(
                        row.double(column) == expected || (row.double(column)?.isNaN == true && expected?.isNaN == true),
                        "\(text ?? "NULL")")
                    #expect(row.integer(column) == text.flatMap { Int64($0) }, "\(text ?? "NULL")")
                }
                offset += consumed
            }
        }
    }

    /// The short decimals a `double precision` is read from without `strtod` give the double
    /// `strtod` gives, for the dates and prices a list holds and for random ones.
    @Test func shortDecimalsReadAsTheNearestDouble() {
        var random = SplitMix64(seed: 33)
        var texts = ["0", "-0", "0.1", "0.7", "1.15", "820454400", "820454460.5", "999999999999999", "0.000000000000001"]
        for _ in 0..<20_000 {
            let digits = String(random.next() % 1_000_000_000_000_000)
            let point = Int(random.next() % UInt64(digits.count + 1))
            texts.append(
                (random.next() % 2 == 0 ? "-" : "") + digits.prefix(point) + (point < digits.count ? "." : "") + digits.dropFirst(point))
        }
        for text in texts where !text.hasSuffix("-") && !text.hasPrefix("-.") && !text.hasPrefix(".") {
            let message = Wire.dataRow([text])
            var bounds: [Range<Int>?] = []
            message.withUnsafeBytes { raw in
                _ = try? BackendMessageDecoder().dataRow(raw, bounds: &bounds)
                let read = PostgresRowValues(message: raw, bounds: bounds).double(0)
                #expect(read == Double(text), "\(text)")
            }
        }
    }

    @Test func theLengthLimitIsConfigurableAndCheckedBeforeTheBodyArrives() throws {
        let decoder = BackendMessageDecoder(maxMessageLength: 64)
        let atTheLimit = Wire.commandComplete(String(repeating: "x", count: 59))
        #expect(atTheLimit.count == 65)
        #expect(try decoder.decode(atTheLimit) == .message(.commandComplete(tag: String(repeating: "x", count: 59)), consumed: 65))
        let pastIt = Wire.commandComplete(String(repeating: "x", count: 60))
        #expect(throws: PostgresWireError.messageTooLong(.commandComplete, length: 65, limit: 64)) {
            try decoder.decode(Array(pastIt[..<5]))
        }
        #expect(BackendMessageDecoder().maxMessageLength == 64 * 1024 * 1024)
    }

    @Test func anUnknownTypeFailsOnItsFirstByte() {
        for type in UInt8.min...UInt8.max where BackendMessage.Kind(rawValue: type) == nil {
            #expect(throws: PostgresWireError.unknownMessageType(type)) { try BackendMessageDecoder().decode([type]) }
        }
        #expect(BackendMessage.Kind.allCases.count == 18)
    }

    @Test func errorFieldsAreReadByTheirCodes() throws {
        let sample = try #require(Self.samples.first { $0.1.kind == .errorResponse })
        guard case .message(.errorResponse(let diagnostic), _) = try BackendMessageDecoder().decode(sample.0) else {
            Issue.record("not an ErrorResponse")
            return
        }
        #expect(diagnostic.severity == "ERROR")
        #expect(diagnostic[.localizedSeverity] == "ERREUR")
        #expect(diagnostic.sqlState == .uniqueViolation)
        #expect(diagnostic.sqlState.errorClass == "23")
        #expect(diagnostic.detail == "Key (id)=(1) already exists.")
        #expect(diagnostic.constraintName == "trips_pkey")
        #expect(diagnostic.tableName == "trips")
        #expect(diagnostic.hint == nil)
        #expect(!diagnostic.endsSession)
    }

    /// The fuzz target's seed corpus: byte for byte what PostgreSQL 15 sent (a startup, queries,
    /// errors, notices, a notification, the three password requests), after the target's
    /// one-byte selector.
    @Test func whatARealServerSentDecodesWhole() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let corpus = repository.appendingPathComponent("Fuzz/Corpus/FuzzPostgresMessages")
        let names = [
            "startup-trust", "extended-select", "error-unique", "simple-notice-notify", "auth-sasl", "error-fatal-password",
        ]
        for name in names {
            let file = try #require(FileManager.default.contents(atPath: corpus.appendingPathComponent(name).path), "\(name)")
            let bytes = Array(file.dropFirst())
            let decoded = decodeStream([bytes])
            #expect(decoded.error == nil && decoded.leftover == 0, "\(name): \(String(describing: decoded.error))")
            #expect(!decoded.messages.isEmpty, "\(name)")
        }
    }
}
