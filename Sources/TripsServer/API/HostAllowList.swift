import Glibc
import TripsHTTP

/// The `Host` names the server answers, against DNS rebinding: a page on `attacker.example`
/// whose name is made to resolve to 127.0.0.1 reaches this server with that name in `Host`,
/// and is refused with 421 before anything is read or changed.
///
/// Loopback names and addresses are always answered (`localhost`, `127.0.0.0/8`, `[::1]`,
/// with any port), and so are the names given with `--allowed-host` (any port, any case). A
/// server that listens beyond loopback with no `--allowed-host` answers every `Host`: it
/// cannot know the names it is reached by. A request without `Host` (HTTP/1.0) names none
/// and is answered: browsers always send one.
///
/// Parsed once at start-up; `allows` runs on every request and allocates nothing.
struct HostAllowList: Sendable {
    /// Every `Host` is answered.
    let allowsAnyHost: Bool
    /// The `--allowed-host` names, lowercased, IPv6 addresses in brackets.
    private let names: [[UInt8]]

    /// Loopback names only: a server on loopback (the default) with no `--allowed-host`.
    static let loopback = HostAllowList(allowsAnyHost: false, names: [])
    /// Any name: a server beyond loopback with no `--allowed-host`.
    static let anyHost = HostAllowList(allowsAnyHost: true, names: [])

    private init(allowsAnyHost: Bool, names: [[UInt8]]) {
        self.allowsAnyHost = allowsAnyHost
        self.names = names
    }

    /// What a server listening on `address` answers, given the `--allowed-host` names as
    /// `spelling(of:)` gives them.
    init(listeningOn address: String, allowedHosts: [String]) {
        allowsAnyHost = allowedHosts.isEmpty && !Self.isLoopback(address)
        names = allowedHosts.map { Array($0.utf8) }
    }

    /// A host name or address as a browser spells it in `Host`: lowercased, an IPv6 address
    /// in brackets and in its shortest form (`[fe80::1]`); nil for anything else, a port included.
    ///
    ///     HostAllowList.spelling(of: "Trips.Example.com")    // "trips.example.com"
    ///     HostAllowList.spelling(of: "FE80:0:0:0:0:0:0:1")   // "[fe80::1]"
    ///     HostAllowList.spelling(of: "trips.example.com:80") // nil
    static func spelling(of name: String) -> String? {
        let unbracketed = name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
        var address = in6_addr()
        if inet_pton(AF_INET6, unbracketed, &address) == 1 {
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
            return "[\(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))]"
        }
        var candidate = name
        let isName = candidate.withUTF8 { isValidHost(UnsafeRawBufferPointer($0)) }
        guard !name.isEmpty, isName, !name.contains(":"), !name.contains("[") else { return nil }
        return name.lowercased()
    }

    /// Whether `request` is answered: the parser has already told a loopback `Host` (once per
    /// distinct value on a connection, as it checked the field), and any other is read here.
    func allows(_ request: HTTPRequest) -> Bool {
        allowsAnyHost || request.namesLoopbackHost || allows(request.headerFields[.host])
    }

    /// Whether a request with this `Host` field (already checked by the parser: a name or an
    /// address, and an optional port) is answered.
    func allows(_ host: String?) -> Bool {
        guard !allowsAnyHost, var host else { return true }
        return host.withUTF8 { field in
            let name = hostName(of: UnsafeRawBufferPointer(field))
            return isLoopbackName(name) || names.contains { allowed in Self.equalsIgnoringCase(name, allowed) }
        }
    }

    /// Whether the server's own address is loopback (`127.0.0.0/8`, `::1`, `localhost`): then
    /// it may run without tokens, and answers loopback names only.
    static func isLoopback(_ address: String) -> Bool {
        var address = address
        return address.withUTF8 { bytes in
            let bytes = UnsafeRawBufferPointer(bytes)
            return bytes.equals("::1") || isLoopbackName(bytes)
        }
    }

    private static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercased: [UInt8]) -> Bool {
        guard bytes.count == lowercased.count else { return false }
        for index in 0..<bytes.count where asciiLowercased(bytes[index]) != lowercased[index] { return false }
        return true
    }
}

extension APIError {
    /// 421: the request names a host this server does not answer for (DNS rebinding).
    static let misdirected = APIError(
        .misdirectedRequest,
        "This server does not answer for the host this request names: reach it as localhost, or by a name given with --allowed-host.")
}
