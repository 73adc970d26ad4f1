import TripsDomain

/// The trips of a view, read a page at a time as they are iterated (`TripsClient.trips`).
public struct TripPages: AsyncSequence, Sendable {
    public typealias Element = Trip

    let client: TripsClient
    let query: TripQuery
    let pageSize: Int

    public func makeAsyncIterator() -> Iterator {
        Iterator(pages: self)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let pages: TripPages
        private var buffered: [Trip] = []
        private var lastID: Trip.ID?
        private var isLastPage = false

        init(pages: TripPages) {
            self.pages = pages
        }

        public mutating func next() async throws -> Trip? {
            if buffered.isEmpty && !isLastPage {
                let (trips, hasMore) = try await pages.client.page(pages.query, limit: pages.pageSize, after: lastID)
                // A page that holds the trip it was to follow would be asked for again without
                // end (a hostile server's, found from outside).
                if let lastID, trips.contains(where: { $0.id == lastID }) {
                    throw TripsClientError.invalidAnswer("the page after trip \(lastID) holds it again")
                }
                buffered = trips.reversed()
                lastID = trips.last?.id ?? lastID
                isLastPage = !hasMore || trips.isEmpty
            }
            return buffered.popLast()
        }
    }
}
