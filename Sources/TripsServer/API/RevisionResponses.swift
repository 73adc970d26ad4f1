import TripsHTTP

/// Finished responses that any change may change (a view of the list, a trip's page, which
/// shows the trip that starts next), kept for the newest revision asked for.
///
/// A later revision's response drops the earlier ones; an earlier one's is not kept. Within
/// a revision, what is kept stays within `capacity` responses and `byteCapacity` bytes (keys,
/// heads and content): a client that asks for endlessly many distinct views fills it once,
/// and the rest are made each time until the next change. Nothing is dropped to make room.
struct RevisionResponses<Key: RevisionResponseKey> {
    let capacity: Int
    let byteCapacity: Int
    private var revision: UInt64 = 0
    private var responses: [Key: HTTPResponse] = [:]
    private var bytes = 0

    init(capacity: Int, byteCapacity: Int) {
        self.capacity = capacity
        self.byteCapacity = byteCapacity
    }

    /// The response kept for `key` at `revision`, if any.
    func response(_ key: Key, at revision: UInt64) -> HTTPResponse? {
        self.revision == revision ? responses[key] : nil
    }

    /// Keeps the responses of `revision` that fit, each under its key; all or none of them
    /// (counted as new even where a key is kept already: near the limit, refused).
    mutating func keep(_ kept: [(key: Key, response: HTTPResponse)], at revision: UInt64) {
        if self.revision < revision {
            self.revision = revision
            responses = [:]
            bytes = 0
        }
        let size = kept.reduce(0) { $0 + Self.size($1.key, $1.response) }
        guard self.revision == revision, responses.count + kept.count <= capacity, bytes + size <= byteCapacity else { return }
        for (key, response) in kept {
            if let old = responses.updateValue(response, forKey: key) { bytes -= Self.size(key, old) }
            bytes += Self.size(key, response)
        }
    }

    private static func size(_ key: Key, _ response: HTTPResponse) -> Int {
        key.byteCount + response.byteCount
    }
}

/// A key of `RevisionResponses`, which says how many bytes it holds (its strings): counted
/// with its response.
protocol RevisionResponseKey: Hashable {
    var byteCount: Int { get }
}
