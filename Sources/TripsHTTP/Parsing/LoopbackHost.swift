// MARK: - Hosts that name this machine

/// Whether a `Host` field value (checked by `isValidHost`: a name or an address, and an
/// optional port) names this machine: `localhost`, `[::1]` or an IPv4 address in 127.0.0.0/8,
/// with any port. The parser tells it once per distinct value on a connection
/// (`HostValidation`), so that the server's DNS-rebinding check need not read the field again
/// on every request.
package func isLoopbackHost(_ field: UnsafeRawBufferPointer) -> Bool {
    isLoopbackName(hostName(of: field))
}

/// `localhost`, `[::1]`, or a dotted IPv4 address in 127.0.0.0/8: told apart by the first
/// byte, so a name is compared with one of them only.
package func isLoopbackName(_ name: UnsafeRawBufferPointer) -> Bool {
    switch name.first {
    case UInt8(ascii: "1"): isIPv4Loopback(name)
    case UInt8(ascii: "["): name.equals("[::1]")
    default: equalsCaseInsensitive(name, "localhost")
    }
}

/// The host of a `Host` field without its port: `[::1]` of `[::1]:8080`, `localhost` of
/// `localhost:8080`. Found by a plain loop: `firstIndex(of:)` on raw bytes costs several times as much.
package func hostName(of field: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    let isBracketed = field.first == UInt8(ascii: "[")
    let last = isBracketed ? UInt8(ascii: "]") : UInt8(ascii: ":")
    var end = 0
    while end < field.count, field[end] != last { end += 1 }
    if isBracketed, end < field.count { end += 1 }
    return UnsafeRawBufferPointer(rebasing: field[..<end])
}

/// Four decimal numbers of 0 to 255 separated by dots, the first 127.
private func isIPv4Loopback(_ name: UnsafeRawBufferPointer) -> Bool {
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
