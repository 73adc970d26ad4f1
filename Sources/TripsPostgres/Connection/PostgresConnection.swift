import Glibc
import TripsPlatform

/// A client connection to PostgreSQL: blocking, single-threaded, over `ClientSocket`.
///
///     let connection = try PostgresConnection.connect(configuration)
///     let rows = try connection.query("SELECT name FROM trips WHERE id = $1", ["7"])
///     // rows.columns == ["name"], rows.rows == [["Lisbon"]], rows.commandTag == "SELECT 1"
///
/// Statements go through the extended protocol (Parse, Bind, Describe, Execute, Sync) with
/// every value as a text parameter: no SQL is ever built from data. A statement marked
/// `isPrepared` is parsed once per session, as a named prepared statement, and then only bound
/// (`PostgresPreparedStatements`). `simpleQuery` takes only string literals, for
/// fixed statements such as `LISTEN` and `BEGIN`.
///
/// A statement the server refuses throws `.server` once the server is ready again, and the
/// connection goes on; a socket failure, a timeout, a malformed or misplaced message, or a
/// FATAL error closes it (`PostgresConnectionError.leavesConnectionUsable`). Notices,
/// setting changes and notifications may arrive between any two messages and are set aside
/// as they come.
///
/// Every call blocks its thread (a thread of our own, never Swift's shared pool) until the
/// server answers or a deadline passes.
/// https://www.postgresql.org/docs/current/protocol-flow.html
package final class PostgresConnection {
    package let configuration: PostgresConnectionConfiguration
    /// nil once closed.
    private var socket: ClientSocket?
    private let decoder: BackendMessageDecoder
    /// Bytes read and not yet decoded: `buffer[readIndex...]`.
    private var buffer: [UInt8] = []
    /// The messages of one send, encoded; kept between sends (up to `keptOutgoingCapacity`)
    /// so that a transaction's messages do not grow a new buffer from nothing each time
    /// (a dozen reallocations a create).
    private var outgoing: [UInt8] = []
    private static let keptOutgoingCapacity = 64 * 1024
    private var readIndex = 0
    /// Where the values of the DataRow being read are in it, kept from row to row.
    private var rowBounds: [Range<Int>?] = []
    /// Notifications that arrived and were not yet handed out: at most
    /// `maxPendingNotifications`, the newest. A connection that never listens is never asked
    /// for them, and a server could send them without end; each says only "look", and the
    /// newest says it too.
    private var notifications: [PostgresNotification] = []
    private static let maxPendingNotifications = 1_024
    /// The named prepared statements this session holds.
    var prepared = PostgresPreparedStatements()

    /// The transaction state the last ReadyForQuery reported.
    package internal(set) var transactionStatus: PostgresTransactionStatus = .idle
    /// How many statements of the last `pipeline` the server finished before it answered or
    /// failed. After a session ended mid-pipeline, the next one may have been under way, and
    /// those past it never ran.
    package internal(set) var answeredStatements = 0
    /// The server's run-time settings (`server_version`, `client_encoding`, `TimeZone`, …), as
    /// ParameterStatus messages reported them, at start-up and on every change.
    /// At most `maxParameters` names (PostgreSQL reports about fifteen): a server naming new
    /// ones without end is not remembered past them. Nor is a setting whose name and value
    /// take more than `maxParameterBytes` (PostgreSQL's are names of at most 63 bytes and
    /// short values): 64 values of a message's 64 MiB each would hold gigabytes for the
    /// connection's life.
    private(set) var parameters: [String: String] = [:]
    private static let maxParameters = 64
    private static let maxParameterBytes = 1_024
    /// What a cancel request for this session would quote.
    private(set) var backendKey: BackendMessage.BackendKeyData?
    /// Called with each NoticeResponse (warnings, `IF EXISTS … skipping`); by default they
    /// are dropped.
    package var noticeHandler: ((PostgresDiagnostic) -> Void)?

    /// How much one read asks the socket for.
    private static let readSize = 64 * 1024
    private static let keptBufferCapacity = 1024 * 1024

    /// The room the read buffer holds: what a test sees let go after a long message.
    var readBufferCapacity: Int { buffer.capacity }

    private init(socket: consuming ClientSocket, configuration: PostgresConnectionConfiguration) {
        self.socket = consume socket
        self.configuration = configuration
        self.decoder = BackendMessageDecoder(maxMessageLength: configuration.maxMessageLength)
    }

    deinit { close() }

    /// Connects, starts the session and authenticates, all within `connectTimeout`.
    package static func connect(_ configuration: PostgresConnectionConfiguration) throws(PostgresConnectionError) -> PostgresConnection {
        let deadline = ContinuousClock.now + configuration.connectTimeout
        let socket: ClientSocket
        do {
            socket = try openSocket(to: configuration.address, deadline: deadline)
        } catch {
            throw .socket(error)
        }
        return try start(over: socket, configuration: configuration, deadline: deadline)
    }

    private static func openSocket(to address: PostgresAddress, deadline: ContinuousClock.Instant) throws(ClientSocketError) -> ClientSocket
    {
        switch address {
        case .tcp(let host, let port): try ClientSocket.connect(host: host, port: port, deadline: deadline)
        case .unixSocket: try ClientSocket.connect(unixSocketPath: address.socketPath ?? "", deadline: deadline)
        }
    }

    /// Starts a session over a socket that is already connected (tests use a socketpair).
    package static func start(
        over socket: consuming ClientSocket, configuration: PostgresConnectionConfiguration, deadline: ContinuousClock.Instant
    ) throws(PostgresConnectionError) -> PostgresConnection {
        let connection = PostgresConnection(socket: socket, configuration: configuration)
        do {
            try connection.perform { () throws(PostgresConnectionError) in try connection.startUp(deadline: deadline) }
        } catch {
            connection.socket = nil  // a session that failed to start is over, whatever the error
            throw error
        }
        return connection
    }

    /// Whether the connection can take a query: not closed, by `close()` or by a failure.
    package var isOpen: Bool { socket != nil }

    /// Runs fixed SQL through the simple protocol: one or more statements, separated by `;`,
    /// such as `LISTEN trips` or `BEGIN ISOLATION LEVEL SERIALIZABLE`. The SQL must be a
    /// literal (nothing built from data reaches the server as SQL); returns one result per
    /// statement.
    @discardableResult
    package func simpleQuery(_ sql: StaticString) throws(PostgresConnectionError) -> [PostgresRows] {
        try perform { () throws(PostgresConnectionError) in
            let deadline = ContinuousClock.now + configuration.queryTimeout
            try send([.query(sql.description)], deadline: deadline)
            return try readSimpleQueryResults(deadline: deadline)
        }
    }

    /// Waits up to `timeout` for notifications on the channels this session LISTENs to;
    /// returns those that arrived (any that came during earlier queries at once), or none when
    /// the time is up.
    package func waitForNotifications(timeout: Duration) throws(PostgresConnectionError) -> [PostgresNotification] {
        try perform { () throws(PostgresConnectionError) in
            try receiveNotifications(until: ContinuousClock.now + timeout)
        }
    }

    /// Says goodbye (Terminate) and closes the socket. Idempotent.
    package func close() {
        guard isOpen else { return }
        var goodbye: [UInt8] = []
        // Terminate holds no data: it always encodes.
        try? FrontendMessage.terminate.encode(into: &goodbye)
        // The session ends either way: a goodbye that cannot be sent (the server already
        // left) changes nothing.
        try? socket?.send(goodbye, deadline: ContinuousClock.now + min(configuration.queryTimeout, .seconds(1)))
        endSession()
    }

    // MARK: - The protocol's steps

    /// Forgets a session the server ended, or whose state is no longer known: the connection
    /// is closed from here on (`isOpen` is false).
    func endSession() {
        socket = nil
        buffer = []
        readIndex = 0
    }

    /// Runs `body` on an open connection; closes the connection after an error that leaves
    /// the protocol's state unknown.
    func perform<Result>(_ body: () throws(PostgresConnectionError) -> Result) throws(PostgresConnectionError) -> Result {
        guard isOpen else { throw .connectionClosed }
        do {
            return try body()
        } catch {
            if !error.leavesConnectionUsable {
                if case .socket(.timedOut) = error { requestCancel() }
                endSession()
            }
            throw error
        }
    }

    /// Asks the server, over a connection of its own, to stop what this session is running (a
    /// statement past its deadline), so that it does not go on holding locks for a client that
    /// gave up. Best effort: the request gets no answer, and one that cannot be sent changes
    /// nothing, since the session is closed next anyway.
    /// https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-CANCELING-REQUESTS
    private func requestCancel() {
        guard let backendKey else { return }
        var request: [UInt8] = []
        guard (try? FrontendMessage.cancelRequest(backendKey).encode(into: &request)) != nil else { return }
        let deadline = ContinuousClock.now + min(configuration.connectTimeout, .seconds(1))
        do {
            let socket = try Self.openSocket(to: configuration.address, deadline: deadline)
            try socket.send(request, deadline: deadline)
        } catch {
            return
        }
    }

    /// Reads until a notification is there or `deadline` passes; hands out all there are.
    private func receiveNotifications(until deadline: ContinuousClock.Instant) throws(PostgresConnectionError) -> [PostgresNotification] {
        var isPastDeadline = false
        while true {
            if let message = try bufferedMessage() {
                // A server that is shutting down says so with a FATAL error, then closes.
                if case .errorResponse(let diagnostic) = message, diagnostic.endsSession {
                    throw .server(PostgresServerError(diagnostic: diagnostic))
                }
                throw .unexpectedMessage(message.kind)
            }
            // Whatever whole messages were read are decoded: hand out what came.
            if !notifications.isEmpty || isPastDeadline { break }
            do {
                try readMore(deadline: deadline)
            } catch {
                guard case .socket(.timedOut) = error else { throw error }
                break
            }
            isPastDeadline = Self.hasPassed(deadline)
        }
        defer { notifications.removeAll() }
        return notifications
    }

    /// Sends `messages` in one write; if one cannot be encoded, sends none.
    func send(_ messages: [FrontendMessage], deadline: ContinuousClock.Instant) throws(PostgresConnectionError) {
        defer {
            // Cleared before it is emptied or freed: a sign-in's messages hold a password or
            // its proof, which a kept buffer would otherwise hold on to.
            outgoing.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            if outgoing.capacity > Self.keptOutgoingCapacity { outgoing = [] } else { outgoing.removeAll(keepingCapacity: true) }
        }
        for message in messages {
            do {
                try message.encode(into: &outgoing)
            } catch {
                throw .encoding(error)
            }
        }
        let sent: Void?
        do {
            sent = try socket?.send(outgoing, deadline: deadline)
        } catch {
            guard case .system(let failure) = error, failure.errno == EPIPE || failure.errno == ECONNRESET else { throw .socket(error) }
            throw farewell()
        }
        guard sent != nil else { throw .connectionClosed }
    }

    /// Takes a DataRow read in place, or throws when no row is expected there.
    typealias DataRowSink = (PostgresRowValues) throws(PostgresConnectionError) -> Void

    /// The sink where rows are not expected: a DataRow there is out of place.
    static func refuseDataRow(_ row: PostgresRowValues) throws(PostgresConnectionError) {
        throw .unexpectedMessage(.dataRow)
    }

    /// The next message that is neither asynchronous nor a DataRow, reading as needed until
    /// `deadline`; DataRows on the way go to `dataRow`.
    func nextMessage(
        deadline: ContinuousClock.Instant, dataRow: DataRowSink = refuseDataRow
    ) throws(PostgresConnectionError) -> BackendMessage {
        while true {
            if let message = try bufferedMessage(dataRow: dataRow) { return message }
            try readMore(deadline: deadline)
            if Self.hasPassed(deadline) { throw .socket(.timedOut) }
        }
    }

    /// Whether `deadline` has passed. The socket checks it when a read would wait; a server that
    /// never pauses (notices, rows or settings without end) never makes a read wait, so the
    /// loops that read until an answer is whole ask this too after each read.
    private static func hasPassed(_ deadline: ContinuousClock.Instant) -> Bool {
        ContinuousClock.now >= deadline
    }

    /// The next whole message in the buffer that is neither asynchronous nor a DataRow; nil
    /// if there is none yet. DataRows go to `dataRow` as they are read; notices, parameter
    /// changes and notifications are set aside on the way.
    private func bufferedMessage(dataRow: DataRowSink = refuseDataRow) throws(PostgresConnectionError) -> BackendMessage? {
        while true {
            if readIndex < buffer.count, buffer[readIndex] == BackendMessage.Kind.dataRow.rawValue {
                guard try takeDataRow(dataRow) else { return nil }
                continue
            }
            let start = readIndex
            if let (message, consumed) = buffer.withUnsafeBytes({
                BackendMessageDecoder.shortMessage(UnsafeRawBufferPointer(rebasing: $0[start...]))
            }) {
                readIndex += consumed
                return message
            }
            let decoder = decoder
            let outcome = buffer.withUnsafeBytes { bytes in
                Result { () throws(PostgresWireError) in try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[start...])) }
            }
            let step: BackendMessageDecoder.Step
            do {
                step = try outcome.get()
            } catch {
                throw .wire(error)
            }
            guard case .message(let message, let consumed) = step else { return nil }
            readIndex += consumed
            switch message {
            case .noticeResponse(let diagnostic): noticeHandler?(diagnostic)
            case .parameterStatus(let name, let value):
                if name.utf8.count + value.utf8.count > Self.maxParameterBytes {
                    parameters[name] = nil  // its last value is out of date, and this one too long to keep
                } else if parameters.count < Self.maxParameters || parameters[name] != nil {
                    parameters[name] = value
                }
            case .notificationResponse(let notification):
                if notifications.count == Self.maxPendingNotifications { notifications.removeFirst(Self.maxPendingNotifications / 2) }
                notifications.append(notification)
            default: return message
            }
        }
    }

    /// Hands the DataRow at the read index to `sink`, read in place, once it is whole; false
    /// while more bytes are needed.
    private func takeDataRow(_ sink: DataRowSink) throws(PostgresConnectionError) -> Bool {
        let start = readIndex
        let decoder = decoder
        let outcome = buffer.withUnsafeBytes { bytes in
            Result { () throws(PostgresConnectionError) -> Int? in
                let input = UnsafeRawBufferPointer(rebasing: bytes[start...])
                let consumed: Int?
                do throws(PostgresWireError) {
                    consumed = try decoder.dataRow(input, bounds: &rowBounds)
                } catch {
                    throw .wire(error)
                }
                guard let consumed else { return nil }
                try sink(PostgresRowValues(message: UnsafeRawBufferPointer(rebasing: input[..<consumed]), bounds: rowBounds))
                return consumed
            }
        }
        guard let consumed = try outcome.get() else { return false }
        readIndex += consumed
        return true
    }

    /// Why the server hung up, when a send finds it gone: the FATAL error it left before
    /// closing (an administrator's shutdown, an idle session timeout), if it is there to read.
    private func farewell() -> PostgresConnectionError {
        while true {
            do {
                if let message = try bufferedMessage() {
                    guard case .errorResponse(let diagnostic) = message, diagnostic.endsSession else { return .closedByServer }
                    return .server(PostgresServerError(diagnostic: diagnostic))
                }
                try readMore(deadline: .now)  // what is there already; no waiting
            } catch {
                return .closedByServer
            }
        }
    }

    /// Reads more bytes onto the buffer, dropping the decoded ones first. A buffer grown past
    /// `keptBufferCapacity` by a long message is let go at the first read after it is all
    /// decoded: a pooled connection holds the largest row it ever read only until its next
    /// statement, not for good.
    private func readMore(deadline: ContinuousClock.Instant) throws(PostgresConnectionError) {
        if readIndex == buffer.count, buffer.capacity > Self.keptBufferCapacity {
            buffer = []
        } else if readIndex > 0 {
            buffer.removeSubrange(..<readIndex)
        }
        readIndex = 0
        let count: Int?
        do {
            count = try socket?.receive(into: &buffer, maxCount: Self.readSize, deadline: deadline)
        } catch {
            guard case .system(let failure) = error, failure.errno == ECONNRESET else { throw .socket(error) }
            throw .closedByServer
        }
        guard let count else { throw .connectionClosed }
        guard count > 0 else { throw .closedByServer }
    }

    /// Start-up: authentication, then the session's settings and key, until ReadyForQuery.
    /// https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-START-UP
    private func startUp(deadline: ContinuousClock.Instant) throws(PostgresConnectionError) {
        try send(
            [.startup(user: configuration.user, database: configuration.database, applicationName: configuration.applicationName)],
            deadline: deadline)
        var authentication = AuthenticationState.waiting
        while true {
            let message = try nextMessage(deadline: deadline)
            switch message {
            case .authentication(let request):
                if let answer = try authentication.answer(request, configuration: configuration) {
                    try send([answer], deadline: deadline)
                }
            case .backendKeyData(let key) where authentication.isDone:
                backendKey = key
            case .negotiateProtocolVersion:
                // We ask for 3.0 with no options, the oldest version there is: nothing to lower.
                continue
            case .readyForQuery(let status) where authentication.isDone:
                transactionStatus = status
                return
            case .errorResponse(let diagnostic):
                throw .server(PostgresServerError(diagnostic: diagnostic))
            default:
                throw .unexpectedMessage(message.kind)
            }
        }
    }
}

@available(*, unavailable) extension PostgresConnection: Sendable {}
