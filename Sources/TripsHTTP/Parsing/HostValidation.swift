import Glibc

/// `isValidHost` for one connection's requests, with the last valid value remembered: a
/// keep-alive client names the same host in every request, and comparing its bytes costs a
/// tenth of the grammar. A value that differs is checked in full.
///
/// Whether the value names this machine (`isLoopbackHost`) is told with it, and remembered too.
struct HostValidation {
    /// The last `Host` value that passed `isValidHost`.
    private var lastValid: [UInt8] = []
    /// Whether `lastValid` names this machine.
    private(set) var lastValidIsLoopback = false

    mutating func isValid(_ value: UnsafeRawBufferPointer) -> Bool {
        let isLastValid =
            value.count == lastValid.count
            && (value.isEmpty || lastValid.withUnsafeBytes { memcmp($0.baseAddress!, value.baseAddress!, value.count) == 0 })
        if isLastValid { return true }
        guard isValidHost(value) else { return false }
        lastValid = Array(value)
        lastValidIsLoopback = isLoopbackHost(value)
        return true
    }
}
