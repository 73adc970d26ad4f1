/// Reads a `text/event-stream` (https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream)
/// fed in chunks split anywhere: each complete event comes out once, with its `id:`,
/// `event:` and `data:` lines; comments (`: keep-alive`) and `retry:` are skipped.
struct ServerSentEventParser: Sendable {
    /// One event: the id it set (nil: none), its name (`message` when none) and its data.
    struct Event: Sendable, Hashable {
        var id: String?
        var name: String
        var data: [UInt8]
    }

    /// The longest line, and the most data an event gathers; more ends the stream (a server's
    /// event is one line of JSON, a `sorted` one holding every id of the list).
    let maxEventBytes: Int
    /// Whether a line or an event passed `maxEventBytes`: the parser then reads nothing more.
    private(set) var isTooLarge = false
    private var line: [UInt8] = []
    private var sawCarriageReturn = false
    private var id: String?
    private var name: String?
    private var data: [UInt8] = []
    private var hasData = false

    init(maxEventBytes: Int) {
        self.maxEventBytes = maxEventBytes
    }

    /// The events `chunk` completes, at most `maxEvents` of them, and the index after the last
    /// byte read for them: the rest of the chunk, if any, is to be fed later. Stops where a
    /// line or an event passes the limit (then `isTooLarge` is set).
    mutating func feed<Chunk: Collection<UInt8>>(_ chunk: Chunk, maxEvents: Int = .max) -> (events: [Event], end: Chunk.Index) {
        var events: [Event] = []
        var index = chunk.startIndex
        while index < chunk.endIndex, events.count < maxEvents, !isTooLarge {
            let byte = chunk[index]
            chunk.formIndex(after: &index)
            if sawCarriageReturn {
                sawCarriageReturn = false
                if byte == UInt8(ascii: "\n") { continue }  // the LF of CRLF
            }
            switch byte {
            case UInt8(ascii: "\r"):
                sawCarriageReturn = true
                if let event = endLine() { events.append(event) }
            case UInt8(ascii: "\n"):
                if let event = endLine() { events.append(event) }
            case _ where line.count >= maxEventBytes:
                isTooLarge = true
            default:
                line.append(byte)
            }
        }
        return (events, index)
    }

    /// Takes one line: a field, a comment, or the blank line that ends an event.
    private mutating func endLine() -> Event? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else { return dispatch() }
        guard line.first != UInt8(ascii: ":") else { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let field = String(decoding: line[..<colon], as: UTF8.self)
        var valueStart = colon < line.endIndex ? colon + 1 : colon
        if valueStart < line.endIndex && line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = line[valueStart...]
        switch field {
        case "data":
            guard data.count + value.count < maxEventBytes else {
                isTooLarge = true
                return nil
            }
            if hasData { data.append(UInt8(ascii: "\n")) }
            data += value
            hasData = true
        case "event": name = String(decoding: value, as: UTF8.self)
        case "id" where !value.contains(0): id = String(decoding: value, as: UTF8.self)
        default: break  // retry, and fields the format ignores
        }
        return nil
    }

    /// Ends an event at a blank line; nil when it had no data (as the format says).
    private mutating func dispatch() -> Event? {
        defer {
            data = []
            hasData = false
            name = nil
        }
        guard hasData else { return nil }
        return Event(id: id, name: name ?? "message", data: data)
    }
}
