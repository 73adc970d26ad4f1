import TripsHTTP
import TripsPlatform

/// Whose bucket a request takes from: its token's (a bearer token or a session signed in with
/// one), or, without a token, its client address's.
enum RateLimitClient: Sendable, Hashable {
    case token(String)
    /// An IPv4 address, or the first 64 bits of an IPv6 one (`IPAddress.network`): one IPv6
    /// client usually holds a whole /64, and would otherwise get a bucket per address.
    case address(IPAddress)

    /// The client a request comes from: the token's name when it has one, else its address.
    init(user: String?, address: IPAddress) {
        self = user.map { .token($0) } ?? .address(address.network)
    }
}

/// The proxies whose word on the client's address is taken (`--trusted-proxy`): from one of
/// them, a request's client is the address its `X-Real-IP` names; from any other peer,
/// `X-Real-IP` (and `X-Forwarded-For`, `Forwarded`, which are never read) is the client's
/// own claim, and the client is the peer.
struct TrustedProxies: Sendable, Equatable {
    let addresses: Set<IPAddress>

    init(_ addresses: some Sequence<IPAddress> = []) {
        self.addresses = Set(addresses)
    }

    /// The client's address for a request from `peer` (`::` when unknown, one shared bucket
    /// rather than none): `X-Real-IP` when `peer` is a trusted proxy and it sent exactly one
    /// valid address, else `peer`.
    func client(of request: HTTPRequest, peer: IPAddress?) -> IPAddress {
        guard let peer else { return .unspecified }
        guard addresses.contains(peer) else { return peer }
        let values = request.headerFields.values(for: .xRealIP)
        guard values.count == 1, let address = IPAddress(values[0]) else { return peer }
        return address
    }
}
