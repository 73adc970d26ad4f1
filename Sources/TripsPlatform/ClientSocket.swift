import Glibc

/// A blocking client socket whose every wait ends at a deadline: connect, send and receive
/// wait in poll(2) on a non-blocking descriptor, so a silent peer cannot hold the thread.
///
/// For Trips as a client of other servers (PostgreSQL). It belongs to one thread at a time,
/// on a thread of our own, never Swift's shared pool (it blocks). Closes on drop.
package struct ClientSocket: ~Copyable {
    private let descriptor: FileDescriptor

    /// Adopts a connected socket (tests use one end of a socketpair) and makes it non-blocking.
    package init(adopting descriptor: consuming FileDescriptor) throws(ClientSocketError) {
        let raw = descriptor.rawValue
        self.descriptor = descriptor
        do {
            let flags = try blockingSystemCall("fcntl") { fcntl(raw, F_GETFL) }
            _ = try blockingSystemCall("fcntl") { fcntl(raw, F_SETFL, flags | O_NONBLOCK) }
        } catch {
            throw .system(error)
        }
    }

    /// Connects over TCP to the first address of `host` that accepts, trying them in
    /// getaddrinfo's order. Name resolution itself cannot be bounded by the deadline
    /// (getaddrinfo blocks); a numeric address or /etc/hosts entry resolves at once.
    package static func connect(host: String, port: Int, deadline: ContinuousClock.Instant) throws(ClientSocketError) -> ClientSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            if status == EAI_SYSTEM { throw .system(SystemError(call: "getaddrinfo", errno: errno)) }
            throw .addressResolution(host: host, code: status)
        }
        defer { freeaddrinfo(list) }
        var failure = ClientSocketError.addressResolution(host: host, code: EAI_NONAME)
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            guard let address = current.pointee.ai_addr else { continue }
            do {
                let socket = try connect(
                    family: current.pointee.ai_family, address: address, length: current.pointee.ai_addrlen, deadline: deadline)
                try socket.tuneForQueries()
                return socket
            } catch {
                if error == .timedOut { throw error }
                failure = error
            }
        }
        throw failure
    }

    /// No Nagle delay (queries are small request-response exchanges), and keep-alive probes (a
    /// connection that waits for notifications may sit idle for hours; the kernel should
    /// notice a peer that vanished).
    private func tuneForQueries() throws(ClientSocketError) {
        do {
            try Socket.setOption(descriptor.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            try Socket.setOption(descriptor.rawValue, SOL_SOCKET, SO_KEEPALIVE, 1)
        } catch {
            throw .system(error)
        }
    }

    /// Connects to the Unix socket at `path`.
    package static func connect(unixSocketPath path: String, deadline: ContinuousClock.Instant) throws(ClientSocketError) -> ClientSocket {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard bytes.count < capacity, !bytes.contains(0) else { throw .socketPathTooLong(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { pathBytes in
            pathBytes.copyBytes(from: bytes)
            pathBytes[bytes.count] = 0
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + 1)
        let outcome = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                Result { () throws(ClientSocketError) in
                    try connect(family: AF_UNIX, address: address, length: length, deadline: deadline)
                }
            }
        }
        return try outcome.get()
    }

    /// Opens a socket of `family` and connects it to `address`, waiting until `deadline`.
    private static func connect(
        family: Int32, address: UnsafePointer<sockaddr>, length: socklen_t, deadline: ContinuousClock.Instant
    ) throws(ClientSocketError) -> ClientSocket {
        let raw: Int32
        do {
            raw = try blockingSystemCall("socket") {
                Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Linux.nonBlocking | Linux.closeOnExec, 0)
            }
        } catch {
            throw .system(error)
        }
        let socket = ClientSocket(owning: FileDescriptor(raw))
        if Glibc.connect(raw, address, length) != 0 {
            // EINPROGRESS: a TCP handshake under way; EINTR: it goes on in the background.
            // Either way the socket turns writable when it is done.
            let code = errno
            guard code == EINPROGRESS || code == EINTR else { throw .system(SystemError(call: "connect", errno: code)) }
            try socket.wait(for: Int16(POLLOUT), until: deadline)
            var failure: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(raw, SOL_SOCKET, SO_ERROR, &failure, &size) == 0 else {
                throw .system(SystemError(call: "getsockopt", errno: errno))
            }
            guard failure == 0 else { throw .system(SystemError(call: "connect", errno: failure)) }
        }
        return socket
    }

    private init(owning descriptor: consuming FileDescriptor) {
        self.descriptor = descriptor
    }

    /// Sends every byte of `bytes`, waiting for room as long as `deadline` allows.
    package func send(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(ClientSocketError) {
        let raw = descriptor.rawValue
        var offset = 0
        while offset < bytes.count {
            let outcome: IOResult<Int>
            do {
                outcome = try systemCall("send") {
                    bytes.withUnsafeBytes { Glibc.send(raw, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                }
            } catch {
                throw .system(error)
            }
            switch outcome {
            case .done(let count): offset += count
            case .wouldBlock: try wait(for: Int16(POLLOUT), until: deadline)
            }
        }
    }

    /// Reads what is there (up to `maxCount` bytes) onto the end of `buffer`, waiting for
    /// the first byte as long as `deadline` allows. Returns the count; 0 means the peer closed.
    package func receive(into buffer: inout [UInt8], maxCount: Int, deadline: ContinuousClock.Instant) throws(ClientSocketError) -> Int {
        let raw = descriptor.rawValue
        // Read into scratch space and copy what came: appending `maxCount` placeholder bytes
        // to the buffer and trimming them again costs more than the copy.
        return try withUnsafeTemporaryAllocation(byteCount: maxCount, alignment: 1) { scratch throws(ClientSocketError) in
            while true {
                switch try Self.receiveOnce(raw, into: scratch) {
                case .done(let count):
                    buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<count]))
                    return count
                case .wouldBlock:
                    try wait(for: Int16(POLLIN), until: deadline)
                }
            }
        }
    }

    /// One recv(2) into `scratch`.
    private static func receiveOnce(_ raw: Int32, into scratch: UnsafeMutableRawBufferPointer) throws(ClientSocketError) -> IOResult<Int> {
        do {
            return try systemCall("recv") { Glibc.recv(raw, scratch.baseAddress, scratch.count, 0) }
        } catch {
            throw .system(error)
        }
    }

    /// Waits in poll(2) for `events` (or an error or hang-up, which the next call reports).
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) throws(ClientSocketError) {
        var entry = pollfd(fd: descriptor.rawValue, events: events, revents: 0)
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw .timedOut }
            let ready = poll(&entry, 1, Self.milliseconds(remaining))
            if ready > 0 { return }
            if ready < 0 {
                let code = errno
                guard code == EINTR else { throw .system(SystemError(call: "poll", errno: code)) }
            }
        }
    }

    /// `duration` in whole milliseconds, rounded up so a wait never ends before its deadline.
    package static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64(Int32.max / 1000) else { return Int32.max }
        let partial = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(seconds * 1000 + partial)
    }
}
