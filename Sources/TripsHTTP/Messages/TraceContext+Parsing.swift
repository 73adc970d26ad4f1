/// Reading a client's `traceparent` and `tracestate`; anything malformed is ignored (the
/// request starts a new trace), never refused.
extension TraceContext {
    /// What a valid `traceparent` says: the trace, the client's span and the flags.
    ///
    ///     traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
    ///
    /// Version 00 is exactly 55 characters of lowercase hex and dashes. A later version (not
    /// `ff`) is read by its first four fields, provided what follows them starts with `-`, and
    /// only its sampled flag is kept (the spec's rules for versions not yet written); the
    /// answer says version 00. All-zero ids, uppercase hex, a second `traceparent` field, or
    /// anything else is malformed.
    /// https://www.w3.org/TR/trace-context/#traceparent-header-field-values
    struct Parent: Equatable {
        var traceIDHigh: UInt64
        var traceIDLow: UInt64
        var parentID: UInt64
        var flags: UInt8

        init(traceIDHigh: UInt64, traceIDLow: UInt64, parentID: UInt64, flags: UInt8) {
            (self.traceIDHigh, self.traceIDLow, self.parentID, self.flags) = (traceIDHigh, traceIDLow, parentID, flags)
        }

        /// The request's one `traceparent`, when it is valid.
        init?(_ fields: HTTPFields) {
            let values = fields.values(for: .traceparent)  // no allocation when there is none
            guard values.count == 1 else { return nil }  // two fields: which one is meant is unknowable
            self.init(traceparent: values[0])
        }

        init?(traceparent value: String) {
            var value = value
            guard let parsed = value.withUTF8({ Self.parse(UnsafeRawBufferPointer($0)) }) else { return nil }
            self = parsed
        }

        private static func parse(_ bytes: UnsafeRawBufferPointer) -> Parent? {
            guard bytes.count >= TraceContext.version00Length, let version = hex(bytes, 0, digits: 2), version != 0xFF,
                bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-"),
                let high = hex(bytes, 3, digits: 16), let low = hex(bytes, 19, digits: 16), high | low != 0,
                let parent = hex(bytes, 36, digits: 16), parent != 0, let flags = hex(bytes, 53, digits: 2)
            else { return nil }
            if version == 0 {
                guard bytes.count == TraceContext.version00Length else { return nil }
                return Parent(traceIDHigh: high, traceIDLow: low, parentID: parent, flags: UInt8(flags))
            }
            guard bytes.count == TraceContext.version00Length || bytes[TraceContext.version00Length] == UInt8(ascii: "-") else {
                return nil
            }
            return Parent(traceIDHigh: high, traceIDLow: low, parentID: parent, flags: UInt8(flags) & 0x01)
        }

        /// `digits` lowercase hex digits at `start`, or nil for any other character.
        private static func hex(_ bytes: UnsafeRawBufferPointer, _ start: Int, digits: Int) -> UInt64? {
            var value: UInt64 = 0
            for byte in bytes[start..<start + digits] {
                let nibble: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
                default: return nil
                }
                value = value << 4 | UInt64(nibble)
            }
            return value
        }
    }

    /// Most list members a `tracestate` may hold; past it, it is dropped.
    static let maxStateMembers = 32
    /// Longest `tracestate` passed through, all its fields together; past it, it is dropped.
    static let maxStateLength = 512

    /// The request's `tracestate` (its fields joined with commas) when it is a valid list of
    /// at most 32 members and 512 bytes, with no key twice; otherwise nil, and nothing is
    /// passed on. https://www.w3.org/TR/trace-context/#tracestate-header-field-values
    static func state(_ fields: HTTPFields) -> String? {
        let values = fields.values(for: .tracestate)
        guard !values.isEmpty, values.reduce(values.count - 1, { $0 + $1.utf8.count }) <= maxStateLength else { return nil }
        let joined = values.count == 1 ? values[0] : values.joined(separator: ",")
        return isValidState(joined) ? joined : nil
    }

    static func isValidState(_ value: String) -> Bool {
        guard value.utf8.count <= maxStateLength else { return false }
        var keys: Set<Substring> = []
        var members = 0
        for element in value.split(separator: ",", omittingEmptySubsequences: false) {
            let member = element.trimmingBlanks
            if member.isEmpty { continue }  // empty members are allowed, and not counted
            members += 1
            guard members <= maxStateMembers, let equals = member.firstIndex(of: "=") else { return false }
            let key = member[..<equals]
            guard isValidStateKey(key), isValidStateValue(member[member.index(after: equals)...]), keys.insert(key).inserted else {
                return false
            }
        }
        return members > 0  // a blank list is valid, and passing it on says nothing
    }

    /// `simple-key` (lowercase letter, then up to 255 of `a-z 0-9 _ - * /`) or
    /// `tenant@system` (up to 241 and 14 characters).
    private static func isValidStateKey(_ key: Substring) -> Bool {
        func isKeyCharacter(_ byte: UInt8) -> Bool {
            isLowercaseLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "*") || byte == UInt8(ascii: "/")
        }
        let bytes = key.utf8
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")) else {
            guard let first = bytes.first, isLowercaseLetter(first), bytes.count <= 256 else { return false }
            return bytes.allSatisfy(isKeyCharacter)
        }
        let tenant = bytes[..<at]
        let system = bytes[bytes.index(after: at)...]
        guard let tenantFirst = tenant.first, isLowercaseLetter(tenantFirst) || isDigit(tenantFirst), tenant.count <= 241,
            let systemFirst = system.first, isLowercaseLetter(systemFirst), system.count <= 14
        else { return false }
        return tenant.allSatisfy(isKeyCharacter) && system.allSatisfy(isKeyCharacter)
    }

    /// 1 to 256 printable ASCII characters but `,` and `=`, not ending in a space.
    private static func isValidStateValue(_ value: Substring) -> Bool {
        let bytes = value.utf8
        guard let last = bytes.last, last != UInt8(ascii: " "), bytes.count <= 256 else { return false }
        return bytes.allSatisfy { (0x20...0x7E).contains($0) && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "=") }
    }

    private static func isLowercaseLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}

extension Substring {
    /// Without the spaces and tabs (OWS) at either end.
    fileprivate var trimmingBlanks: Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isBlank($0) }), let end = lastIndex(where: { !isBlank($0) }) else { return "" }
        return self[start...end]
    }
}
