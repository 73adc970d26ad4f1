import Testing
import TripsTestSupport

@testable import TripsDomain

/// `TripIDTable` against a `Dictionary`, across pages, with negative and far-apart ids.
@Suite struct TripIDTableTests {
    @Test func everyChangeMatchesADictionary() {
        var random = SplitMix64(seed: 16)
        var table = TripIDTable<String>()
        var model: [Int: String] = [:]
        let ids = Array(-1_100...(-1_000)) + Array(0...3_000) + [1 << 40, Int.max, Int.min]
        for step in 0..<20_000 {
            let id = ids.randomElement(using: &random)!
            if Bool.random(using: &random) {
                let value = "\(step)"
                #expect(table.updateValue(value, forKey: id) == model.updateValue(value, forKey: id))
            } else {
                table[id] = nil
                model[id] = nil
            }
            #expect(table.count == model.count)
        }
        for id in ids {
            #expect(table[id] == model[id], "\(id)")
            #expect(table.contains(id) == (model[id] != nil), "\(id)")
        }
        #expect(table[5_000_000] == nil)
        #expect(!table.contains(5_000_000))
    }

    @Test func aCopyKeepsItsValuesWhenTheOriginalChanges() {
        var table = TripIDTable<Int>()
        for id in 1...3_000 { table[id] = id }
        let copy = table
        for id in stride(from: 1, through: 3_000, by: 7) { table[id] = nil }
        table[2] = -2
        #expect(copy.count == 3_000)
        #expect((1...3_000).allSatisfy { copy[$0] == $0 })
        #expect(table != copy)
        table = copy
        #expect(table == copy)
    }

    @Test func aTableEmptiedAgainEqualsAnEmptyOne() {
        var table = TripIDTable<Int>()
        for id in 1...5_000 { table[id] = id }
        for id in 1...5_000 { table[id] = nil }
        #expect(table.count == 0)
        #expect(table == TripIDTable())
    }

    /// Ids far apart (what is left of churn, or a hostile database's rows) cost a value each
    /// and a page's index: before, each took a page of 1,024 slots.
    @Test func farApartIdsHoldOnlyTheirValues() {
        var table = TripIDTable<Int>()
        for page in 0..<1_000 { table[page << 10 | 1_023] = page }
        for page in 0..<1_000 { table[page << 10 | 1_000] = -page }
        #expect(table.pages.allSatisfy { $0.values.count == 2 && $0.values.capacity < 8 })
        #expect(table[5 << 10 | 1_023] == 5)
        #expect(table[5 << 10 | 1_000] == -5)
        #expect(table[5 << 10 | 1_001] == nil)
        table[5 << 10 | 1_023] = nil
        #expect(table[5 << 10 | 1_000] == -5)
        #expect(table.pages[5].values == [-5])
    }

    /// Ids in any order go in and out of a page in constant time: descending (a list sorted
    /// newest first, restored), every third, removals from the front.
    @Test func idsInAnyOrderKeepTheirValues() {
        var table = TripIDTable<Int>()
        for id in (0..<1_024).reversed() where id % 3 != 0 { table[id] = id }
        for id in stride(from: 0, to: 1_024, by: 3) { table[id] = id }
        #expect(table.count == 1_024)
        #expect((0..<1_024).allSatisfy { table[$0] == $0 })
        for id in stride(from: 1, to: 1_024, by: 2) { #expect(table.updateValue(-id, forKey: id) == id) }
        for id in stride(from: 0, to: 1_024, by: 2) { table[id] = nil }
        #expect(table.count == 512)
        #expect((0..<1_024).allSatisfy { table[$0] == ($0 % 2 == 1 ? -$0 : nil) })
        #expect(Set(table.pages[0].values) == Set(stride(from: 1, to: 1_024, by: 2).map { -$0 }))
    }

    /// A builder given ids in any order, past the pages it makes at once (far apart,
    /// descending, shuffled, with duplicates), makes the table a dictionary would, and says
    /// which ids came twice, set aside or not.
    @Test(arguments: [0, 1, 2])
    func aBuilderMakesTheTableInAnyOrder(order: Int) {
        var random = SplitMix64(seed: 32)
        let far = (0..<3_000).map { $0 * 1_024 * 3 + $0 % 7 }
        let near = Array(1..<2_000)
        var ids = far + near
        switch order {
        case 0: ids.reverse()
        case 1: ids.shuffle(using: &random)
        default: ids = far.reversed() + near.reversed()
        }
        var builder = TripIDTable<Int>.Builder()
        var model: [Int: Int] = [:]
        for id in ids {
            let isNew = builder.insert(-id, for: id)
            #expect(isNew)
            model[id] = -id
        }
        #expect(!builder.late.isEmpty, "some pages were set aside")
        for id in [far[5], far[2_900], near[9]] {
            let isNew = builder.insert(0, for: id)
            #expect(!isNew, "\(id)")
        }
        _ = builder.finish()
        var again = TripIDTable<Int>.Builder()
        for id in ids { _ = again.insert(-id, for: id) }
        let table = again.finish()
        #expect(table.count == model.count)
        #expect(table.pageNumbers == table.pageNumbers.sorted() && Set(table.pageNumbers).count == table.pages.count)
        #expect(model.allSatisfy { table[$0.key] == $0.value })
        #expect(table[far[5] + 1] == nil && table[-1] == nil)
        var direct = TripIDTable<Int>()
        for id in ids.sorted() { direct[id] = -id }
        #expect(table == direct)
    }
}
