import Glibc
import TripsIOURing

/// An io_uring instance: submissions of accepts, receives and sends that the kernel completes
/// on its own, each completion tagged with the submitter's 64-bit `tag`, and one system call
/// per turn (`submitAndWait`) for all of them, where readiness I/O makes one per read and one
/// per write (#32 goal 3). Receives take their bytes into buffers the kernel picks from a
/// shared group (`buffer(_:)`, given back with `recycle`), so a waiting connection holds none.
///
/// Confined to one thread once enabled: made where the server starts (so that a kernel or
/// container that refuses io_uring is known before any loop runs), then handed to its loop's
/// thread, which calls `enable()` and alone submits from then on.
package final class IOURing: @unchecked Sendable {  // handed to its thread once, used only there
    /// One completion: the submission's tag, its result (a count, or a negative errno), flags.
    /// (The C record is its only stored property, so a buffer of those is a buffer of these.)
    package struct Completion {
        private let record: trips_io_uring_completion

        package var tag: UInt64 { record.user_data }
        package var result: Int32 { record.result }
        /// The receive buffer the completion filled, if any.
        package var bufferID: Int32? {
            let id = trips_io_uring_buffer_id(record.flags)
            return id >= 0 ? id : nil
        }
        /// Whether the submission stays armed and completes again (a multishot accept or poll).
        package var hasMore: Bool { trips_io_uring_has_more(record.flags) != 0 }
    }

    private let ring: UnsafeMutablePointer<trips_io_uring>
    private let completions: UnsafeMutablePointer<trips_io_uring_completion>
    /// How many completions one `takeCompletions` hands over at most.
    package let completionCapacity: Int
    /// The size of each receive buffer: the most one receive completion carries.
    package let bufferSize: Int

    /// Sets up a ring of `entries` submission slots and `bufferCount` receive buffers of
    /// `bufferSize` bytes (`bufferCount` a power of two). Throws the refusing call's error,
    /// leaving nothing open: `io_uring_setup`'s (ENOSYS: too old; EPERM: a seccomp filter or
    /// `kernel.io_uring_disabled`), or `io_uring_register`'s (a kernel before 5.19 has no
    /// provided-buffer rings).
    package init(entries: Int, bufferCount: Int, bufferSize: Int) throws(SystemError) {
        ring = .allocate(capacity: 1)
        var failedCall: UnsafePointer<CChar>?
        let result = trips_io_uring_open(ring, UInt32(entries), UInt32(bufferCount), UInt32(bufferSize), &failedCall)
        guard result == 0 else {
            ring.deallocate()
            throw SystemError(call: failedCall.map { String(cString: $0) } ?? "io_uring_setup", errno: -result)
        }
        completionCapacity = entries * 4
        completions = .allocate(capacity: completionCapacity)
        self.bufferSize = bufferSize
    }

    deinit {
        trips_io_uring_close(ring)
        ring.deallocate()
        completions.deallocate()
    }

    /// Makes the calling thread the one that submits.
    package func enable() throws(SystemError) {
        let result = trips_io_uring_enable(ring)
        if result < 0 { throw SystemError(call: "io_uring_register", errno: -result) }
    }

    // MARK: - Submissions

    /// Accepts connections on `listener` (close-on-exec, blocking: the ring waits, not the
    /// socket) until canceled or refused; each completion's result is the new descriptor.
    package func accept(on listener: Int32, tag: UInt64) {
        makeRoom()
        trips_io_uring_accept(ring, listener, tag)
    }

    /// Receives up to `bufferSize` bytes from `descriptor` into a buffer of the shared group.
    package func receive(from descriptor: Int32, tag: UInt64) {
        makeRoom()
        trips_io_uring_receive(ring, descriptor, tag)
    }

    /// Sends `bytes`, which must stay where they are, unchanged, until the completion.
    package func send(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, tag: UInt64) {
        makeRoom()
        trips_io_uring_send(ring, descriptor, bytes.baseAddress!, bytes.count, tag)
    }

    /// Completes each time `descriptor` becomes readable, until canceled.
    package func pollReadable(_ descriptor: Int32, tag: UInt64) {
        makeRoom()
        trips_io_uring_poll_readable(ring, descriptor, tag)
    }

    /// Cancels everything still in flight on `descriptor`: each such submission completes
    /// with -ECANCELED (or its own result, if it finished first).
    package func cancelAll(on descriptor: Int32, tag: UInt64) {
        makeRoom()
        trips_io_uring_cancel_descriptor(ring, descriptor, tag)
    }

    /// A full submission queue is handed to the kernel at once, without waiting.
    private func makeRoom() {
        while trips_io_uring_is_full(ring) != 0 {
            let result = trips_io_uring_enter(ring, 0, -1)
            if result < 0 && result != -EINTR && result != -EBUSY && result != -EAGAIN { return }
        }
    }

    // MARK: - Completions

    /// Submits everything prepared and waits for at least one completion, or `nanoseconds`
    /// (nil: no limit; zero: no wait). Returns false when the kernel refused the call for good
    /// (the ring is unusable); EINTR and a timeout return true.
    package func submitAndWait(nanoseconds: UInt64?) -> Bool {
        let limit = nanoseconds.map { Int64(clamping: $0) } ?? -1
        let result = trips_io_uring_enter(ring, limit == 0 ? 0 : 1, limit)
        return result >= 0 || result == -EINTR || result == -ETIME || result == -EBUSY || result == -EAGAIN
    }

    /// Calls `body` with the completions ready now (at most `completionCapacity`; call again
    /// for more), after freeing their slots.
    package func takeCompletions(_ body: (UnsafeBufferPointer<Completion>) -> Void) {
        let count = Int(trips_io_uring_take(ring, completions, UInt32(completionCapacity)))
        completions.withMemoryRebound(to: Completion.self, capacity: count) { first in
            body(UnsafeBufferPointer(start: first, count: count))
        }
    }

    // MARK: - Receive buffers

    /// The first `count` bytes of receive buffer `id`.
    package func buffer(_ id: Int32, count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: trips_io_uring_buffer(ring, id), count: count)
    }

    /// Gives receive buffer `id` back to the kernel.
    package func recycle(_ id: Int32) {
        trips_io_uring_recycle(ring, id)
    }
}
