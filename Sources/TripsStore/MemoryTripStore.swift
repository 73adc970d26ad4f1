import Synchronization
import TripsDomain

/// The trip list in memory only (neither `--data` nor `--database`): a change is planned,
/// applied and answered at once, and everything is lost when the process ends.
package final class MemoryTripStore: Sendable {
    private let state: Mutex<State>

    private struct State: ~Copyable {
        /// What reads see and what changes are planned against: every change is "durable"
        /// once applied.
        var list: TripList
        var history: ChangeHistory
        /// Told every change, in order, under the lock (as `TripStore` tells it).
        var listener: (@Sendable (ChangeEvent) -> Void)?
        var ledger: IdempotencyLedger
        var isClosing = false
        /// The bytes of the photos the list refers to, by digest; a photo no trip refers to
        /// any more is dropped after the change that let it go.
        var photoBytes: [String: [UInt8]] = [:]
    }

    /// A store that starts with the sample trips and their photos (`SampleTrips`), or with none.
    package init(seedSamples: Bool = true, configuration: StorageConfiguration = StorageConfiguration()) {
        let list = seedSamples ? SampleTrips.list : TripList()
        let history = ChangeHistory(capacity: configuration.historyCapacity, revision: list.revision)
        var state = State(list: list, history: history, ledger: configuration.emptyLedger)
        if seedSamples {
            for photo in SampleTrips.photos { state.photoBytes[photo.photo.digest] = photo.bytes }
        }
        self.state = Mutex(state)
    }

    package func read<T>(_ body: (borrowing TripList) throws -> T) rethrows -> T {
        try state.withLock { try body($0.list) }
    }

    package var list: TripList {
        read { copy $0 }
    }

    /// Nothing is written: the statistics count only the photos.
    package var statistics: (store: StoreStatistics, trips: Int, revision: UInt64) {
        state.withLock { (StoreStatistics().countingPhotos(of: $0.list), $0.list.trips.count, $0.list.revision) }
    }

    /// Memory never fails a write.
    package var writeFailure: StorageError? { nil }

    package func withHistory<T>(_ body: (ChangeHistory) throws -> T) rethrows -> T {
        try state.withLock { try body($0.history) }
    }

    package func photo(digest: String) -> PhotoBytes? {
        state.withLock { state in
            guard let photo = state.list.photos[digest], let bytes = state.photoBytes[digest] else { return nil }
            return PhotoBytes(photo: photo, bytes: bytes)
        }
    }

    package func setChangeListener(_ listener: @escaping @Sendable (ChangeEvent) -> Void) {
        state.withLock { $0.listener = listener }
    }

    /// Plans a change against the list (`ChangePlanner` says how), applies it, and calls
    /// `completion` before returning.
    package func submit(_ request: ChangeRequest, completion: @escaping @Sendable (Result<Mutation, MutationError>) -> Void) {
        let result = state.withLock { state -> Result<Mutation, MutationError> in
            guard !state.isClosing else { return .failure(.storage(.closed)) }
            let planned = ChangePlanner.plan(request, on: &state.list, ledger: &state.ledger)
            if let entry = planned.entry {
                if let photo = entry.photo { state.photoBytes[photo.photo.digest] = photo.bytes }
                if state.photoBytes.count > state.list.photos.count {
                    state.photoBytes = state.photoBytes.filter { [photos = state.list.photos] digest, _ in photos[digest] != nil }
                }
                entry.settle(history: &state.history, ledger: &state.ledger)
                state.listener?(entry.event)
            }
            return planned.result
        }
        completion(result)
    }

    /// Later mutations fail with `.storage(.closed)`; reads go on. Idempotent.
    package func close() {
        state.withLock { $0.isClosing = true }
    }
}
