import Foundation
import Testing
import TripsDomain

/// "Next: <city>" on a trip's page: the trip that starts soonest after it, exactly as the
/// lesson's `TripDetail.next(after:)` finds it.
@Suite struct NextTripTests {
    /// A trip starting on `day` (an RFC 3339 date or timestamp).
    private func trip(_ id: Int, _ day: String) -> Trip {
        Trip(id: id, city: "City \(id)", country: "Country", nights: 1, price: 0, start: TripDate.parse(day)!)
    }

    /// The lesson's own expression, the model `next(after:)` must agree with.
    private func lessonsNext(after trip: Trip, in trips: [Trip]) -> Trip? {
        trips.filter { $0.start > trip.start }.min { $0.start < $1.start }
    }

    @Test func theSamplesFollowEachOtherByDate() {
        let list = TripList.samples
        #expect(list.next(after: list[1]!)?.city == "Vancouver")
        #expect(list.next(after: list[2]!)?.city == "Atacama")
        #expect(list.next(after: list[5]!)?.city == "Zürich")
        #expect(list.next(after: list[6]!) == nil)
    }

    @Test func aTripOnTheSameInstantIsNotNextAndTheFirstOfEqualsWins() {
        // Stored out of date order: 4 and 2 start together, after 1 and 3 (also together).
        let trips = [trip(4, "2027-05-01"), trip(1, "2027-03-05"), trip(2, "2027-05-01"), trip(3, "2027-03-05")]
        let list = TripList(trips: trips)
        #expect(list.next(after: list[1]!)?.id == 4)
        #expect(list.next(after: list[3]!)?.id == 4)
        #expect(list.next(after: list[4]!) == nil)
        #expect(list.next(after: list[2]!) == nil)
    }

    @Test func laterTheSameDayIsAfter() {
        let list = TripList(trips: [trip(1, "2027-03-05T18:00:00Z"), trip(2, "2027-03-05")])
        #expect(list.next(after: list[2]!)?.id == 1)
        #expect(list.next(after: list[1]!) == nil)
    }

    @Test func agreesWithTheLessonOnEveryListOfUpToFiveTripsOverThreeDays() {
        let days = ["2027-01-01", "2027-01-02", "2027-01-03"]
        for count in 1...5 {
            // Every assignment of the three days to `count` trips in stored order.
            for assignment in 0..<(1...count).reduce(1, { product, _ in product * 3 }) {
                var code = assignment
                let trips = (1...count).map { id in
                    defer { code /= 3 }
                    return trip(id, days[code % 3])
                }
                let list = TripList(trips: trips)
                for trip in trips {
                    #expect(list.next(after: trip)?.id == lessonsNext(after: trip, in: trips)?.id, "\(trips.map(\.start)) after \(trip.id)")
                }
            }
        }
    }
}
