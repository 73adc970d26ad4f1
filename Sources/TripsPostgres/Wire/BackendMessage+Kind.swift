extension BackendMessage {
    /// The type byte of each message this client understands.
    ///
    /// Copy and function-call messages are left out on purpose: Trips never starts a COPY or
    /// a fast-path call, so a server sending one has lost track, and the decoder refuses it.
    package enum Kind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case authentication = 0x52  // R
        case parameterStatus = 0x53  // S
        case backendKeyData = 0x4B  // K
        case readyForQuery = 0x5A  // Z
        case rowDescription = 0x54  // T
        case dataRow = 0x44  // D
        case commandComplete = 0x43  // C
        case emptyQueryResponse = 0x49  // I
        case errorResponse = 0x45  // E
        case noticeResponse = 0x4E  // N
        case parseComplete = 0x31  // 1
        case bindComplete = 0x32  // 2
        case closeComplete = 0x33  // 3
        case noData = 0x6E  // n
        case parameterDescription = 0x74  // t
        case portalSuspended = 0x73  // s
        case notificationResponse = 0x41  // A
        case negotiateProtocolVersion = 0x76  // v

        /// The declared lengths (the length field counts itself) a message of this kind can
        /// have: checked as soon as the length arrives, so a server cannot make us buffer
        /// megabytes for what must be a five-byte ReadyForQuery.
        package var validLengths: ClosedRange<Int> {
            switch self {
            case .emptyQueryResponse, .parseComplete, .bindComplete, .closeComplete, .noData, .portalSuspended: 4...4
            case .readyForQuery: 5...5
            // A process ID and a secret key of 4 bytes (3.0) to 256 (3.2).
            case .backendKeyData: 12...264
            // The code, then the code's data.
            case .authentication: 8...Int.max
            // Two NUL-terminated strings.
            case .parameterStatus: 6...Int.max
            // A 16-bit count.
            case .rowDescription, .dataRow, .parameterDescription: 6...Int.max
            // A NUL-terminated tag; the fields' terminating NUL.
            case .commandComplete, .errorResponse, .noticeResponse: 5...Int.max
            // A process ID and two NUL-terminated strings: a channel name (at most 63 bytes)
            // and a payload, shorter than 8,000 bytes with PostgreSQL's default 8 KiB pages and
            // than 32,576 with its largest (BLCKSZ - NAMEDATALEN - 128), each at most four
            // times longer once converted from the server's encoding to UTF-8. Longer is no
            // server's.
            case .notificationResponse: 10...(4 + 4 + 4 * (64 + 32_576))
            // A version and a count.
            case .negotiateProtocolVersion: 12...Int.max
            }
        }

        /// The message's name in the PostgreSQL documentation.
        package var description: String {
            switch self {
            case .authentication: "Authentication"
            case .parameterStatus: "ParameterStatus"
            case .backendKeyData: "BackendKeyData"
            case .readyForQuery: "ReadyForQuery"
            case .rowDescription: "RowDescription"
            case .dataRow: "DataRow"
            case .commandComplete: "CommandComplete"
            case .emptyQueryResponse: "EmptyQueryResponse"
            case .errorResponse: "ErrorResponse"
            case .noticeResponse: "NoticeResponse"
            case .parseComplete: "ParseComplete"
            case .bindComplete: "BindComplete"
            case .closeComplete: "CloseComplete"
            case .noData: "NoData"
            case .parameterDescription: "ParameterDescription"
            case .portalSuspended: "PortalSuspended"
            case .notificationResponse: "NotificationResponse"
            case .negotiateProtocolVersion: "NegotiateProtocolVersion"
            }
        }
    }
}
