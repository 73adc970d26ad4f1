extension TripIDTable {
    /// Builds a table from values given in any order (a list's trips in its order, a table's
    /// rows as they come), in time linear in them, plus a sort of those out of page order.
    ///
    /// A value whose page the table lacks and that goes in front of others moves every page
    /// after it: ids 1,024 or more apart in descending order (a hostile database's rows) made a
    /// table of n pages in n²/2 moves, minutes at a million. Up to `directPages` pages that is
    /// cheap, and values go in as they come (a list of a million trips has a thousand pages,
    /// whatever its order); past them, a value that would insert a page in front is set aside,
    /// and those set aside go in at the end, sorted, with the pages merged in one pass.
    ///
    ///     var builder = TripIDTable<Int>.Builder()
    ///     _ = builder.insert(7, for: 3)     // true
    ///     _ = builder.insert(8, for: 3)     // false: 3 had a value
    ///     let table = builder.finish()
    public struct Builder: Sendable {
        @usableFromInline var table = TripIDTable()
        /// Values set aside, of pages the table lacks, in the order they came.
        @usableFromInline var late: [(id: Trip.ID, value: Value)] = []
        @usableFromInline var lateIDs = Set<Trip.ID>()

        /// Pages the table may have before a page in front of others is set aside.
        @inlinable static var directPages: Int { 1_024 }

        @inlinable public init() {}

        /// Adds `value` for `id`; false when `id` already had a value (which it may then have
        /// replaced: a caller given two values for one id gives the table up).
        @inlinable public mutating func insert(_ value: consuming Value, for id: Trip.ID) -> Bool {
            let page = table.pageIndex(id >> TripIDTable.pageShift)
            let (index, isFound) = page
            // A page set aside is not in the table until `finish`, and every value of it comes
            // here too: a page in front, once the table has this many, is never made at once.
            if !isFound, index < table.pages.count, table.pages.count >= Self.directPages {
                guard lateIDs.insert(id).inserted else { return false }
                late.append((id, value))
                return true
            }
            return table.replace(id, with: value, page: page) == nil
        }

        /// The table of every value inserted.
        @inlinable public consuming func finish() -> TripIDTable {
            guard !late.isEmpty else { return table }
            late.sort { $0.id < $1.id }
            table.mergePages(of: late)
            return table
        }
    }

    /// Puts in `values`, sorted by id, whose pages the table lacks: the table's pages and
    /// theirs merged in one pass, in order.
    @inlinable mutating func mergePages(of values: [(id: Trip.ID, value: Value)]) {
        var numbers: [Int] = []
        var merged: [Page] = []
        numbers.reserveCapacity(pageNumbers.count + values.count)
        merged.reserveCapacity(pageNumbers.count + values.count)
        var old = 0
        var next = 0
        while next < values.count {
            let number = values[next].id >> Self.pageShift
            while old < pageNumbers.count, pageNumbers[old] < number {
                numbers.append(pageNumbers[old])
                merged.append(pages[old])
                old += 1
            }
            var page = Page()
            while next < values.count, values[next].id >> Self.pageShift == number {
                _ = Self.replace(values[next].id & Self.offsetMask, with: values[next].value, in: &page)
                next += 1
            }
            numbers.append(number)
            merged.append(page)
        }
        numbers.append(contentsOf: pageNumbers[old...])
        merged.append(contentsOf: pages[old...])
        count += values.count
        pageNumbers = numbers
        pages = merged
    }
}
