import Testing
import TripsDomain
import TripsFormats

@testable import TripsServer

/// Lists of trips put together from each trip's kept JSON object: byte for byte what the
/// trips write themselves, and never an object of a trip's earlier version.
@Suite struct TripJSONCacheTests {
    private static func written(_ trips: [Trip]) -> [UInt8] {
        var writer = JSONWriter()
        trips.writeJSON(to: &writer)
        return writer.bytes
    }

    @Test func aListIsWhatItsTripsWriteFromTheFirstReadOn() {
        let cache = TripJSONCache()
        let list = TripList.samples
        let trips = Array(list.trips)
        #expect(cache.array(of: trips, in: list) == Self.written(trips))
        #expect(cache.count == trips.count)
        #expect(cache.array(of: trips, in: list) == Self.written(trips), "from the kept objects")
        #expect(cache.array(of: Array(trips.prefix(2)), in: list) == Self.written(Array(trips.prefix(2))))
        #expect(cache.array(of: [], in: list) == Array("[]".utf8))
    }

    @Test func aChangedTripIsWrittenAgain() throws {
        let cache = TripJSONCache()
        var list = TripList.samples
        _ = cache.array(of: Array(list.trips), in: list)
        let favorite = try #require(list[2]).isFavorite
        try list.setFavorite(2, !favorite)
        let trips = Array(list.trips)
        let json = cache.array(of: trips, in: list)
        #expect(json == Self.written(trips))
        let vancouver = #""id":2,"city":"Vancouver","country":"Canada","nights":3,"isFavorite":\#(!favorite)"#
        #expect(String(decoding: json, as: UTF8.self).contains(vancouver))
    }

    @Test func beyondItsCapacityObjectsAreWrittenEachTime() {
        let cache = TripJSONCache(capacity: 2)
        let list = TripList.samples
        let trips = Array(list.trips)
        #expect(cache.array(of: trips, in: list) == Self.written(trips))
        #expect(cache.count == 2)
        cache.forget([trips[0].id, trips[1].id])
        #expect(cache.count == 0)
    }
}
