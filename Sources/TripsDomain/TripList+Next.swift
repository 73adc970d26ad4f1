import Foundation

extension TripList {
    /// The trip that starts soonest after `trip`, as the lesson's `TripDetail` finds it:
    /// `trips.filter { $0.start > trip.start }.min { $0.start < $1.start }`.
    ///
    /// A trip starting at the same instant is not after it (so a trip on the same day at the
    /// same time never is "next"), and of several that start together soonest after it, the
    /// first in stored order wins, as `min(by:)` keeps the first of equals.
    ///
    ///     // Seattle Jan 12, Vancouver Mar 5, Atacama Apr 20 (stored in that order)
    ///     list.next(after: seattle)  // Vancouver
    ///     list.next(after: atacama)  // nil
    ///
    /// - Complexity: O(n), one pass over the list, no allocation.
    public func next(after trip: Trip) -> Trip? {
        var soonest: Trip?
        for candidate in trips where candidate.start > trip.start {
            if let found = soonest, found.start <= candidate.start { continue }
            soonest = candidate
        }
        return soonest
    }
}
