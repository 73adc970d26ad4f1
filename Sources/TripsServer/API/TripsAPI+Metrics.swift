import Foundation
import TripsDomain
import TripsFormats
import TripsHTTP
import TripsStore

/// `GET /metrics`: the Prometheus text format, version 0.0.4.
///
/// https://prometheus.io/docs/instrumenting/exposition_formats/
extension TripsAPI {
    static let metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

    func metrics(_ request: HTTPRequest) throws(APIError) -> HTTPReply {
        guard ContentNegotiation.choose([.plainText], accept: request.headerFields) != nil else { throw .notAcceptable([.plainText]) }
        let labels = routeLabels
        return .later { [store, feed, serverMetrics, rateLimits] responder in
            serverMetrics.collect { loops in
                let (statistics, trips, revision) = store.statistics
                var text = MetricsText()
                Self.writeHTTP(loops ?? LoopMetrics(routeCount: labels.count), labels: labels, streams: feed.hub.streamCount, to: &text)
                if let rateLimits { Self.writeRateLimits(rateLimits, to: &text) }
                Self.writeStore(statistics, journal: store.keepsAJournal, trips: trips, revision: revision, to: &text)
                responder.respond(
                    HTTPResponse(
                        status: .ok, headerFields: [.contentType: Self.metricsContentType, .cacheControl: "no-store"],
                        body: Array(text.output.utf8)))
            }
        }
    }

    private static func writeHTTP(_ loops: LoopMetrics, labels: [String], streams: Int, to text: inout MetricsText) {
        text.family("trips_http_requests_total", "counter", "Requests answered, by route template, method and status.")
        for count in loops.requestCounts {
            let status = count.status.map(String.init) ?? "other"
            text.sample(
                "trips_http_requests_total", ["route": labels[count.route], "method": count.method.rawValue, "status": status],
                Double(count.count))
        }
        text.family("trips_http_request_duration_seconds", "histogram", "Time from a request's arrival to its answer, by route template.")
        for route in labels.indices {
            let (cumulative, seconds) = loops.latency(route: route)
            guard let total = cumulative.last, total > 0 else { continue }
            text.histogram(
                "trips_http_request_duration_seconds", ["route": labels[route]], bounds: LoopMetrics.bucketBounds, cumulative: cumulative,
                sum: seconds)
        }
        text.single("trips_http_open_connections", "gauge", "Connections open now.", Double(loops.openConnections))
        text.single(
            "trips_http_refused_connections_total", "counter", "Connections closed as soon as accepted: the server held --max-connections.",
            Double(loops.refusedConnections))
        text.single(
            "trips_http_empty_reads_total", "counter",
            "Reads of a connection's socket that found nothing there (EAGAIN): system calls made for nothing.",
            Double(loops.emptyReads))
        text.single(
            "trips_change_streams", "gauge", "Change-feed streams open now (/trips/changes as server-sent events).", Double(streams))
    }

    /// Requests each rate limit refused (429), by limit: changes, reads, sign-in.
    private static func writeRateLimits(_ limits: RateLimits, to text: inout MetricsText) {
        text.family("trips_rate_limited_total", "counter", "Requests refused with 429 by a rate limit, by limit (changes, reads, sign-in).")
        for (name, count) in limits.refusals {
            text.sample("trips_rate_limited_total", ["limit": name], Double(count))
        }
    }

    /// A PostgreSQL store's write transactions: how many, their changes, and where their time
    /// went, by phase (`WriteTransactionStatistics.Phase`; all but `lock` with the state row's
    /// lock held, which every other instance's writer waits for).
    private static func writeTransactions(_ transactions: WriteTransactionStatistics, to text: inout MetricsText) {
        text.single(
            "trips_postgres_write_transactions_total", "counter", "Write transactions committed in PostgreSQL.",
            Double(transactions.transactions))
        text.single(
            "trips_postgres_append_transactions_total", "counter",
            "Of them, append transactions: new trips at the end in one round trip, the lock held by PostgreSQL alone.",
            Double(transactions.appendTransactions))
        text.single("trips_postgres_written_changes_total", "counter", "Changes those transactions made.", Double(transactions.changes))
        text.single(
            "trips_postgres_replayed_changes_total", "counter",
            "Other instances' changes those transactions replayed, with the state row's lock held.",
            Double(transactions.replayed))
        text.family(
            "trips_postgres_write_transaction_seconds_total", "counter",
            "Time those transactions took, by phase: lock (waiting for the state row's lock), then with it held catch_up, plan and commit; "
                + "an append transaction plans first, then waits, writes and commits in commit, and catches up last.")
        for phase in WriteTransactionStatistics.Phase.allCases {
            text.sample("trips_postgres_write_transaction_seconds_total", ["phase": phase.label], transactions.seconds[phase.rawValue])
        }
    }

    /// The list's size, revision and photos; a PostgreSQL store's write transactions; with a
    /// journal, its syncs, bytes, compactions and failed writes too (a store in memory or in
    /// PostgreSQL has none to count).
    private static func writeStore(_ statistics: StoreStatistics, journal: Bool, trips: Int, revision: UInt64, to text: inout MetricsText) {
        text.single("trips_trips", "gauge", "Trips in the list.", Double(trips))
        text.single("trips_revision", "gauge", "The list's revision.", Double(revision))
        text.single("trips_photos", "gauge", "Photos the trips refer to, each once however many trips share it.", Double(statistics.photos))
        text.single("trips_photo_bytes", "gauge", "The bytes of those photos, as stored.", Double(statistics.photoBytes))
        if let transactions = statistics.writeTransactions { writeTransactions(transactions, to: &text) }
        guard journal else { return }
        text.family("trips_journal_sync_duration_seconds", "histogram", "Journal writes and their fdatasync, one per group commit.")
        var running: UInt64 = 0
        let cumulative = statistics.syncBuckets.map { count -> UInt64 in
            running &+= count
            return running
        }
        text.histogram(
            "trips_journal_sync_duration_seconds", [:], bounds: StoreStatistics.bucketBounds, cumulative: cumulative,
            sum: statistics.syncSeconds)
        text.single("trips_journal_syncs_total", "counter", "Group commits written and synced.", Double(statistics.syncs))
        text.single("trips_journal_bytes_total", "counter", "Bytes appended to the journal.", Double(statistics.bytesWritten))
        text.single("trips_compactions_total", "counter", "Journals compacted into a snapshot.", Double(statistics.compactions))
        text.family("trips_write_failures_total", "counter", "Journal writes that failed, by kind (no_space: 507; io: 503).")
        text.sample("trips_write_failures_total", ["kind": "no_space"], Double(statistics.failedWritesNoSpace))
        text.sample("trips_write_failures_total", ["kind": "io"], Double(statistics.failedWritesOther))
    }
}

/// Writes the Prometheus text format: `# HELP` and `# TYPE` once per family, then samples
/// with escaped label values.
struct MetricsText {
    private(set) var output = ""

    mutating func family(_ name: String, _ type: String, _ help: String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// A family of one sample without labels.
    mutating func single(_ name: String, _ type: String, _ help: String, _ value: Double) {
        family(name, type, help)
        sample(name, [:], value)
    }

    mutating func sample(_ name: String, _ labels: [String: String], _ value: Double) {
        output += name
        if !labels.isEmpty {
            let pairs = labels.keys.sorted().map { key in "\(key)=\"\(Self.escape(labels[key]!))\"" }
            output += "{" + pairs.joined(separator: ",") + "}"
        }
        output += " " + Self.format(value) + "\n"
    }

    mutating func histogram(
        _ name: String, _ labels: [String: String], bounds: [Double], cumulative: [UInt64], sum: Double
    ) {
        for (index, count) in cumulative.enumerated() {
            let le = index < bounds.count ? Self.format(bounds[index]) : "+Inf"
            sample(name + "_bucket", labels.merging(["le": le]) { $1 }, Double(count))
        }
        sample(name + "_sum", labels, sum)
        sample(name + "_count", labels, Double(cumulative.last ?? 0))
    }

    /// A label value with `\`, `"` and line feeds escaped.
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Whole numbers without a fraction, others as Swift writes a Double.
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
