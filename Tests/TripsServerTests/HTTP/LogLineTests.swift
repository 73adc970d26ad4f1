import Foundation
import Testing

@testable import TripsPlatform

@Suite struct LogLineTests {
    /// One line with one text field named `path`/`url.path`, holding `value`'s bytes.
    private func line(_ format: LogFormat, _ value: [UInt8]) -> String {
        var buffer: [UInt8] = []
        var line = LogLine(format: format, into: &buffer)
        line.integer("status", "http.response.status_code", 200, into: &buffer)
        value.withUnsafeBytes { line.bytes("path", "url.path", $0, into: &buffer) }
        line.end(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    private func object(_ text: String) throws -> [String: Any] {
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(parsed as? [String: Any])
    }

    static let hostile: [String] = [
        #"/a" "b"#, "/a\nstatus=500 forged=1", "/a\r\n{\"forged\":true}", #"/a\"},{"x":"#, "/a\\", "/\u{0}\u{1F}\u{7F}", "",
    ]

    @Test(arguments: hostile)
    func aHostileValueStaysInsideItsOneJSONField(value: String) throws {
        let text = line(.json, Array(value.utf8))
        #expect(text.hasSuffix("\n"))
        #expect(text.dropLast().allSatisfy { $0 != "\n" && $0 != "\r" })
        let fields = try object(String(text.dropLast()))
        #expect(fields.count == 2)
        #expect(fields["url.path"] as? String == value)
        #expect(fields["http.response.status_code"] as? Int == 200)
    }

    @Test(arguments: hostile)
    func aHostileValueStaysInsideItsOneLogfmtField(value: String) {
        let text = line(.logfmt, Array(value.utf8))
        #expect(text.hasPrefix("status=200 path="))
        #expect(text.filter { $0 == "\n" || $0 == "\r" } == "\n" && text.hasSuffix("\n"))
        let rest = text.dropFirst("status=200 path=".count).dropLast()
        if rest.first == "\"" {
            // Quoted to the end: every quote inside is escaped.
            #expect(rest.last == "\"")
            var escaped = false
            for character in rest.dropFirst().dropLast() {
                #expect(escaped || character != "\"")
                escaped = !escaped && character == "\\"
            }
        } else {
            #expect(!rest.contains(" ") && !rest.contains("="))
        }
    }

    @Test func bytesThatAreNotUTF8BecomeReplacementCharacters() throws {
        let value: [UInt8] = [0x2F, 0xFF, 0x61, 0xC3, 0xA9, 0xE2, 0x82, 0x2F, 0xED, 0xA0, 0x80, 0xF0, 0x9F, 0x98, 0x80, 0xC0, 0xAF]
        let fields = try object(String(line(.json, value).dropLast()))
        // 0xFF; é kept; a cut-short € (2 bytes); a surrogate (3 bytes); 😀 kept; an overlong "/" (2 bytes).
        #expect(fields["url.path"] as? String == "/\u{FFFD}a\u{E9}\u{FFFD}\u{FFFD}/\u{FFFD}\u{FFFD}\u{FFFD}\u{1F600}\u{FFFD}\u{FFFD}")
    }

    @Test func numbersAreWrittenWithTheirFractions() throws {
        var buffer: [UInt8] = []
        var json = LogLine(format: .json, into: &buffer)
        json.fixedPoint("duration", "http.server.request.duration", 1500, fractionDigits: 6, into: &buffer)
        json.text("id", "trace_id", into: &buffer) { $0.append(contentsOf: "abc".utf8) }
        json.end(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"{"http.server.request.duration":0.001500,"trace_id":"abc"}"# + "\n")
        let fields = try object(String(decoding: buffer.dropLast(), as: UTF8.self))
        #expect(fields["http.server.request.duration"] as? Double == 0.0015)
    }

    @Test func consoleLinesAreAsWrittenInLogfmtAndObjectsInJSON() throws {
        let time = timespec(tv_sec: 1_795_891_450, tv_nsec: 53_000_000)
        let plain = Console.render("trips-server listening on http://127.0.0.1:8080", level: .info, format: .logfmt, at: time)
        #expect(String(decoding: plain, as: UTF8.self) == "trips-server listening on http://127.0.0.1:8080\n")

        let info = try object(
            String(decoding: Console.render("trips-server listening on x", level: .info, format: .json, at: time).dropLast(), as: UTF8.self)
        )
        #expect(info["timestamp"] as? String == "2026-11-28T18:44:10.053Z")
        #expect(info["level"] as? String == "info")
        #expect(info["message"] as? String == "trips-server listening on x")

        let warning = Console.render("trips-server: warning: a torn record\n\"dropped\"", level: .warn, format: .json, at: time)
        #expect(warning.filter { $0 == UInt8(ascii: "\n") }.count == 1)
        let fields = try object(String(decoding: warning.dropLast(), as: UTF8.self))
        #expect(fields["level"] as? String == "warn")
        #expect(fields["message"] as? String == "a torn record\n\"dropped\"")
    }
}
