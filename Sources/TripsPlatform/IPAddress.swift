import Glibc

/// An IPv4 or IPv6 address as a value: 16 bytes, an IPv4 address held as IPv6 holds it
/// (`::ffff:192.0.2.1`), so the two spellings of one IPv4 peer are one key.
///
/// Parsed once where it enters (the socket's peer at `accept`, a trusted proxy's
/// `X-Real-IP`), then compared and hashed as two integers.
package struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The first and the last 8 bytes, in network order read as big-endian integers.
    private var high: UInt64
    private var low: UInt64

    /// `::`, the unspecified address: stands for a peer whose address is unknown.
    package static let unspecified = IPAddress(high: 0, low: 0)

    private init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The IPv4 address `a.b.c.d` given as the 32-bit number `0xaabbccdd`.
    package init(ipv4: UInt32) {
        self.init(high: 0, low: 0xffff_0000_0000 | UInt64(ipv4))
    }

    /// The 16 bytes of an IPv6 address, in network order.
    package init(
        ipv6 bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)
    ) {
        let (high, low) = withUnsafeBytes(of: bytes) { raw in
            (
                UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)),
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
        self.init(high: high, low: low)
    }

    /// A numeric address as `inet_pton` reads one (`192.0.2.1`, `2001:db8::1`,
    /// `::ffff:192.0.2.1`); nil for anything else, a host name or a port included.
    package init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.utf8.count <= Int(INET6_ADDRSTRLEN) else { return nil }
        let string = String(text)
        var ipv4 = in_addr()
        if inet_pton(AF_INET, string, &ipv4) == 1 {
            self.init(ipv4: UInt32(bigEndian: ipv4.s_addr))
            return
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, string, &ipv6) == 1 else { return nil }
        self.init(ipv6: ipv6.__in6_u.__u6_addr8)
    }

    /// The address in a `sockaddr_in` or `sockaddr_in6`; nil for another family.
    package init?(_ storage: sockaddr_storage) {
        var storage = storage
        let family = Int32(storage.ss_family)
        let address: IPAddress? = withUnsafePointer(to: &storage) { pointer in
            switch family {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    IPAddress(ipv4: UInt32(bigEndian: $0.pointee.sin_addr.s_addr))
                }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { IPAddress(ipv6: $0.pointee.sin6_addr.__in6_u.__u6_addr8) }
            default: nil
            }
        }
        guard let address else { return nil }
        self = address
    }

    /// Whether it is an IPv4 address.
    package var isIPv4: Bool { high == 0 && low >> 32 == 0xffff }

    /// The network an IPv6 address belongs to, its first 64 bits (the rest zero): what one
    /// subscriber is usually given, and so what one client can spread its requests over.
    /// An IPv4 address is itself.
    package var network: IPAddress { isIPv4 ? self : IPAddress(high: high, low: 0) }

    /// `192.0.2.1` for an IPv4 address, as `inet_ntop` writes IPv6 otherwise (`2001:db8::1`).
    package var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: UnsafePointer<CChar>?
        if isIPv4 {
            var ipv4 = in_addr(s_addr: UInt32(truncatingIfNeeded: low).bigEndian)
            written = inet_ntop(AF_INET, &ipv4, &text, socklen_t(text.count))
        } else {
            var bytes = (high.bigEndian, low.bigEndian)
            written = inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count))
        }
        guard written != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
