/// Values by trip id, in pages of 1,024 consecutive ids.
///
/// Ids are issued in sequence and never reused, so a page is an array indexed by an id's low
/// bits, as long as its highest id needs. A hash table keyed by id rehashes every entry when
/// it grows (a fifth of a second at 200,000 trips, under the store's lock); this one grows a
/// page at a time. A copy shares its pages until one of them changes, and that change copies
/// the one page, so a list that a reader still holds is not copied whole by the next change.
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
        @usableFromInline var slots: [Value?] = []
        @usableFromInline var count = 0

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
            let offset = id & Self.offsetMask
            let (index, isFound) = pageIndex(id >> Self.pageShift)
            guard isFound, offset < pages[index].slots.count else { return nil }
            return pages[index].slots[offset]
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
            pageNumbers.insert(number, at: index)
            pages.insert(Page(), at: index)
        }
        let old = Self.replace(id & Self.offsetMask, with: value, in: &pages[index])
        if isRemoval, pages[index].count == 0 {
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
        if offset >= page.slots.count {
            guard let value else { return nil }
            // Ids come in sequence (a restore, an add): most often the next slot, appended
            // as it is rather than as a nil overwritten in place.
            // A new page is made as large as it can grow, so that filling it does not copy it
            // ten times over (each id's value twice, on average).
            if page.slots.capacity == 0 { page.slots.reserveCapacity(1 << pageShift) }
            if offset > page.slots.count { page.slots.append(contentsOf: repeatElement(nil, count: offset - page.slots.count)) }
            page.slots.append(value)
            page.count += 1
            return nil
        }
        let isRemoval = value == nil
        let old = page.slots[offset]
        page.slots[offset] = value
        page.count += (isRemoval ? 0 : 1) - (old == nil ? 0 : 1)
        return old
    }
}

extension TripIDTable: Equatable where Value: Equatable {
    public static func == (lhs: TripIDTable, rhs: TripIDTable) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (number, page) in zip(lhs.pageNumbers, lhs.pages) {
            for (offset, value) in page.slots.enumerated() where value != nil {
                guard rhs[number << pageShift | offset] == value else { return false }
            }
        }
        return true
    }
}
