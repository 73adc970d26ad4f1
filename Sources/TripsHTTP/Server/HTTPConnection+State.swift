import TripsPlatform

extension HTTPConnection {
    /// Where a connection is: what it reads, what it writes, and when it closes.
    enum State: Equatable {
        /// Reading and answering requests.
        case open
        /// A handler answered `.later`; no further request is read until it responds.
        case awaitingResponse
        /// A handler answered `.stream`: the head is out, and messages follow until the end.
        /// Whatever the client sends meanwhile is read and dropped, to see it leave.
        case streaming
        /// The last response is written (or being written); then the write side is shut.
        case closing
        /// The write side is shut; reads are drained and dropped until EOF or the deadline, so
        /// that unread request bytes do not turn the close into a reset that loses the response.
        case lingering(until: MonotonicInstant)
        /// Close the socket now.
        case closed
    }
}
