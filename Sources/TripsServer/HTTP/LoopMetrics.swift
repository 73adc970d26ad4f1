/// What one event loop counts of the requests it answers: by route, method and status, and
/// how long each took. A plain value confined to its loop, so counting costs no lock and
/// no atomic; a scrape asks every loop for a copy (through its mailbox) and adds them up.
struct LoopMetrics: Sendable, Equatable {
    /// The statuses counted one by one; any other is counted as the last slot, "other".
    static let statuses: [Int] = [
        200, 201, 204, 303, 304, 400, 401, 404, 405, 406, 408, 409, 410, 412, 413, 414, 415, 417, 422, 431, 500, 501, 503, 505, 507,
    ]
    /// The upper bounds of the latency histogram's buckets, in seconds (Prometheus' `le`).
    static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    let routeCount: Int
    /// Requests by [route][method][status], flattened.
    private(set) var requests: [UInt64]
    /// Requests by [route][bucket], each counted in the first bucket it fits (the last: +Inf).
    private(set) var latencyBuckets: [UInt64]
    /// Seconds spent, by route.
    private(set) var latencySeconds: [Double]
    /// Connections open on the loop when the copy was taken.
    var openConnections = 0

    private static let methodCount = HTTPMethod.known.count
    private static let statusSlots = statuses.count + 1
    private static let bucketSlots = bucketBounds.count + 1

    init(routeCount: Int) {
        self.routeCount = max(1, routeCount)
        requests = Array(repeating: 0, count: self.routeCount * Self.methodCount * Self.statusSlots)
        latencyBuckets = Array(repeating: 0, count: self.routeCount * Self.bucketSlots)
        latencySeconds = Array(repeating: 0, count: self.routeCount)
    }

    /// Counts one answered request.
    mutating func record(route: Int, method: HTTPMethod?, status: Int, nanoseconds: UInt64) {
        let route = min(max(route, 0), routeCount - 1)
        let methodIndex = method.flatMap { HTTPMethod.known.firstIndex(of: $0) } ?? 0
        let statusIndex = Self.statuses.firstIndex(of: status) ?? Self.statuses.count
        requests[(route * Self.methodCount + methodIndex) * Self.statusSlots + statusIndex] &+= 1
        let seconds = Double(nanoseconds) / 1e9
        let bucket = Self.bucketBounds.firstIndex { seconds <= $0 } ?? Self.bucketBounds.count
        latencyBuckets[route * Self.bucketSlots + bucket] &+= 1
        latencySeconds[route] += seconds
    }

    /// This loop's counts added to `other`'s (same routes).
    func adding(_ other: LoopMetrics) -> LoopMetrics {
        var sum = self
        for index in requests.indices { sum.requests[index] &+= other.requests[index] }
        for index in latencyBuckets.indices { sum.latencyBuckets[index] &+= other.latencyBuckets[index] }
        for index in latencySeconds.indices { sum.latencySeconds[index] += other.latencySeconds[index] }
        sum.openConnections += other.openConnections
        return sum
    }

    /// Every non-zero count: route, method, status (nil: other) and how many.
    var requestCounts: [(route: Int, method: HTTPMethod, status: Int?, count: UInt64)] {
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
    func latency(route: Int) -> (cumulative: [UInt64], seconds: Double) {
        var running: UInt64 = 0
        let cumulative = (0..<Self.bucketSlots).map { bucket -> UInt64 in
            running &+= latencyBuckets[route * Self.bucketSlots + bucket]
            return running
        }
        return (cumulative, latencySeconds[route])
    }
}
