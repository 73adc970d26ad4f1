import Foundation
import Testing
import TripsTestSupport

@testable import TripsServer

/// The `trips` command, run as a child process against a live server.
@Suite(.tags(.live)) struct TripsCommandTests {
    /// Runs `trips` with `arguments` and `environment` to its end: status and both outputs.
    private func trips(_ arguments: [String], environment: [String: String] = [:]) async throws -> (
        status: Int32, output: String, errors: String
    ) {
        let executable = try tripsServerExecutable().replacingOccurrences(of: "/trips-server", with: "/trips")
        // Nothing of this process's environment but the sanitizers' options, so that a child
        // built with one reads the same suppressions (scripts/checks/sanitizers.sh).
        let sanitizers = ProcessInfo.processInfo.environment.filter { $0.key.hasSuffix("SAN_OPTIONS") }
        let environment = ["PATH": "/usr/bin:/bin"].merging(sanitizers) { $1 }.merging(environment) { $1 }
        return try await onOwnThread { try runToEnd(executable, arguments, environment: environment) }
    }

    @Test func theTourWithTripsInTheTerminalsLanguage() async throws {
        try await ClientTestServer.with(.memory) { server in
            let url = server.url.absoluteString
            let list = try await trips(["list", "--server", url])
            #expect(list.status == 0)
            #expect(list.output.split(separator: "\n")[1] == "2  Vancouver, Canada: 3 nights from March 5, 2027")
            let french = try await trips(["show", "2"], environment: ["TRIPS_URL": url, "LANG": "fr_FR.UTF-8"])
            #expect(french.output.hasPrefix("2  Vancouver, Canada\u{00A0}: 3 nuits à partir du 5 mars 2027\n"))
            let added = try await trips(["add", "Lisbon, Portugal: 4 nights from May 1, 2027", "--before", "2", "--server=\(url)"])
            #expect(added.status == 0 && added.output.hasPrefix("7  Lisbon, Portugal: 4 nights from May 1, 2027"))
            #expect(try await trips(["move", "3", "5", "--end", "--server", url]).status == 0)
            #expect(server.order == [1, 7, 2, 4, 6, 3, 5])
            let favorite = try await trips(["favorite", "Vancouver", "Zurich", "--server", url])
            #expect(favorite.output == "Added to favorites: Vancouver, Zürich.\n")
            let json = try await trips(["list", "--favorites", "--sort", "-price", "--json", "--server", url])
            #expect(json.output.hasPrefix("[{\"id\":"))
            #expect(try await trips(["delete", "1", "3", "--server", url]).output == "Deleted 1, 3.\n")
            #expect(server.order == [7, 2, 4, 6, 5])
        }
    }

    /// Text from the server reaches the terminal with its control sequences written out: a
    /// trip's notes clearing the screen, a problem's detail writing the clipboard (OSC 52), a
    /// city turned around (U+202E). Found from outside: all were printed raw.
    @Test func controlSequencesFromTheServerAreWrittenOut() async throws {
        let trip =
            #"{"id":1,"city":"Oslo\u202E","country":"Norway","nights":2,"isFavorite":false,"imageName":"","price":1,"#
            + #""start":"2027-06-01T00:00:00Z","notes":"\u001b[2Jgone"}"#
        let problem = #"{"type":"about:blank","title":"Not Found","status":404,"detail":"\u001b]52;c;aGk=\u0007"}"#
        let server = try HostileServer { _, head, connection in
            let (status, body) = head.hasPrefix("GET /trips/1 ") ? ("200 OK", trip) : ("404 Not Found", problem)
            let type = status.hasPrefix("200") ? "application/json" : "application/problem+json"
            connection.write(
                "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nETag: \"trip-1-v1-json\"\r\nTrips-Revision: 1\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }
        defer { server.stop() }
        let shown = try await trips(["show", "1", "--server", server.url.absoluteString])
        #expect(shown.status == 0, "\(shown.errors)")
        #expect(!shown.output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E }, "\(shown.output.debugDescription)")
        #expect(shown.output.contains(#"\u{1B}[2Jgone"#) && shown.output.contains(#"Oslo\u{202E}"#), "\(shown.output)")
        let refused = try await trips(["show", "2", "--server", server.url.absoluteString])
        #expect(refused.status == 1)
        #expect(!refused.errors.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(refused.errors.debugDescription)")
        #expect(refused.errors.contains(#"\u{1B}]52;c;aGk=\u{7}"#), "\(refused.errors)")
    }

    @Test func exitCodesSayWhatWentWrong() async throws {
        try await ClientTestServer.with(.memory) { server in
            let url = server.url.absoluteString
            let refused = try await trips(["delete", "42", "--server", url])
            #expect(refused.status == 1 && refused.errors == "trips: no trip has the id 42\n" && refused.output.isEmpty)
            let usage = try await trips(["move", "2", "--server", url])
            #expect(usage.status == 2 && usage.output.isEmpty)
            #expect(
                usage.errors
                    == "trips: move needs --before ID or --end, not both\nusage: trips move ID... --before ID | --end\nsee trips --help\n")
            let unknown = try await trips(["frobnicate"])
            #expect(unknown.status == 2)
            #expect(
                unknown.errors
                    == "trips: unknown command frobnicate\nusage: trips [--server URL] [--token TOKEN] [--json] COMMAND\nsee trips --help\n"
            )
            let add = try await trips(["add", "--city", "Oslo"])
            #expect(
                add.status == 2 && add.errors.contains("\nusage: trips add \"Lisbon") && add.errors.contains("\n       trips add --city"))
            let mixed = try await trips(["favorite", "2", "Zurich", "--server", url])
            #expect(mixed.status == 2 && mixed.errors.hasPrefix("trips: favorite takes trip ids or cities, not both"))
            #expect(server.order == [1, 2, 3, 4, 5, 6])
            let help = try await trips(["--help"])
            #expect(help.status == 0 && help.output.contains("Exit status: 0 done; 1"))
            let unreachable = try await trips(["list", "--server", "http://127.0.0.1:1"])
            #expect(unreachable.status == 1 && unreachable.errors.hasPrefix("trips: The server could not be reached"))
        }
    }

    @Test func aPrivateServerTakesTheTokenFromTheOptionOrTheEnvironment() async throws {
        let token = "alice-0123456789abcdef"
        let access = AccessPolicy(tokens: AccessTokens([(name: "alice", token: token)]), isPrivate: true)
        try await ClientTestServer.with(.memory, access: access) { server in
            let url = server.url.absoluteString
            let option = try await trips(["list", "--server", url, "--token", token])
            #expect(option.status == 0 && option.output.split(separator: "\n").count == 6)
            let environment = try await trips(["move", "1", "--end"], environment: ["TRIPS_URL": url, "TRIPS_TOKEN": token])
            #expect(environment.status == 0 && server.order == [2, 3, 4, 5, 6, 1])
            let overridden = try await trips(["show", "2", "--token=\(token)"], environment: ["TRIPS_URL": url, "TRIPS_TOKEN": "wrong"])
            #expect(overridden.status == 0)
            for refused in [
                try await trips(["list", "--server", url]),
                try await trips(["list", "--server", url, "--token", "mallory-0123456789abcdef"]),
            ] {
                #expect(refused.status == 1 && refused.output.isEmpty && refused.errors.hasPrefix("trips: ") && refused.errors.count > 8)
            }
        }
    }

    @Test func everyChangeWorksWithAServerThatRequiresIfMatch() async throws {
        try await ClientTestServer.with(.memory, requiresIfMatch: true) { server in
            let url = server.url.absoluteString
            for arguments in [
                ["add", "Lisbon, Portugal: 4 nights from May 1, 2027"], ["move", "3", "--end"], ["favorite", "2"], ["sort", "price"],
                ["delete", "1"], ["delete", "4", "5"],
            ] {
                let run = try await trips(arguments + ["--server", url])
                #expect(run.status == 0 && run.errors.isEmpty, "\(arguments): \(run.errors)")
            }
            #expect(server.order.count == 4)
        }
    }

    /// A server that takes no change without `If-Match` (`--require-if-match`): the command
    /// reads the tag of what it changes (`HEAD`) and makes the change again with it.
    @Test func aChangeRefusedForWantOfIfMatchIsMadeAgainWithTheCurrentTag() async throws {
        let server = try HostileServer { _, head, connection in
            func answer(_ status: String, _ fields: String, _ body: String = "") {
                connection.write("HTTP/1.1 \(status)\r\n\(fields)Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            }
            switch (head.prefix { $0 != " " }, HostileServer.field("If-Match", in: head)) {
            case ("DELETE", nil):
                answer(
                    "428 Precondition Required", "Content-Type: application/problem+json\r\n",
                    #"{"type":"/problems/precondition-required","title":"Precondition Required","status":428,"detail":"Send If-Match."}"#)
            case ("HEAD", _):
                answer("200 OK", "ETag: \"trip-2-v0-json\"\r\nTrips-Revision: 0\r\n")
            case ("DELETE", "\"trip-2-v0-json\""):
                answer("204 No Content", "Trips-Revision: 1\r\n")
            default:
                answer("400 Bad Request", "")
            }
        }
        defer { server.stop() }
        let deleted = try await trips(["delete", "2", "--server", server.url.absoluteString])
        #expect(deleted.status == 0 && deleted.output == "Deleted 2.\n")
        #expect(
            server.heads.map { $0.split(separator: "\r\n").first } == [
                "DELETE /trips/2 HTTP/1.1", "HEAD /trips/2 HTTP/1.1", "DELETE /trips/2 HTTP/1.1",
            ])
    }
}
