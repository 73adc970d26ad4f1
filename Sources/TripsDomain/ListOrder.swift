/// The ids of a list in their order, kept in chunks, so that changing a few of them costs a
/// chunk's worth of work and a walk of the chunk table instead of a pass over the list.
///
/// For n ids, inserting, removing or finding the position of one is O(√n) with the default
/// chunk size (about 2,000 chunks of up to 1,024 ids for a million trips); a plain array
/// would move or renumber every id behind it. Changes too large for that to pay (more than
/// an eighth of the list) rebuild the chunks in one O(n) pass.
///
/// Every chunk holds at least one id. A chunk is named by a key that splits and merges of
/// other chunks leave alone, so `chunkOf` only changes for the ids that actually move.
package struct ListOrder: Sendable {
    /// The most ids a chunk holds; a fuller chunk splits into halves.
    let chunkCapacity: Int
    private var chunks: [[Trip.ID]] = []
    /// The key of each chunk, in step with `chunks`.
    private var keys: [Int] = []
    /// Where each key's chunk stands in `chunks`, by key (entries of dropped keys are stale):
    /// finding an id's chunk is then a lookup, not a search of the chunk table.
    private var chunkIndex: [Int] = []
    /// The key of the chunk that holds each id.
    private var chunkOf = TripIDTable<Int>()
    private var nextKey = 0
    private(set) var count = 0

    init(_ ids: some Sequence<Trip.ID>, chunkCapacity: Int = 1_024) {
        precondition(chunkCapacity >= 2, "a chunk must be able to split")
        self.chunkCapacity = chunkCapacity
        rebuild(Array(ids))
    }

    /// The id's index in the order.
    func position(of id: Trip.ID) -> Int? {
        guard let (chunk, offset) = location(of: id) else { return nil }
        return chunks[..<chunk].reduce(offset) { $0 + $1.count }
    }

    /// Every id, in order.
    var all: Suffix {
        Suffix(chunks: chunks, chunk: 0, offset: 0)
    }

    /// The ids from `id` on (`id` first), in order; empty when the order does not hold it.
    func ids(from id: Trip.ID) -> Suffix {
        guard let (chunk, offset) = location(of: id) else { return Suffix(chunks: [], chunk: 0, offset: 0) }
        return Suffix(chunks: chunks, chunk: chunk, offset: offset)
    }

    /// The ids after `id`, in order; empty when the order does not hold it.
    func ids(after id: Trip.ID) -> Suffix {
        guard let (chunk, offset) = location(of: id) else { return Suffix(chunks: [], chunk: 0, offset: 0) }
        return Suffix(chunks: chunks, chunk: chunk, offset: offset + 1)
    }

    /// The ids before `id` (nil: every id), nearest first; empty when the order does not hold it.
    func ids(before id: Trip.ID?) -> Prefix {
        guard let id else { return Prefix(chunks: chunks, chunk: chunks.count - 1, end: chunks.last?.count ?? 0) }
        guard let (chunk, offset) = location(of: id) else { return Prefix(chunks: [], chunk: -1, end: 0) }
        return Prefix(chunks: chunks, chunk: chunk, end: offset)
    }

    /// `ids` in the order's order; each must be in it.
    func sorted(_ ids: some Collection<Trip.ID>) -> [Trip.ID] {
        if ids.count > count / 8 {
            let wanted = Set(ids)
            return filter { wanted.contains($0) }
        }
        return ids.map { id -> (chunk: Int, offset: Int, id: Trip.ID) in
            guard let (chunk, offset) = location(of: id) else { preconditionFailure("\(id) is not in the order") }
            return (chunk, offset, id)
        }.sorted { ($0.chunk, $0.offset) < ($1.chunk, $1.offset) }.map(\.id)
    }

    /// Inserts new ids, in order, in front of `anchor` (which must be in the order), or at the end.
    mutating func insert(_ ids: some Collection<Trip.ID>, before anchor: Trip.ID?) {
        guard !ids.isEmpty else { return }
        if chunks.isEmpty {
            rebuild(Array(ids))
            return
        }
        var (chunk, offset) = (chunks.count - 1, chunks[chunks.count - 1].count)
        if let anchor {
            guard let location = location(of: anchor) else { preconditionFailure("\(anchor) is not in the order") }
            (chunk, offset) = location
        }
        chunks[chunk].insert(contentsOf: ids, at: offset)
        for id in ids { chunkOf[id] = keys[chunk] }
        count += ids.count
        splitIfFull(chunk)
    }

    /// Removes these ids; each must be in the order.
    mutating func remove(_ ids: Set<Trip.ID>) {
        guard !ids.isEmpty else { return }
        if ids.count > count / 8 {
            rebuild(filter { !ids.contains($0) })
            return
        }
        // One at a time, each where it stands: no pass over a chunk hashing every id in it.
        for id in ids {
            guard let (chunk, offset) = location(of: id) else { preconditionFailure("\(id) is not in the order") }
            chunkOf[id] = nil
            chunks[chunk].remove(at: offset)
            count -= 1
            mergeIfSmall(chunk)
        }
    }

    /// Moves `moving` (ids in the order) as one block, in their present order, in front of
    /// `anchor` (an id in the order that is not moving) or to the end. Returns whether the
    /// order changed: not when the block already stands, unbroken, right before the anchor.
    mutating func move(_ moving: Set<Trip.ID>, before anchor: Trip.ID?) -> Bool {
        let block = sorted(moving)
        guard !block.isEmpty, !isRun(block, before: anchor) else { return false }
        remove(moving)
        insert(block, before: anchor)
        return true
    }

    /// Whether `block` stands unbroken, in order, right before `anchor` (or at the end).
    ///
    /// A function of its own so that its iterator, which shares the chunk table, is gone
    /// before the caller changes the table (a shared table is copied whole by a change).
    private func isRun(_ block: [Trip.ID], before anchor: Trip.ID?) -> Bool {
        var run = ids(from: block[0]).makeIterator()
        return block.allSatisfy { run.next() == $0 } && run.next() == anchor
    }

    /// The chunk and the index in it where `id` stands.
    ///
    /// The chunk is searched from both ends at once: a trip just added at the end (a create's,
    /// whose neighbours its writer asks next) is found at the first step, not after the
    /// chunk's hundreds of others, and any other trip in as many steps as from one end.
    private func location(of id: Trip.ID) -> (chunk: Int, offset: Int)? {
        guard let key = chunkOf[id] else { return nil }
        let chunk = chunkIndex[key]
        let offset = chunks[chunk].withUnsafeBufferPointer { ids -> Int? in
            var (front, back) = (0, ids.count - 1)
            while front <= back {
                if ids[front] == id { return front }
                if ids[back] == id { return back }
                front += 1
                back -= 1
            }
            return nil
        }
        return offset.map { (chunk, $0) }
    }

    /// Lays `ids` out again in half-full chunks.
    private mutating func rebuild(_ ids: [Trip.ID]) {
        let size = chunkCapacity / 2
        chunks = stride(from: 0, to: ids.count, by: size).map { Array(ids[$0..<Swift.min($0 + size, ids.count)]) }
        keys = Array(0..<chunks.count)
        chunkIndex = keys
        nextKey = chunks.count
        // The ids come in the list's order, any order of ids (a sort's, a restored list's).
        var builder = TripIDTable<Int>.Builder()
        for (key, chunk) in chunks.enumerated() {
            for id in chunk { _ = builder.insert(key, for: id) }
        }
        chunkOf = builder.finish()
        count = ids.count
    }

    /// Splits an overfull chunk into pieces of about half the capacity; the first keeps its key.
    private mutating func splitIfFull(_ chunk: Int) {
        let ids = chunks[chunk]
        guard ids.count > chunkCapacity else { return }
        let pieceCount = (ids.count + chunkCapacity / 2 - 1) / (chunkCapacity / 2)
        let bounds = (0...pieceCount).map { ids.count * $0 / pieceCount }
        let pieces = (0..<pieceCount).map { Array(ids[bounds[$0]..<bounds[$0 + 1]]) }
        var pieceKeys = [keys[chunk]]
        for piece in pieces.dropFirst() {
            pieceKeys.append(nextKey)
            for id in piece { chunkOf[id] = nextKey }
            nextKey += 1
        }
        chunks.replaceSubrange(chunk...chunk, with: pieces)
        keys.replaceSubrange(chunk...chunk, with: pieceKeys)
        chunkIndex.append(contentsOf: repeatElement(0, count: nextKey - chunkIndex.count))
        renumberChunks(from: chunk)
    }

    /// Drops an emptied chunk, and folds one under a quarter full into its successor when both
    /// fit in one: deletions do not leave the table full of slivers.
    private mutating func mergeIfSmall(_ chunk: Int) {
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            keys.remove(at: chunk)
            renumberChunks(from: chunk)
            return
        }
        let next = chunk + 1
        guard chunks[chunk].count < chunkCapacity / 4, next < chunks.count,
            chunks[chunk].count + chunks[next].count <= chunkCapacity
        else { return }
        for id in chunks[chunk] { chunkOf[id] = keys[next] }
        chunks[next].insert(contentsOf: chunks[chunk], at: 0)
        chunks.remove(at: chunk)
        keys.remove(at: chunk)
        renumberChunks(from: chunk)
    }

    /// Brings `chunkIndex` up to date for the chunks from `first` on, after chunks were added
    /// or dropped there (as often as a chunk splits or merges: every few hundred changes).
    private mutating func renumberChunks(from first: Int) {
        for index in first..<keys.count { chunkIndex[keys[index]] = index }
    }
}

extension ListOrder: Sequence {
    package func makeIterator() -> Suffix.Iterator {
        all.makeIterator()
    }

    package var underestimatedCount: Int { count }

    /// The ids from one place in the order to its end.
    package struct Suffix: Sequence, Sendable {
        fileprivate let chunks: [[Trip.ID]]
        fileprivate let chunk: Int
        fileprivate let offset: Int

        package func makeIterator() -> Iterator {
            Iterator(chunks: chunks, chunk: chunk, offset: offset)
        }

        package struct Iterator: IteratorProtocol, Sendable {
            fileprivate let chunks: [[Trip.ID]]
            fileprivate var chunk: Int
            fileprivate var offset: Int

            package mutating func next() -> Trip.ID? {
                while chunk < chunks.count {
                    if offset < chunks[chunk].count {
                        defer { offset += 1 }
                        return chunks[chunk][offset]
                    }
                    chunk += 1
                    offset = 0
                }
                return nil
            }
        }
    }
}

extension ListOrder {
    /// The ids from the start of the order to one place in it, read backwards from there.
    package struct Prefix: Sequence, Sendable {
        fileprivate let chunks: [[Trip.ID]]
        fileprivate let chunk: Int
        /// The index in `chunk` of the first id not read.
        fileprivate let end: Int

        package func makeIterator() -> Iterator {
            Iterator(chunks: chunks, chunk: chunk, end: end)
        }

        package struct Iterator: IteratorProtocol, Sendable {
            fileprivate let chunks: [[Trip.ID]]
            fileprivate var chunk: Int
            fileprivate var end: Int

            package mutating func next() -> Trip.ID? {
                while chunk >= 0 {
                    if end > 0 {
                        end -= 1
                        return chunks[chunk][end]
                    }
                    chunk -= 1
                    end = chunk >= 0 ? chunks[chunk].count : 0
                }
                return nil
            }
        }
    }
}
