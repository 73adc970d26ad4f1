/// What the event loops counted of the requests they answered: by route, method and status,
/// and how long each took; and the connections they refused. Each loop counts into its own `LoopCounters`; a scrape asks every
/// loop for a copy of them as this value (through its mailbox) and adds the copies up.
package struct LoopMetrics: Sendable, Equatable {
    /// The statuses counted one by one; any other is counted as the last slot, "other".
    package static let statuses: [Int] = [
        200, 201, 204, 303, 304, 400, 401, 404, 405, 406, 408, 409, 410, 412, 413, 414, 415, 417, 422, 431, 500, 501, 503, 505, 507,
    ]
    /// The upper bounds of the latency histogram's buckets, in seconds (Prometheus' `le`).
    package static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    package let routeCount: Int
    /// Requests by [route][method][status], flattened.
    fileprivate(set) var requests: [UInt64]
    /// Requests by [route][bucket], each counted in the first bucket it fits (the last: +Inf).
    fileprivate(set) var latencyBuckets: [UInt64]
    /// Nanoseconds spent, by route.
    fileprivate(set) var latencyNanoseconds: [UInt64]
    /// Connections open on the loop when the copy was taken.
    package var openConnections = 0
    /// Connections accepted and closed at once because the server held its most.
    package fileprivate(set) var refusedConnections: UInt64 = 0
    /// Reads of a connection's socket that found nothing there (`EAGAIN`).
    package fileprivate(set) var emptyReads: UInt64 = 0

    fileprivate static let methodCount = HTTPMethod.known.count
    fileprivate static let statusSlots = statuses.count + 1
    fileprivate static let bucketSlots = bucketBounds.count + 1

    package init(routeCount: Int) {
        self.routeCount = max(1, routeCount)
        requests = Array(repeating: 0, count: self.routeCount * Self.methodCount * Self.statusSlots)
        latencyBuckets = Array(repeating: 0, count: self.routeCount * Self.bucketSlots)
        latencyNanoseconds = Array(repeating: 0, count: self.routeCount)
    }

    /// This loop's counts added to `other`'s (same routes).
    package func adding(_ other: LoopMetrics) -> LoopMetrics {
        var sum = self
        for index in requests.indices { sum.requests[index] &+= other.requests[index] }
        for index in latencyBuckets.indices { sum.latencyBuckets[index] &+= other.latencyBuckets[index] }
        for index in latencyNanoseconds.indices { sum.latencyNanoseconds[index] &+= other.latencyNanoseconds[index] }
        sum.openConnections += other.openConnections
        sum.refusedConnections &+= other.refusedConnections
        sum.emptyReads &+= other.emptyReads
        return sum
    }

    /// Every non-zero count: route, method, status (nil: other) and how many.
    package var requestCounts: [(route: Int, method: HTTPMethod, status: Int?, count: UInt64)] {
        var counts: [(route: Int, method: HTTPMethod, status: Int?, count: UInt64)] = []
        for (index, count) in requests.enumerated() where count > 0 {
            let statusIndex = index % Self.statusSlots
            let methodIndex = (index / Self.statusSlots) % Self.methodCount
            let route = index / Self.statusSlots / Self.methodCount
            counts.append(
                (route, HTTPMethod.known[methodIndex], statusIndex < Self.statuses.count ? Self.statuses[statusIndex] : nil, count))
        }
        return counts
    }

    /// A route's histogram: cumulative counts per bucket bound (the last is +Inf), and the sum.
    package func latency(route: Int) -> (cumulative: [UInt64], seconds: Double) {
        var running: UInt64 = 0
        let cumulative = (0..<Self.bucketSlots).map { bucket -> UInt64 in
            running &+= latencyBuckets[route * Self.bucketSlots + bucket]
            return running
        }
        return (cumulative, Double(latencyNanoseconds[route]) / 1e9)
    }
}

/// One event loop's counters, in memory of their own that only the loop writes: counting a
/// request is a few additions, with no lock, no atomic and no copy-on-write check.
final class LoopCounters {
    private let routeCount: Int
    private let requests: UnsafeMutableBufferPointer<UInt64>
    private let latencyBuckets: UnsafeMutableBufferPointer<UInt64>
    private let latencyNanoseconds: UnsafeMutableBufferPointer<UInt64>
    private var refusedConnections: UInt64 = 0
    private var emptyReads: UInt64 = 0
    // The tables and sizes counting reads, kept here rather than read from `LoopMetrics`'
    // statics: each read of a static `let` made from an expression goes through `swift_once`.
    /// The bucket bounds in nanoseconds, so counting needs no floating point.
    private let bucketNanoseconds: UnsafeMutableBufferPointer<UInt64>
    /// Each status code's slot (codes 0 to 599), so counting is one read, not a search.
    private let statusSlot: UnsafeMutableBufferPointer<UInt8>
    private let methodCount = LoopMetrics.methodCount
    private let statusSlots = LoopMetrics.statusSlots
    private let bucketSlots = LoopMetrics.bucketSlots

    init(routeCount: Int) {
        self.routeCount = max(1, routeCount)
        func zeroed(_ count: Int) -> UnsafeMutableBufferPointer<UInt64> {
            let buffer = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: count)
            buffer.initialize(repeating: 0)
            return buffer
        }
        requests = zeroed(self.routeCount * LoopMetrics.methodCount * LoopMetrics.statusSlots)
        latencyBuckets = zeroed(self.routeCount * LoopMetrics.bucketSlots)
        latencyNanoseconds = zeroed(self.routeCount)
        bucketNanoseconds = .allocate(capacity: LoopMetrics.bucketBounds.count)
        _ = bucketNanoseconds.initialize(from: LoopMetrics.bucketBounds.lazy.map { UInt64($0 * 1e9) })
        statusSlot = .allocate(capacity: 600)
        _ = statusSlot.initialize(
            from: (0..<600).lazy.map { code in
                UInt8(LoopMetrics.statuses.firstIndex(of: code) ?? LoopMetrics.statuses.count)
            })
    }

    deinit {
        requests.deallocate()
        latencyBuckets.deallocate()
        latencyNanoseconds.deallocate()
        bucketNanoseconds.deallocate()
        statusSlot.deallocate()
    }

    /// Counts one answered request (`route` past the last counts as the last).
    func record(route: Int, method: HTTPMethod?, status: Int, nanoseconds: UInt64) {
        let route = min(max(route, 0), routeCount - 1)
        let methodIndex = method?.knownIndex ?? 0
        let statusIndex = status >= 0 && status < statusSlot.count ? Int(statusSlot[status]) : statusSlots - 1
        requests[(route * methodCount + methodIndex) * statusSlots + statusIndex] &+= 1
        var bucket = 0
        while bucket < bucketNanoseconds.count && nanoseconds > bucketNanoseconds[bucket] { bucket += 1 }
        latencyBuckets[route * bucketSlots + bucket] &+= 1
        latencyNanoseconds[route] &+= nanoseconds
    }

    /// Counts a connection closed as soon as it was accepted, for want of room.
    func recordRefusedConnection() {
        refusedConnections &+= 1
    }

    /// Counts a read that found its socket empty.
    func recordEmptyRead() {
        emptyReads &+= 1
    }

    /// A copy of the counts, for a scrape.
    func snapshot(openConnections: Int) -> LoopMetrics {
        var metrics = LoopMetrics(routeCount: routeCount)
        metrics.requests = Array(requests)
        metrics.latencyBuckets = Array(latencyBuckets)
        metrics.latencyNanoseconds = Array(latencyNanoseconds)
        metrics.openConnections = openConnections
        metrics.refusedConnections = refusedConnections
        metrics.emptyReads = emptyReads
        return metrics
    }
}

@available(*, unavailable)
extension LoopCounters: Sendable {}
