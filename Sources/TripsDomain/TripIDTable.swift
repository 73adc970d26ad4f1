/// Values by trip id, in pages of 1,024 consecutive ids.
///
/// Ids are issued in sequence and never reused, so most ids of a page have a value, and a page
/// finds one by its position among them: a bitmap says which of the page's ids have a value,
/// and the count of bits set before an id is the index of its value. A hash table keyed by id
/// rehashes every entry when it grows (a fifth of a second at 200,000 trips, under the store's
/// lock); this one grows a page at a time. A copy shares its pages until one of them changes,
/// and that change copies the one page, so a list that a reader still holds is not copied whole
/// by the next change.
///
/// A page holds only the values it has: ids far apart (a client that adds 1,024 trips and
/// deletes all but one, again and again, or a hostile database's rows) cost a value each and a
/// page's 256 bytes of bitmap and counts, not 1,024 slots of a value each (a thousand times the trip).
///
/// Pages are found by binary search of their numbers, kept in order: a thousand pages at a
/// million trips take ten comparisons, where a `Dictionary` hashed the number with SipHash
/// (~100 instructions, a fifth of a cached read's lookups). Pages come in order too, so a new
/// one is appended; any id still works (a far or negative one inserts its page in place).
///
/// Public and inlinable, so that a module that keeps its own values in one (`TripsStore`'s
/// position keys) gets code made for them: a `package` body is not handed to other modules,
/// and unspecialized, each access asked the runtime for generic metadata (a quarter of a
/// PostgreSQL start-up's instructions).
public struct TripIDTable<Value: Sendable>: Sendable {
    @usableFromInline
    struct Page: Sendable {
        /// Words `0..<wordCount` are the bitmap: bit `offset & 63` of word `offset >> 6` is set
        /// when the id at `offset` has a value. Word `wordCount + w` counts the bits set in the
        /// words before `w`, so that finding an index counts the bits of one word, not sixteen.
        /// (One array, not two: a page is one more object to allocate and to retain on a copy.)
        @usableFromInline var occupancy = [UInt64](repeating: 0, count: 2 * TripIDTable.wordCount)
        /// The values of the ids that have one, in id order.
        @usableFromInline var values: [Value] = []

        @inlinable init() {}

        /// Where the value of the id at `offset` is in `values`, or would be inserted.
        @inlinable @inline(__always)
        func slot(_ offset: Int) -> (index: Int, isFound: Bool) {
            let word = offset &>> 6
            let bit = UInt64(truncatingIfNeeded: offset & 63)
            let bits = occupancy[word]
            let before = (bits & ((1 &<< bit) &- 1)).nonzeroBitCount
            return (Int(truncatingIfNeeded: occupancy[TripIDTable.wordCount &+ word]) &+ before, bits &>> bit & 1 != 0)
        }

        /// Marks the id at `offset` as having a value (`by` 1) or not (-1), and moves the
        /// counts of the words after it.
        @inlinable mutating func mark(_ offset: Int, by change: Int) {
            let word = offset &>> 6
            occupancy.withUnsafeMutableBufferPointer { words in
                words[word] ^= 1 &<< UInt64(truncatingIfNeeded: offset & 63)
                for later in (TripIDTable.wordCount &+ word &+ 1)..<(2 &* TripIDTable.wordCount) {
                    words[later] &+= UInt64(bitPattern: Int64(change))
                }
            }
        }
    }

    @inlinable static var pageShift: Int { 10 }
    @inlinable static var offsetMask: Int { (1 << pageShift) - 1 }
    /// Bitmap words a page has.
    @inlinable static var wordCount: Int { 1 << (pageShift - 6) }

    /// Each page's number (its ids shifted right by `pageShift`), ascending.
    @usableFromInline var pageNumbers: [Int] = []
    /// The page of each number in `pageNumbers`, at the same index.
    @usableFromInline var pages: [Page] = []
    /// How many ids have a value.
    @usableFromInline var count = 0

    @inlinable public init() {}

    @inlinable public subscript(id: Trip.ID) -> Value? {
        // Inlined, so a caller that reads one field of the value (`TripList.version(of:)`)
        // copies that field, not the whole value through Optional's generic copy.
        @inline(__always) get {
            let (index, isFound) = pageIndex(id >> Self.pageShift)
            guard isFound else { return nil }
            let slot = pages[index].slot(id & Self.offsetMask)
            guard slot.isFound else { return nil }
            return pages[index].values[slot.index]
        }
        set { replace(id, with: newValue) }
    }

    /// Sets the value for `id`, answering the one it replaced, as `Dictionary` does.
    @discardableResult
    @inlinable mutating func updateValue(_ value: consuming Value, forKey id: Trip.ID) -> Value? {
        replace(id, with: value)
    }

    @discardableResult
    @inlinable mutating func replace(_ id: Trip.ID, with value: consuming Value?) -> Value? {
        let number = id >> Self.pageShift
        // Asked before the value is handed on, and moved, not copied, into its page.
        let isRemoval = value == nil
        let (index, isFound) = pageIndex(number)
        if !isFound {
            guard !isRemoval else { return nil }
            var page = Page()
            // Ids in sequence (a restore, adds) fill a page after a full one: it is made as
            // large as it will grow, so that filling it does not copy it ten times over. A page
            // after a sparse one grows as its values come.
            if index > 0, index == pages.count, pageNumbers[index - 1] == number - 1,
                pages[index - 1].values.count > Self.offsetMask / 2
            {
                page.values.reserveCapacity(Self.offsetMask + 1)
            }
            pageNumbers.insert(number, at: index)
            pages.insert(page, at: index)
        }
        let old = Self.replace(id & Self.offsetMask, with: value, in: &pages[index])
        if isRemoval, pages[index].values.isEmpty {
            pageNumbers.remove(at: index)
            pages.remove(at: index)
        }
        count += (isRemoval ? 0 : 1) - (old == nil ? 0 : 1)
        return old
    }

    /// Where page `number` is in `pages`, or where it would be inserted to keep the order.
    @inlinable func pageIndex(_ number: Int) -> (index: Int, isFound: Bool) {
        var low = 0
        var high = pageNumbers.count
        while low < high {
            let middle = (low &+ high) >> 1
            if pageNumbers[middle] < number { low = middle &+ 1 } else { high = middle }
        }
        return (low, low < pageNumbers.count && pageNumbers[low] == number)
    }

    @inlinable static func replace(_ offset: Int, with value: consuming Value?, in page: inout Page) -> Value? {
        let (index, isFound) = page.slot(offset)
        guard value != nil else {
            guard isFound else { return nil }
            page.mark(offset, by: -1)
            return page.values.remove(at: index)
        }
        // Unwrapped as it is consumed, so that it is moved into its page: a `guard let` or a
        // `switch` copied it (each of a trip's strings retained, then released with the
        // parameter).
        guard isFound else {
            if index == page.values.count { page.values.append((consume value)!) } else { page.values.insert((consume value)!, at: index) }
            page.mark(offset, by: 1)
            return nil
        }
        let old = page.values[index]
        page.values[index] = (consume value)!
        return old
    }
}

extension TripIDTable: Equatable where Value: Equatable {
    public static func == (lhs: TripIDTable, rhs: TripIDTable) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (number, page) in zip(lhs.pageNumbers, lhs.pages) {
            for offset in 0...offsetMask where page.slot(offset).isFound {
                guard rhs[number << pageShift | offset] == page.values[page.slot(offset).index] else { return false }
            }
        }
        return true
    }
}
