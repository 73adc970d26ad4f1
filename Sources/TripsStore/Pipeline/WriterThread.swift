import Foundation
import TripsPlatform

/// A store's writer: a thread of its own that sleeps until woken, then takes the work waiting
/// (a batch, for group commit) until there is none, and ends once its store closes and no
/// work is left. `TripStore` and `PostgresTripStore` each run one.
///
/// Whether the writer is awake is kept by the store beside its work, under its own lock
/// (`Wake`): the writer goes to sleep under that lock when it finds no work, so whoever
/// queues work next sees that and wakes it, and no work is ever left waiting.
package final class WriterThread: Sendable {
    /// What the writer does next, as its store decides under its lock.
    package enum Step<Work> {
        case work(Work)
        /// No work: the store marked the writer asleep (`Wake.sleep()`).
        case sleep
        /// The store is closing and no work is left.
        case stop
    }

    /// Whether the writer is awake, kept under the store's lock.
    struct Wake: Sendable {
        private var isAwake = false

        /// Marks the writer awake. True when it was asleep: the caller then calls `wake()`,
        /// once out of the lock.
        mutating func request() -> Bool {
            guard !isAwake else { return false }
            isAwake = true
            return true
        }

        /// The writer found no work and goes to sleep.
        mutating func sleep() {
            isAwake = false
        }
    }

    /// What a store is told once its writer has slept for `after` with no work: once per
    /// sleep, and not at the pauses between batches under load, when it is woken sooner.
    struct Idle: Sendable {
        let after: Duration
        let then: @Sendable () -> Void
    }

    /// Signalled once each time `Wake.request()` finds the writer asleep.
    private let signal = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    init() {}

    /// Starts the thread: it runs `prepare`, then each time it is woken takes `next` and
    /// `perform`s it until `next` says sleep, and ends once `next` says stop. Asleep, it tells
    /// `idle` when it has slept long enough.
    func start<Work>(
        named name: String, prepare: @escaping @Sendable () -> Void = {}, idle: Idle? = nil,
        next: @escaping @Sendable () -> Step<Work>, perform: @escaping @Sendable (Work) -> Void
    ) {
        let thread = Thread { [self] in
            prepare()
            while true {
                sleepUntilWoken(telling: idle)
                var step = next()
                while case .work(let work) = step {
                    perform(work)
                    step = next()
                }
                if case .stop = step { break }
            }
            stopped.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits for `wake()`; past `idle.after` of it, runs `idle.then` and waits on.
    private func sleepUntilWoken(telling idle: Idle?) {
        if let idle {
            guard signal.wait(timeout: .now() + .nanoseconds(Int(clamping: idle.after.nanoseconds))) == .timedOut else { return }
            idle.then()
        }
        signal.wait()
    }

    /// Wakes the writer, after `Wake.request()` said it slept.
    func wake() {
        signal.signal()
    }

    /// Waits until the thread has ended (its store asked it to stop, and woke it).
    func waitUntilStopped() {
        stopped.wait()
    }
}
