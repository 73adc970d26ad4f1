import Testing
@testable import TripsPostgres
@testable import TripsServer

@Suite struct FrontendMessageTests {
    func encoded(_ message: FrontendMessage) throws -> [UInt8] {
        var buffer: [UInt8] = []
        try message.encode(into: &buffer)
        return buffer
    }

    @Test func theStartupMessageAsksForProtocol3AndUTF8() throws {
        let bytes = try encoded(.startup(user: "trips", database: "trips_db", applicationName: "trips-server"))
        let body =
            [0, 3, 0, 0] + Wire.cString("user") + Wire.cString("trips") + Wire.cString("database") + Wire.cString("trips_db")
            + Wire.cString("application_name") + Wire.cString("trips-server") + Wire.cString("client_encoding") + Wire.cString("UTF8") + [0]
        #expect(bytes == Wire.int32(Int32(body.count + 4)) + body)
    }

    @Test(arguments: [
        // (message, its bytes)
        (FrontendMessage.password("sécret"), Wire.message("p", Wire.cString("sécret"))),
        (
            .saslInitialResponse(mechanism: "SCRAM-SHA-256", data: Array("n,,n=,r=abc".utf8)),
            Wire.message("p", Wire.cString("SCRAM-SHA-256") + Wire.int32(11) + Array("n,,n=,r=abc".utf8))
        ),
        (.saslInitialResponse(mechanism: "X", data: nil), Wire.message("p", Wire.cString("X") + Wire.int32(-1))),
        (.saslInitialResponse(mechanism: "X", data: []), Wire.message("p", Wire.cString("X") + Wire.int32(0))),
        (.saslResponse([1, 0, 2]), Wire.message("p", [1, 0, 2])),
        (.parse(statement: "", query: "SELECT $1"), Wire.message("P", [0] + Wire.cString("SELECT $1") + Wire.int16(0))),
        (
            .bind(portal: "", statement: "", parameters: ["a'b", nil, ""]),
            Wire.message(
                "B",
                [0, 0] + Wire.int16(0) + Wire.int16(3) + Wire.int32(3) + Array("a'b".utf8) + Wire.int32(-1) + Wire.int32(0) + Wire.int16(0))
        ),
        (
            .bind(portal: "p", statement: "s", parameters: []),
            Wire.message("B", Wire.cString("p") + Wire.cString("s") + Wire.int16(0) + Wire.int16(0) + Wire.int16(0))
        ),
        (.describe(.portal("")), Wire.message("D", [UInt8(ascii: "P"), 0])),
        (.describe(.statement("s1")), Wire.message("D", [UInt8(ascii: "S")] + Wire.cString("s1"))),
        (.execute(portal: "", maxRows: 0), Wire.message("E", [0] + Wire.int32(0))),
        (.sync, Wire.message("S", [])),
        (.flush, Wire.message("H", [])),
        (.query("LISTEN trips"), Wire.message("Q", Wire.cString("LISTEN trips"))),
        (.terminate, Wire.message("X", [])),
        (
            .cancelRequest(BackendMessage.BackendKeyData(processID: 4242, secretKey: [9, 8, 7, 6])),
            Wire.int32(16) + Wire.int32(80_877_102) + Wire.int32(4242) + [9, 8, 7, 6]
        ),
    ])
    func eachMessageHasItsBytes(message: FrontendMessage, expected: [UInt8]) throws {
        #expect(try encoded(message) == expected)
    }

    @Test(arguments: [
        // (message, the refused field)
        (FrontendMessage.startup(user: "a\0b", database: "d", applicationName: "x"), FrontendMessage.Field.user),
        (.startup(user: "u", database: "\0", applicationName: "x"), .database),
        (.startup(user: "u", database: "d", applicationName: "x\0"), .applicationName),
        (.password("pass\0word"), .password),
        (.saslInitialResponse(mechanism: "SCRAM\0", data: nil), .mechanism),
        (.parse(statement: "s\0", query: "SELECT 1"), .statementName),
        (.parse(statement: "", query: "SELECT 1;\0DROP TABLE trips"), .query),
        (.bind(portal: "\0", statement: "", parameters: []), .portalName),
        (.bind(portal: "", statement: "", parameters: ["ok", nil, "bad\0"]), .parameter(2)),
        (.describe(.portal("\0")), .portalName),
        (.describe(.statement("\0")), .statementName),
        (.execute(portal: "\0", maxRows: 0), .portalName),
        (.query("\0"), .query),
    ])
    func aNULCharacterIsRefusedAndNothingIsWritten(message: FrontendMessage, field: FrontendMessage.Field) throws {
        var buffer = try encoded(.sync)
        #expect(throws: PostgresEncodingError.nulCharacter(in: field)) { try message.encode(into: &buffer) }
        #expect(buffer == Wire.message("S", []), "the batch before it is intact")
    }

    @Test func bindTakesAtMost65535Parameters() throws {
        let most = PostgresParameters([String?](repeating: nil, count: 65_535))
        let bytes = try encoded(.bind(portal: "", statement: "", parameters: most))
        #expect(bytes.count == 1 + 4 + 2 + 2 + 2 + 65_535 * 4 + 2)
        #expect(Array(bytes[9..<11]) == [0xFF, 0xFF])
        var buffer: [UInt8] = []
        #expect(throws: PostgresEncodingError.tooManyParameters(count: 65_536)) {
            var tooMany = most
            tooMany.append(nil)
            try FrontendMessage.bind(portal: "", statement: "", parameters: tooMany).encode(into: &buffer)
        }
        #expect(buffer.isEmpty)
    }

    /// With a binary value among them, Bind names every value's format (0 text, 1 binary).
    @Test func bindNamesEachFormatOnceOneIsBinary() throws {
        var parameters: PostgresParameters = ["a"]
        parameters.appendArray(count: 1, utf8: { _ in [0x62] })
        parameters.append(nil)
        let array = Wire.int32(1) + Wire.int32(0) + Wire.int32(25) + Wire.int32(1) + Wire.int32(1) + Wire.int32(1) + [0x62]
        let values = Wire.int32(1) + [0x61] + Wire.int32(Int32(array.count)) + array + Wire.int32(-1)
        let formats = Wire.int16(3) + Wire.int16(0) + Wire.int16(1) + Wire.int16(0)
        #expect(
            try encoded(.bind(portal: "", statement: "", parameters: parameters))
                == Wire.message("B", [0, 0] + formats + Wire.int16(3) + values + Wire.int16(0)))
    }

    @Test func messagesBatchInOneBuffer() throws {
        var buffer: [UInt8] = []
        for message in [FrontendMessage.parse(statement: "", query: "SELECT 1"), .sync] { try message.encode(into: &buffer) }
        #expect(buffer == Wire.message("P", [0] + Wire.cString("SELECT 1") + Wire.int16(0)) + Wire.message("S", []))
    }
}
