import Foundation
import Testing
import TripsDomain
@testable import TripsHTTP
@testable import TripsServer
@testable import TripsStore

/// `GET /metrics`, read back by a strict parser of the Prometheus text format 0.0.4.
@Suite struct APIMetricsTests {
    /// One sample: its name, labels and value.
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// Parses the text format strictly: every family has one `# TYPE` before its samples,
    /// names and labels are well formed, values are numbers, and each histogram's buckets
    /// grow up to a `+Inf` bucket equal to its `_count`.
    static func parse(_ text: String) throws -> [Sample] {
        var types: [String: String] = [:]
        var samples: [Sample] = []
        let name = #/[a-zA-Z_:][a-zA-Z0-9_:]*/#
        guard text.hasSuffix("\n") else { throw TestFailure("the text must end with a line feed") }
        for line in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# HELP ") { continue }
            if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2, (try? name.wholeMatch(in: parts[0])) != nil,
                    ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[1])
                else { throw TestFailure("bad TYPE line: \(line)") }
                guard types.updateValue(String(parts[1]), forKey: String(parts[0])) == nil else { throw TestFailure("TYPE twice: \(line)") }
                continue
            }
            guard let match = try #/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/#.wholeMatch(in: line) else {
                throw TestFailure("bad sample line: \(line)")
            }
            var labels: [String: String] = [:]
            if let body = match.output.3 {
                for pair in try Self.labelPairs(String(body)) { labels[pair.0] = pair.1 }
            }
            let value: Double? = match.output.4 == "+Inf" ? .infinity : Double(match.output.4)
            guard let value else { throw TestFailure("bad value: \(line)") }
            let sampleName = String(match.output.1)
            let family = ["_bucket", "_sum", "_count"].reduce(sampleName) { name, suffix in
                types[name] == nil && name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : name
            }
            guard types[family] != nil else { throw TestFailure("a sample before its TYPE: \(line)") }
            samples.append(Sample(name: sampleName, labels: labels, value: value))
        }
        for (family, type) in types where type == "histogram" {
            let buckets = samples.filter { $0.name == family + "_bucket" }
            for series in Set(buckets.map { $0.labels.filter { $0.key != "le" } }) {
                let counts = buckets.filter { $0.labels.filter { $0.key != "le" } == series }.map(\.value)
                guard counts == counts.sorted(),
                    buckets.contains(where: { $0.labels["le"] == "+Inf" && $0.labels.filter { $0.key != "le" } == series }),
                    let total = samples.first(where: { $0.name == family + "_count" && $0.labels == series })?.value, total == counts.last
                else { throw TestFailure("histogram \(family) \(series) is not cumulative up to +Inf = _count") }
            }
        }
        return samples
    }

    private static func labelPairs(_ body: String) throws -> [(String, String)] {
        var pairs: [(String, String)] = []
        var rest = Substring(body)
        while !rest.isEmpty {
            guard let match = try #/^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/#.prefixMatch(in: rest) else {
                throw TestFailure("bad labels: \(body)")
            }
            pairs.append((String(match.output.1), String(match.output.2)))
            rest = rest[match.range.upperBound...]
        }
        return pairs
    }

    /// Makes the requests the metrics tests count, then reads `GET /metrics` back: its samples.
    private static func metricsAfterSomeRequests(_ api: APIServer) async throws -> [Sample] {
        for _ in 0..<3 { _ = try await api.request("GET", "/trips/2") }
        _ = try await api.request("GET", "/trips/42")
        _ = try await api.request("PUT", "/favorites/3")
        _ = try await api.request("GET", "/nowhere")
        let response = try await api.request("GET", "/metrics")
        #expect(response.status == 200)
        #expect(response.field("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        return try Self.parse(response.text)
    }

    /// The value of the sample named `name` with exactly `labels`.
    private static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    @Test(arguments: TestStore.all) func metricsCountRequestsByRouteMethodAndStatusAndTheStore(store: TestStore) async throws {
        let api = try await APIServer(on: store, mode: .live)
        defer { api.stop() }
        let samples = try await Self.metricsAfterSomeRequests(api)
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? { Self.value(samples, name, labels) }
        #expect(value("trips_http_requests_total", ["route": "/trips/{id}", "method": "GET", "status": "200"]) == 3)
        #expect(value("trips_http_requests_total", ["route": "/trips/{id}", "method": "GET", "status": "404"]) == 1)
        #expect(value("trips_http_requests_total", ["route": "/favorites/{id}", "method": "PUT", "status": "200"]) == 1)
        #expect(value("trips_http_requests_total", ["route": "other", "method": "GET", "status": "404"]) == 1)
        #expect(value("trips_http_request_duration_seconds_count", ["route": "/trips/{id}"]) == 4)
        #expect(value("trips_http_open_connections") ?? 0 >= 1)
        #expect(value("trips_change_streams") == 0)
        #expect(value("trips_trips") == 6)
        #expect(value("trips_revision") == 1)
        let photos = samplePhotos()  // the samples' own
        #expect(value("trips_photos") == Double(photos.count) && value("trips_photo_bytes") == Double(photos.bytes))
        // No journal in memory or in PostgreSQL: nothing of one is counted.
        #expect(!samples.contains { $0.name.hasPrefix("trips_journal_") || $0.name.hasPrefix("trips_compactions") })
        // PostgreSQL's write transactions: the one change, in one, with a time for each phase.
        if store == .postgres {
            #expect(value("trips_postgres_write_transactions_total") == 1)
            #expect(value("trips_postgres_append_transactions_total") == 0, "a favorite is not an append")
            #expect(value("trips_postgres_written_changes_total") == 1)
            #expect(value("trips_postgres_replayed_changes_total") == 0)
            for phase in ["lock", "catch_up", "plan", "commit"] {
                #expect(value("trips_postgres_write_transaction_seconds_total", ["phase": phase]) ?? -1 >= 0, "\(phase)")
            }
            #expect(value("trips_postgres_write_transaction_seconds_total", ["phase": "commit"]) ?? 0 > 0)
        } else {
            #expect(!samples.contains { $0.name.hasPrefix("trips_postgres_") })
        }
        #expect(value("trips_write_failures_total", ["kind": "no_space"]) == nil)
    }

    /// The journal's counters, which only the journal store (on disk) moves.
    /// With `maxConnections` open, a new connection is closed at once and counted.
    @Test func aConnectionPastTheMostIsCountedAsRefused() async throws {
        let api = try await APIServer(mode: .live) { $0.limits.maxConnections = 1 }
        defer { api.stop() }
        let port = api.port
        let text = try await onOwnThread {
            let held = try TestClient(port: port)
            guard try held.exchange(TestRequest(method: "GET", target: "/livez")).status == 200 else { throw TestFailure("not served") }
            let refused = try TestClient(port: port)
            try? refused.send(TestRequest(method: "GET", target: "/livez").bytes)
            guard try refused.readsEOF() else { throw TestFailure("the second connection was served") }
            return try held.exchange(TestRequest(method: "GET", target: "/metrics")).text
        }
        let samples = try Self.parse(text)
        #expect(Self.value(samples, "trips_http_refused_connections_total") == 1)
        #expect(Self.value(samples, "trips_http_open_connections") == 1)
        #expect(Self.value(samples, "trips_http_empty_reads_total") != nil)
    }

    @Test func metricsCountTheJournalsSyncsAndBytes() async throws {
        try await withStorageFolder { folder in
            let store = try TripStore.open(folder, samples: true)
            defer { store.close() }
            let api = try await APIServer(store: store, mode: .live)
            defer { api.stop() }
            let samples = try await Self.metricsAfterSomeRequests(api)
            #expect(Self.value(samples, "trips_journal_syncs_total") == 1)
            #expect(Self.value(samples, "trips_journal_bytes_total") ?? 0 > 0)
            #expect(Self.value(samples, "trips_compactions_total") == 0)
            #expect(Self.value(samples, "trips_write_failures_total", ["kind": "no_space"]) == 0)
        }
    }

    @Test func theParserRefusesWhatTheFormatDoesNot() {
        for bad in [
            "x 1\n", "# TYPE x counter\nx{a=b} 1\n", "# TYPE x counter\nx one\n", "# TYPE x counter\nx 1",
            "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
        ] {
            #expect(throws: TestFailure.self) { try Self.parse(bad) }
        }
        #expect(MetricsText.escape("a\"b\\c\nd") == #"a\"b\\c\nd"#)
    }

    /// Counting relies on a cheap index of methods, which must name what the slow way would.
    /// (Routes are counted by their place in the table: `RouteTableTests`.)
    @Test func theMethodCountingIndexAgreesWithTheKnownMethods() {
        for (index, method) in HTTPMethod.known.enumerated() { #expect(method.knownIndex == index, "\(method)") }
    }
}
