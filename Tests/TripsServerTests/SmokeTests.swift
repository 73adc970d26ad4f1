import Testing
@testable import TripsServer
import TripsDomain

@Test func packageBuilds() { #expect(Bool(true)) }
