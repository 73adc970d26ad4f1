import TripsPlatform

extension HTTPConnection {
    /// The stream a connection follows (`state` is `.streaming`): the hub it is counted in, the
    /// last message it wrote, and what its heartbeat and backlog go by.
    struct Stream {
        /// Held for as long as the stream is: the hub publishes while any stream follows it.
        let following: HTTPStreamHub.Following
        var hub: HTTPStreamHub { following.hub }
        /// The last message sequence written; later messages at or below it are skipped.
        var sequence: UInt64
        /// Chunked for HTTP/1.1; for HTTP/1.0 the content runs until the connection closes.
        let isChunked: Bool
        /// When the stream last wrote anything: a heartbeat is due a heartbeat later.
        var lastSentAt: MonotonicInstant
        /// The hub's backlog capacity the start holds, until nothing written is left unsent.
        var reservation: HTTPStreamBacklog.Reservation?
    }
}
