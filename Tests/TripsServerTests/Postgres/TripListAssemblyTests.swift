import Testing
import TripsDomain

@testable import TripsStore

/// Building the list on a thread of its own from batches of rows (`TripListAssembly`), as a
/// PostgreSQL start-up does while it reads the next ones.
@Suite struct TripListAssemblyTests {
    private static func rows(_ ids: ClosedRange<Int>) -> [TripListAssembly.Row] {
        ids.map { id in
            let sample = Array(TripList.samples.trips)[id % 6]
            return (Trip(id: id, draft: sample.draft, photo: nil), version: UInt64(id), key: Int64(id) * 10)
        }
    }

    @Test func batchesPastTheBacklogMakeOneListInTheOrderHandedOver() throws {
        let assembly = TripListAssembly(revision: 500, lastIssuedID: 460, backlog: 2)
        let handed = Self.rows(1...450).reversed()
        for start in stride(from: 0, to: handed.count, by: 7) {
            assembly.add(Array(handed.dropFirst(start).prefix(7)))
        }
        assembly.add([])
        let (list, keys) = try assembly.finish()
        #expect(list.trips.map(\.id) == Array((1...450).reversed()))
        #expect(list.revision == 500 && list.lastIssuedID == 460)
        #expect(list.version(of: 17) == 17 && list[17]?.city == Array(TripList.samples.trips)[17 % 6].city)
        #expect(keys[17] == 170 && keys[450] == 4_500 && keys[451] == nil)
    }

    @Test func anIdHandedOverTwiceIsDamagedOnceAllIsIn() {
        let assembly = TripListAssembly(revision: 10, lastIssuedID: 10, backlog: 1)
        assembly.add(Self.rows(1...5))
        assembly.add(Self.rows(5...6))
        assembly.add(Self.rows(7...9))
        let error = #expect(throws: PostgresStoreError.self) { try assembly.finish() }
        #expect(String(describing: error).contains("trip 5 appears twice"))
    }

    /// The state row says what was ever issued; a hostile or broken server's rows past it
    /// are refused (far-apart ids would each cost a page of the list's table).
    @Test(arguments: [(id: 11, version: 3), (id: 0, version: 3), (id: -4, version: 3), (id: 9, version: 21)])
    func aTripPastWhatTheStateRowIssuedIsDamaged(id: Int, version: UInt64) {
        let assembly = TripListAssembly(revision: 20, lastIssuedID: 10)
        assembly.add(Self.rows(1...5))
        let sample = Array(TripList.samples.trips)[0]
        assembly.add([(Trip(id: id, draft: sample.draft, photo: nil), version: version, key: 99)])
        let error = #expect(throws: PostgresStoreError.self) { try assembly.finish() }
        #expect(String(describing: error).contains("trip \(id) at version \(version) is past the last id issued (10) or revision (20)"))
    }

    /// A state row that issued no id, beside a trip, is damage too (1...0 was no range at all).
    @Test func aTripWhereNoIdWasIssuedIsDamaged() {
        let assembly = TripListAssembly(revision: 0, lastIssuedID: 0)
        assembly.add(Self.rows(1...1).map { ($0.trip, version: 0, key: $0.key) })
        let error = #expect(throws: PostgresStoreError.self) { try assembly.finish() }
        #expect(String(describing: error).contains("trip 1 at version 0 is past the last id issued (0)"))
    }

    @Test func nothingHandedOverIsAnEmptyList() throws {
        let (list, keys) = try TripListAssembly(revision: 3, lastIssuedID: 7).finish()
        #expect(list.trips.isEmpty && list.revision == 3 && list.lastIssuedID == 7)
        #expect(keys == TripPositionKeys())
    }
}
