import Glibc

/// `isValidHost` for one connection's requests, with the last valid value remembered: a
/// keep-alive client names the same host in every request, and comparing its bytes costs a
/// tenth of the grammar. A value that differs is checked in full.
///
/// The value is remembered as the string the request's field holds, so the same host is not
/// decoded into a new string for every request either; whether it names this machine
/// (`isLoopbackHost`) is told with it, and remembered too.
struct HostValidation {
    /// The last `Host` value that passed `isValidHost`.
    private var lastValid = ""
    /// Whether `lastValid` names this machine.
    private(set) var lastValidIsLoopback = false

    /// The value as the field's string when it is a valid host; nil when it is not.
    mutating func validated(_ value: UnsafeRawBufferPointer) -> String? {
        var last = lastValid
        let isLastValid = last.withUTF8 { last in
            last.count == value.count && (value.isEmpty || memcmp(last.baseAddress!, value.baseAddress!, value.count) == 0)
        }
        if isLastValid { return last }
        guard isValidHost(value) else { return nil }
        lastValid = String(decoding: value, as: UTF8.self)
        lastValidIsLoopback = isLoopbackHost(value)
        return lastValid
    }
}
