import Foundation
import Glibc
@testable import TripsPlatform
@testable import TripsPostgres
@testable import TripsServer

/// The server's end of a socketpair, played from a script: a test writes what the server
/// says before the client reads it (the socket buffers it), then checks what the client sent.
/// No thread, no port, no sleep.
final class ScriptedPostgresServer {
    /// The server's end; nil once it hung up.
    private var descriptor: FileDescriptor?
    /// The client's end, until a connection takes it.
    private var clientEnd: Int32?

    init() throws {
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Linux.closeOnExec, 0, &ends) == 0 else {
            throw SystemError(call: "socketpair", errno: errno)
        }
        descriptor = FileDescriptor(ends[0])
        clientEnd = ends[1]
    }

    deinit {
        if let clientEnd { close(clientEnd) }
    }

    /// Starts a client session over the client's end; the startup must be queued first.
    func connect(_ configuration: PostgresConnectionConfiguration = scriptedConfiguration()) throws -> PostgresConnection {
        let socket = try clientSocket()
        return try PostgresConnection.start(over: socket, configuration: configuration, deadline: .now + configuration.connectTimeout)
    }

    /// The client's end, once.
    func clientSocket() throws -> ClientSocket {
        guard let raw = clientEnd else { throw TestFailure("the client's end is taken") }
        clientEnd = nil
        return try ClientSocket(adopting: FileDescriptor(raw))
    }

    /// Queues `bytes` for the client.
    func say(_ bytes: [UInt8]) throws {
        guard let raw = descriptor?.rawValue else { throw TestFailure("the server hung up") }
        try bytes.withUnsafeBytes { try writeAll(raw, $0) }
    }

    /// Says `bytes` again and again on a thread of its own, without pause, until the client
    /// hangs up or `limit` passes: a server that never stops talking.
    func keepSaying(_ bytes: [UInt8], for limit: Duration) throws {
        try talkOnItsOwnThread { descriptor in
            let end = ContinuousClock.now + limit
            var offset = 0
            while ContinuousClock.now < end {
                let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { return }  // the client hung up
                offset = (offset + sent) % bytes.count
            }
        }
    }

    /// Says `bytes` once on a thread of its own: more than the socket buffers, which the
    /// client reads as it arrives.
    func sayOnItsOwnThread(_ bytes: [UInt8]) throws {
        try talkOnItsOwnThread { descriptor in
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { return }  // the client hung up
                offset += sent
            }
        }
    }

    /// Runs `talk` on a thread of its own with a copy of the server's end, closed after it:
    /// a test that ends first does not leave it writing to a descriptor number reused by
    /// another.
    private func talkOnItsOwnThread(_ talk: @escaping @Sendable (Int32) -> Void) throws {
        guard let raw = descriptor?.rawValue else { throw TestFailure("the server hung up") }
        let copy = dup(raw)
        guard copy >= 0 else { throw SystemError(call: "dup", errno: errno) }
        Thread {
            defer { close(copy) }
            talk(copy)
        }.start()
    }

    /// The startup a trust server sends: AuthenticationOk, settings, the key, ReadyForQuery.
    func sayTrustStartup() throws {
        try say(
            Wire.authentication(0) + Wire.parameterStatus("server_version", "15.6") + Wire.parameterStatus("client_encoding", "UTF8")
                + Wire.message("K", Wire.int32(4711) + Wire.int32(99)) + Wire.readyForQuery())
    }

    /// Everything the client has sent and the server has not read yet.
    func heard() -> [UInt8] {
        guard let raw = descriptor?.rawValue else { return [] }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(raw, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            guard count > 0 else { return result }
            result += chunk[..<count]
        }
    }

    /// Hangs up, as a server that crashed would.
    func hangUp() { descriptor = nil }
}

/// What the client sends, message by message: frontend messages are type, length, body,
/// except the startup message, which has no type byte.
func frontendMessages(_ bytes: [UInt8], startsWithStartup: Bool = false) -> [(type: Character?, body: [UInt8])] {
    var messages: [(Character?, [UInt8])] = []
    var offset = 0
    func length(at index: Int) -> Int {
        Int(UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3]))
    }
    if startsWithStartup, bytes.count >= 4 {
        let size = length(at: 0)
        messages.append((nil, Array(bytes[4..<min(size, bytes.count)])))
        offset = size
    }
    while offset + 5 <= bytes.count {
        let size = length(at: offset + 1)
        let end = min(offset + 1 + size, bytes.count)
        messages.append((Character(Unicode.Scalar(bytes[offset])), Array(bytes[(offset + 5)..<end])))
        offset = end
    }
    return messages
}

/// A configuration for a scripted server: short timeouts, so a test that waits for a silent
/// server fails fast.
func scriptedConfiguration(
    password: String? = nil, requiring methods: Set<PostgresRequiredAuthentication.Method>? = nil
) -> PostgresConnectionConfiguration {
    var configuration = PostgresConnectionConfiguration(
        address: .unixSocket(directory: "/nowhere", port: 5432), user: "trips", password: password, database: "trips")
    configuration.requiredAuthentication = methods.map(PostgresRequiredAuthentication.init)
    configuration.connectTimeout = .seconds(5)
    configuration.queryTimeout = .seconds(5)
    return configuration
}
