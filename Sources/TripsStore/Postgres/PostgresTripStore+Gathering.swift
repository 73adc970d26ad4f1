import Dispatch
import Synchronization
import TripsPlatform

extension PostgresTripStore {
    /// Holds `batch` back while `BatchGathering` says so: until as many writes are queued as
    /// the last batch had, or its patience runs out; then the writes queued join it.
    func gather(into batch: inout [PendingWrite]) {
        guard let patience = state.withLock({ $0.gathering.holdBack(queued: $0.queue.count) }) else { return }
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: patience.nanoseconds))
        if gathered.wait(timeout: deadline) == .timedOut, state.withLock({ $0.gathering.gaveUp() }) {
            gathered.wait()  // `submit` ended the wait as it ran out: its signal is on its way
        }
        _ = takeLatecomers(into: &batch)
    }
}
