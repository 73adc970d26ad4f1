import Testing
import TripsTestSupport

@testable import TripsDomain

/// `ListOrder` against a plain array, with chunks small enough that every operation splits,
/// merges or drops chunks many times over.
@Suite struct ListOrderTests {
    /// Checks every way of reading the order against the model, at every id or at some.
    private func expectMatches(_ order: ListOrder, _ model: [Int], _ step: String, every stride: Int = 1) {
        #expect(Array(order) == model, "\(step)")
        #expect(order.count == model.count, "\(step)")
        for (index, id) in model.enumerated() where index % stride == 0 || index == model.count - 1 {
            #expect(order.position(of: id) == index, "\(step): position of \(id)")
            #expect(Array(order.ids(from: id)) == Array(model[index...]), "\(step): from \(id)")
            #expect(Array(order.ids(after: id)) == Array(model[(index + 1)...]), "\(step): after \(id)")
            #expect(Array(order.ids(before: id)) == model[..<index].reversed(), "\(step): before \(id)")
        }
        #expect(Array(order.ids(before: nil)) == model.reversed(), "\(step): before the end")
        #expect(order.position(of: -1) == nil)
        #expect(Array(order.ids(after: -1)).isEmpty)
        #expect(Array(order.ids(before: -1)).isEmpty)
    }

    @Test(.tags(.slow), arguments: [2, 3, 4, 8])
    func everyOperationMatchesAnArray(chunkCapacity: Int) {
        var random = SplitMix64(seed: UInt64(chunkCapacity))
        var model = Array(1...20)
        var order = ListOrder(model, chunkCapacity: chunkCapacity)
        var nextID = 21
        for step in 0..<400 {
            let name = "step \(step)"
            switch Int.random(in: 0..<4, using: &random) {
            case 0:  // insert a few, somewhere
                let ids = Array(nextID..<nextID + Int.random(in: 1...(chunkCapacity * 3), using: &random))
                nextID += ids.count
                let anchor = model.isEmpty || Bool.random(using: &random) ? nil : model.randomElement(using: &random)
                order.insert(ids, before: anchor)
                model.insert(contentsOf: ids, at: anchor.flatMap { model.firstIndex(of: $0) } ?? model.endIndex)
            case 1:  // remove a few, or (rarely) many
                guard !model.isEmpty else { continue }
                let doomed = Set(model.shuffled(using: &random).prefix(Int.random(in: 1...min(model.count, 12), using: &random)))
                order.remove(doomed)
                model.removeAll(where: doomed.contains)
            default:  // move a few before a trip that stays, or to the end
                guard !model.isEmpty else { continue }
                let moving = Set(model.shuffled(using: &random).prefix(Int.random(in: 1...min(model.count, 6), using: &random)))
                let staying = model.filter { !moving.contains($0) }
                let anchor = staying.isEmpty || Bool.random(using: &random) ? nil : staying.randomElement(using: &random)
                let block = model.filter(moving.contains)
                var expected = staying
                expected.insert(contentsOf: block, at: anchor.flatMap { expected.firstIndex(of: $0) } ?? expected.endIndex)
                let changed = order.move(moving, before: anchor)
                #expect(changed == (expected != model), "\(name): said whether it changed")
                model = expected
                let shuffled = moving.shuffled(using: &random)
                #expect(order.sorted(shuffled) == block, "\(name): sorted")
            }
            expectMatches(order, model, name, every: 17)
        }
        expectMatches(order, model, "at the end")
    }

    @Test func aLargeChangeRebuildsAndStillMatches() {
        var order = ListOrder(1...1_000, chunkCapacity: 8)
        order.remove(Set(stride(from: 1, through: 1_000, by: 2)))  // half: rebuilt in one pass
        let evens = Array(stride(from: 2, through: 1_000, by: 2))
        expectMatches(order, evens, "after removing the odd ids")
        let changed = order.move(Set(evens.prefix(400)), before: nil)
        #expect(changed)
        expectMatches(order, Array(evens.dropFirst(400) + evens.prefix(400)), "after moving 400 to the end")
    }

    @Test func anEmptiedOrderTakesNewIds() {
        var order = ListOrder([1, 2, 3], chunkCapacity: 2)
        order.remove([1, 2, 3])
        expectMatches(order, [], "emptied")
        order.insert([4, 5, 6], before: nil)
        expectMatches(order, [4, 5, 6], "refilled")
    }
}
