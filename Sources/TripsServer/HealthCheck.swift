import Glibc

/// `trips-server --check-health`: a container health check that needs no curl.
enum HealthCheck {
    /// Sends `GET /readyz` to the server and says whether it answered 200 (ready) within five seconds.
    static func run(host: String, port: Int) -> Bool {
        let address = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address, String(port), &hints, &results) == 0, let info = results else { return false }
        defer { freeaddrinfo(results) }
        let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else { return false }
        // `localhost`, a name every server answers (an IPv6 address would need brackets, and
        // another address may not be in --allowed-host).
        let request = Array("GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return false }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return count >= 12 && buffer[0..<12].elementsEqual("HTTP/1.1 200".utf8)
    }
}
