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

    /// Whether a request with this `Host` field (already checked by the parser: a name or an
    /// address, and an optional port) is answered.
    func allows(_ host: String?) -> Bool {
        guard !allowsAnyHost, var host else { return true }
        return host.withUTF8 { field in
            let name = Self.name(of: UnsafeRawBufferPointer(field))
            return Self.isLoopbackName(name) || names.contains { allowed in Self.equalsIgnoringCase(name, allowed) }
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

    /// `localhost`, `[::1]`, or a dotted IPv4 address in 127.0.0.0/8: told apart by the first
    /// byte, so every request's `Host` is compared with one of them only.
    private static func isLoopbackName(_ name: UnsafeRawBufferPointer) -> Bool {
        switch name.first {
        case UInt8(ascii: "1"): isIPv4Loopback(name)
        case UInt8(ascii: "["): name.equals("[::1]")
        default: equalsCaseInsensitive(name, "localhost")
        }
    }

    /// The host of a `Host` field without its port: `[::1]` of `[::1]:8080`, `localhost` of `localhost:8080`.
    private static func name(of field: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let end =
            field.first == UInt8(ascii: "[")
            ? (field.firstIndex(of: UInt8(ascii: "]")).map { $0 + 1 } ?? field.count)
            : (field.firstIndex(of: UInt8(ascii: ":")) ?? field.count)
        return UnsafeRawBufferPointer(rebasing: field[..<end])
    }

    /// Four decimal numbers of 0 to 255 separated by dots, the first 127.
    private static func isIPv4Loopback(_ name: UnsafeRawBufferPointer) -> Bool {
        var octets = 0
        var value = 0
        var digits = 0
        var first = 0
        for byte in name {
            if let digit = digitValue(byte) {
                value = value * 10 + digit
                digits += 1
                guard digits <= 3, value <= 255 else { return false }
            } else {
                guard byte == UInt8(ascii: "."), digits > 0, octets < 3 else { return false }
                if octets == 0 { first = value }
                octets += 1
                value = 0
                digits = 0
            }
        }
        return octets == 3 && digits > 0 && first == 127
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
