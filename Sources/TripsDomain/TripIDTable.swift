/// Values by trip id, in pages of 1,024 consecutive ids.
///
/// Ids are issued in sequence and never reused, so a page is found by an id's high bits and
/// its value by the low ones. A hash table keyed by id rehashes every entry when it grows (a
/// fifth of a second at 200,000 trips, under the store's lock); this one grows a page at a
/// time. A copy shares its pages until one of them changes, and that change copies the one
/// page, so a list that a reader still holds is not copied whole by the next change.
///
/// A page holds the values it has, in the order they came, and for each of its ids where its
/// value is (two bytes): ids far apart (a client that adds 1,024 trips and deletes all but one,
/// again and again; a hostile database's rows) cost a value and a 2 KiB index each, not 1,024
/// slots of a value each (a thousand times the trip). A value goes in and out in constant
/// time, whatever the order of ids (a list sorted newest first is restored in descending
/// order; a sort rebuilds `ListOrder`'s table in any order).
///
/// Pages are found by binary search of their numbers, kept in order: a thousand pages at a
/// million trips take ten comparisons, where a `Dictionary` hashed the number with SipHash
/// (~100 instructions, a fifth of a cached read's lookups). Pages come in order too, so a new
/// one is appended; any id still works (a far or negative one inserts its page in place, and
/// a table made of many ids at once, in whatever order, is made by a `Builder`).
///
/// Public and inlinable, so that a module that keeps its own values in one (`TripsStore`'s
/// position keys) gets code made for them: a `package` body is not handed to other modules,
/// and unspecialized, each access asked the runtime for generic metadata (a quarter of a
/// PostgreSQL start-up's instructions).
public struct TripIDTable<Value: Sendable>: Sendable {
    @usableFromInline
    struct Page: Sendable {
        /// For each of the page's ids, by its offset, where its value is in `values`, plus one;
        /// 0 when it has none.
        @usableFromInline var positions = [UInt16](repeating: 0, count: TripIDTable.offsetMask + 1)
        /// The values, in the order they came; a removal moves the last one into the gap.
        @usableFromInline var values: [Value] = []
        /// The offset of each value's id, at the value's index: what a moved value's position
        /// is updated by.
        @usableFromInline var offsets: [UInt16] = []

        @inlinable init() {}
    }

    @inlinable static var pageShift: Int { 10 }
    @inlinable static var offsetMask: Int { (1 << pageShift) - 1 }

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
            let position = Int(truncatingIfNeeded: pages[index].positions[id & Self.offsetMask])
            guard position != 0 else { return nil }
            return pages[index].values[position &- 1]
        }
        set { replace(id, with: newValue) }
    }

    /// Whether `id` has a value: a look at its page's index, where `self[id] != nil` copies
    /// the value out (a trip's strings retained and released) to compare it with nil.
    @inlinable public func contains(_ id: Trip.ID) -> Bool {
        let (index, isFound) = pageIndex(id >> Self.pageShift)
        return isFound && pages[index].positions[id & Self.offsetMask] != 0
    }

    /// Sets the value for `id`, answering the one it replaced, as `Dictionary` does.
    @discardableResult
    @inlinable mutating func updateValue(_ value: consuming Value, forKey id: Trip.ID) -> Value? {
        replace(id, with: value)
    }

    @discardableResult
    @inlinable mutating func replace(_ id: Trip.ID, with value: consuming Value?) -> Value? {
        replace(id, with: value, page: pageIndex(id >> Self.pageShift))
    }

    /// `replace(_:with:)` with `page`, what `pageIndex` answers for the id's page, already
    /// found (`Builder.insert` looks first).
    @discardableResult
    @inlinable mutating func replace(_ id: Trip.ID, with value: consuming Value?, page: (index: Int, isFound: Bool)) -> Value? {
        let number = id >> Self.pageShift
        // Asked before the value is handed on, and moved, not copied, into its page.
        let isRemoval = value == nil
        let (index, isFound) = page
        if !isFound {
            guard !isRemoval else { return nil }
            var page = Page()
            // Ids in sequence (a restore, adds; a list kept newest first is restored in
            // descending order) fill a page beside a full one: it is made as large as it will
            // grow, so that filling it does not copy it ten times over. A page beside sparse
            // ones grows as its values come.
            if isFullPage(at: index - 1, beside: number) || isFullPage(at: index, beside: number) {
                page.values.reserveCapacity(Self.offsetMask + 1)
                page.offsets.reserveCapacity(Self.offsetMask + 1)
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

    /// Whether the page at `index` in `pages` is there, next to page `number`, and more than
    /// half full.
    @inlinable func isFullPage(at index: Int, beside number: Int) -> Bool {
        pages.indices.contains(index) && abs(pageNumbers[index] - number) == 1 && pages[index].values.count > Self.offsetMask / 2
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
        let position = Int(truncatingIfNeeded: page.positions[offset])
        guard value != nil else {
            guard position != 0 else { return nil }
            // The last value fills the gap, and its id's position follows it.
            let last = page.values.count &- 1
            if position &- 1 != last {
                page.values.swapAt(position &- 1, last)
                page.offsets.swapAt(position &- 1, last)
                page.positions[Int(truncatingIfNeeded: page.offsets[position &- 1])] = UInt16(truncatingIfNeeded: position)
            }
            page.positions[offset] = 0
            page.offsets.removeLast()
            return page.values.removeLast()
        }
        // Unwrapped as it is consumed, so that it is moved into its page: a `guard let` or a
        // `switch` copied it (each of a trip's strings retained, then released with the
        // parameter).
        guard position != 0 else {
            page.values.append((consume value)!)
            page.offsets.append(UInt16(truncatingIfNeeded: offset))
            page.positions[offset] = UInt16(truncatingIfNeeded: page.values.count)
            return nil
        }
        let old = page.values[position &- 1]
        page.values[position &- 1] = (consume value)!
        return old
    }
}

extension TripIDTable: Equatable where Value: Equatable {
    public static func == (lhs: TripIDTable, rhs: TripIDTable) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (number, page) in zip(lhs.pageNumbers, lhs.pages) {
            for (value, offset) in zip(page.values, page.offsets) {
                guard rhs[number << pageShift | Int(offset)] == value else { return false }
            }
        }
        return true
    }
}
