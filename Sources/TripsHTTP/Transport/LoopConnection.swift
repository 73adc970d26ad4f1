import TripsPlatform

/// The protocol side of one connection as an event loop drives it, without its socket: fed the
/// bytes read and the time, it appends what to write to an output buffer, and says through
/// `lifecycle`, `isReadable` and `deadline()` what the loop should do next. The loop owns the
/// socket, the shared buffers and the epoll set, and knows nothing of the protocol spoken.
///
/// (swift-nio's `SelectableEventLoop` moves bytes and wakes channel handlers the same way.)
/// The loop is generic over its connection type, so these calls are direct, not dynamic.
/// (`SendableMetatype`: the loop's mailbox, generic over the type, is handed across threads.)
protocol LoopConnection: AnyObject, SendableMetatype {
    /// What the connections of one loop share; made on the loop's thread, confined to it.
    associatedtype Environment: LoopEnvironment
    /// Work finished on another thread for one connection (a deferred answer), posted through
    /// the loop's mailbox.
    associatedtype Reply: Sendable
    /// A message published to every connection on every loop that follows the stream.
    associatedtype StreamMessage: Sendable

    /// A connection accepted from `peer` (nil when the socket's peer has no IP address).
    init(id: ConnectionID, peer: IPAddress?, environment: Environment, now: MonotonicInstant)

    var id: ConnectionID { get }
    /// Bytes the socket did not take yet; the loop writes them and trims what was sent.
    var pendingOutput: [UInt8] { get set }
    /// Whether the loop should read from the socket now.
    var isReadable: Bool { get }
    /// Whether input held back while the client did not read can be taken up now.
    var canResume: Bool { get }
    /// Whether the connection follows the stream (and so hears every `StreamMessage`).
    var isStreaming: Bool { get }
    /// Whether the loop keeps, half-closes or closes the socket.
    var lifecycle: LoopConnectionLifecycle { get }

    /// Takes bytes read from the socket and appends any answers to `output`.
    func receive(_ bytes: UnsafeRawBufferPointer, now: MonotonicInstant, output: inout [UInt8])
    /// Takes up input held back while the client did not read; see `canResume`.
    func resume(now: MonotonicInstant, output: inout [UInt8])
    /// The peer shut its write side (a read returned 0).
    func peerDidClose()
    /// The socket took some output.
    func noteWriteProgress(now: MonotonicInstant)
    /// The loop shut the write side after the last output (`lifecycle` was `.closing`).
    func beginLingering(now: MonotonicInstant)
    /// The loop closed the socket.
    func didClose()
    /// A reply posted from another thread to this connection.
    func complete(_ reply: Reply, now: MonotonicInstant, output: inout [UInt8])
    /// A message published to the stream; called only while `isStreaming`.
    func deliver(_ message: StreamMessage, now: MonotonicInstant, output: inout [UInt8])
    /// When this connection next needs attention, or nil if it waits on nothing that can time out.
    func deadline() -> MonotonicInstant?
    /// Acts on a passed deadline.
    func expire(now: MonotonicInstant, output: inout [UInt8])
    /// The server shuts down: finish or close, appending any last bytes to `output`.
    func beginShutdown(output: inout [UInt8])
}

/// What the loop does with a connection's socket.
enum LoopConnectionLifecycle {
    /// Keep reading and writing.
    case open
    /// Once the pending output is written, shut the write side and call `beginLingering`.
    case closing
    /// Close the socket now.
    case closed
}
