/// Values by trip id, in pages of 1,024 consecutive ids.
///
/// Ids are issued in sequence and never reused, so a page is an array indexed by an id's low
/// bits, as long as its highest id needs. A hash table keyed by id rehashes every entry when
/// it grows (a fifth of a second at 200,000 trips, under the store's lock); this one grows a
/// page at a time. A copy shares its pages until one of them changes, and that change copies
/// the one page, so a list that a reader still holds is not copied whole by the next change.
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

    @usableFromInline var pages: [Int: Page] = [:]
    /// How many ids have a value.
    @usableFromInline var count = 0

    @inlinable public init() {}

    @inlinable public subscript(id: Trip.ID) -> Value? {
        get {
            let offset = id & Self.offsetMask
            guard let page = pages[id >> Self.pageShift], offset < page.slots.count else { return nil }
            return page.slots[offset]
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
        guard !isRemoval || pages[number] != nil else { return nil }
        let old = Self.replace(id & Self.offsetMask, with: value, in: &pages[number, default: Page()])
        if isRemoval, pages[number]?.count == 0 { pages[number] = nil }
        count += (isRemoval ? 0 : 1) - (old == nil ? 0 : 1)
        return old
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
        for (number, page) in lhs.pages {
            for (offset, value) in page.slots.enumerated() where value != nil {
                guard rhs[number << pageShift | offset] == value else { return false }
            }
        }
        return true
    }
}
