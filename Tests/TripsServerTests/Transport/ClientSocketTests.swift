import Glibc
import Testing
@testable import TripsPlatform
@testable import TripsServer

/// The blocking client socket against listeners of our own: port 0, no fixed ports, and the
/// waits on threads of their own.
@Suite struct ClientSocketTests {
    @Test func itConnectsOverTCPAndExchangesBytes() async throws {
        let echoed = try await onOwnThread {
            let listener = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 4)
            let listening = FileDescriptor(listener.descriptor)
            let deadline = ContinuousClock.now + .seconds(5 * TestTimeout.scale)
            let client = try ClientSocket.connect(host: "127.0.0.1", port: listener.port, deadline: deadline)
            // The listener is non-blocking: wait until the connection is in its queue.
            var ready = pollfd(fd: listening.rawValue, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 5_000) == 1 else { throw TestFailure("no connection to accept") }
            let accepted = accept(listening.rawValue, nil, nil)
            guard accepted >= 0 else { throw SystemError(call: "accept", errno: errno) }
            let server = try ClientSocket(adopting: FileDescriptor(accepted))
            try client.send(Array("ping".utf8), deadline: deadline)
            var received: [UInt8] = []
            while received.count < 4 {
                guard try server.receive(into: &received, maxCount: 16, deadline: deadline) > 0 else { break }
            }
            return received
        }
        #expect(echoed == Array("ping".utf8))
    }

    @Test func aPortWithNoListenerIsRefused() async throws {
        let error = try await onOwnThread { () -> ClientSocketError? in
            // Bound but not listening: nothing can connect, and no other test can take the port.
            let raw = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let bound = FileDescriptor(raw)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(bound.rawValue, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            let port = try Socket.boundPort(bound.rawValue)
            do {
                _ = try ClientSocket.connect(host: "127.0.0.1", port: port, deadline: .now + .seconds(5 * TestTimeout.scale))
                return nil
            } catch let error as ClientSocketError {
                return error
            }
        }
        #expect(error == .system(SystemError(call: "connect", errno: ECONNREFUSED)))
    }

    @Test func aSilentPeerTimesOutAtTheDeadline() async throws {
        let (error, waited) = try await onOwnThread { () -> (ClientSocketError?, Duration) in
            let listener = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 4)
            let listening = FileDescriptor(listener.descriptor)
            let client = try ClientSocket.connect(host: "127.0.0.1", port: listener.port, deadline: .now + .seconds(5 * TestTimeout.scale))
            _ = listening.rawValue  // the listener stays open (and silent) while the client waits
            let started = ContinuousClock.now
            var buffer: [UInt8] = []
            do {
                _ = try client.receive(into: &buffer, maxCount: 16, deadline: started + .milliseconds(30))
                return (nil, .zero)
            } catch let error as ClientSocketError {
                return (error, ContinuousClock.now - started)
            }
        }
        #expect(error == .timedOut)
        #expect(waited >= Duration.milliseconds(30))
    }

    @Test func aMissingUnixSocketIsASystemErrorAndALongPathIsRefused() async throws {
        let (missing, long) = try await onOwnThread { () -> (ClientSocketError?, ClientSocketError?) in
            func attempt(_ path: String) -> ClientSocketError? {
                do {
                    _ = try ClientSocket.connect(unixSocketPath: path, deadline: .now + .seconds(5 * TestTimeout.scale))
                    return nil
                } catch {
                    return error
                }
            }
            return (attempt("/nonexistent-trips-folder/.s.PGSQL.5432"), attempt("/" + String(repeating: "x", count: 200)))
        }
        #expect(missing == .system(SystemError(call: "connect", errno: ENOENT)))
        #expect(long == .socketPathTooLong("/" + String(repeating: "x", count: 200)))
    }

    @Test(arguments: [
        (Duration.nanoseconds(1), Int32(1)), (.milliseconds(1), 1), (.microseconds(1_500), 2), (.seconds(2), 2_000),
        (.seconds(Int64(Int32.max)), Int32.max),
    ])
    func pollWaitsAreRoundedUpToWholeMilliseconds(duration: Duration, milliseconds: Int32) {
        #expect(ClientSocket.milliseconds(duration) == milliseconds)
    }
}
