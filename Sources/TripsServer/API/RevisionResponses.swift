import TripsHTTP

/// Finished responses that any change may change (a view of the list, a trip's page, which
/// shows the trip that starts next), kept for the newest revision asked for.
///
/// A later revision's response drops the earlier ones; an earlier one's is not kept. Within
/// a revision, what is kept stays within `capacity` responses and `byteCapacity` bytes of
/// content: a client that asks for endlessly many distinct views fills it once, and the rest
/// are made each time until the next change.
struct RevisionResponses<Key: Hashable> {
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

    /// Keeps the responses of `revision` that fit, each under its key; all or none of them.
    mutating func keep(_ kept: [(key: Key, response: HTTPResponse)], at revision: UInt64) {
        if self.revision < revision {
            self.revision = revision
            responses = [:]
            bytes = 0
        }
        let size = kept.reduce(0) { $0 + $1.response.body.count }
        guard self.revision == revision, responses.count + kept.count <= capacity, bytes + size <= byteCapacity else { return }
        for (key, response) in kept {
            if let old = responses.updateValue(response, forKey: key) { bytes -= old.body.count }
            bytes += response.body.count
        }
    }
}
