import Glibc

/// Socket set-up shared by the server and its tests.
package enum Socket {
    /// Opens a non-blocking listening socket; returns its descriptor (now the caller's to
    /// close) and the bound port.
    ///
    /// SO_REUSEADDR only lets a restart bind past connections in TIME_WAIT. There is no
    /// SO_REUSEPORT: with it, a second server (any process of the same user) could bind the
    /// same port and silently take part of the traffic; without it, it gets EADDRINUSE.
    package static func listen(host: String, port: Int, backlog: Int32) throws(SystemError) -> (descriptor: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list, let address = list.pointee.ai_addr else {
            throw SystemError(call: "getaddrinfo(\(host))", errno: status == EAI_SYSTEM ? errno : EINVAL)
        }
        defer { freeaddrinfo(list) }
        let family = list.pointee.ai_family
        let raw = try blockingSystemCall("socket") {
            socket(family, Int32(SOCK_STREAM.rawValue) | Linux.nonBlocking | Linux.closeOnExec, 0)
        }
        let descriptor = FileDescriptor(raw)
        try setOption(raw, SOL_SOCKET, SO_REUSEADDR, 1)
        _ = try blockingSystemCall("bind") { bind(raw, address, list.pointee.ai_addrlen) }
        _ = try blockingSystemCall("listen") { Glibc.listen(raw, backlog) }
        let bound = try boundPort(raw)
        return (descriptor.release(), bound)
    }

    /// The local port a socket is bound to.
    package static func boundPort(_ descriptor: Int32) throws(SystemError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                try blockingSystemCall("getsockname") { getsockname(descriptor, address, &length) }
            }
        }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    package static func setOption(_ descriptor: Int32, _ level: Int32, _ option: Int32, _ value: Int32) throws(SystemError) {
        var value = value
        _ = try blockingSystemCall("setsockopt") {
            setsockopt(descriptor, level, option, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Raises the soft limit on open files to the hard limit, so thousands of connections fit.
    package static func raiseOpenFileLimit() {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)  // best effort: the old limit still works
    }

    /// A write to a vanished peer must fail with EPIPE, not kill the process.
    package static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }
}
