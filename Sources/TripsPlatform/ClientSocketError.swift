import Glibc

/// Why a client socket could not connect, send or receive.
package enum ClientSocketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The deadline passed before the peer answered (or took our bytes).
    case timedOut
    /// getaddrinfo found no address for the host; `code` is its EAI_ code.
    case addressResolution(host: String, code: Int32)
    /// A Unix socket path longer than `sockaddr_un` holds.
    case socketPathTooLong(String)
    /// A system call failed.
    case system(SystemError)

    package var description: String {
        switch self {
        case .timedOut: "timed out"
        case .addressResolution(let host, let code): "cannot resolve \(host): \(String(cString: gai_strerror(code)))"
        case .socketPathTooLong(let path): "the socket path \(path) is too long"
        case .system(let error): error.description
        }
    }
}
