@testable import TripsPostgres
@testable import TripsServer

/// Builds backend messages byte by byte, the way a server writes them.
enum Wire {
    /// A message: the type byte, the length (counting itself), the body.
    static func message(_ type: Character, _ body: [UInt8]) -> [UInt8] {
        [type.asciiValue ?? 0] + int32(Int32(body.count + 4)) + body
    }

    /// A message whose length field says `length`, whatever the body is.
    static func message(_ type: Character, length: Int32, _ body: [UInt8]) -> [UInt8] {
        [type.asciiValue ?? 0] + int32(length) + body
    }

    static func int16(_ value: Int16) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
    static func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
    static func cString(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }

    static func readyForQuery(_ status: Character = "I") -> [UInt8] { message("Z", [status.asciiValue ?? 0]) }
    static func parameterStatus(_ name: String, _ value: String) -> [UInt8] { message("S", cString(name) + cString(value)) }
    static func authentication(_ code: Int32, _ data: [UInt8] = []) -> [UInt8] { message("R", int32(code) + data) }
    static func commandComplete(_ tag: String) -> [UInt8] { message("C", cString(tag)) }

    /// A RowDescription of text columns.
    static func rowDescription(_ names: [String]) -> [UInt8] {
        var body = int16(Int16(names.count))
        for name in names {
            body += cString(name) + int32(0) + int16(0) + int32(25) + int16(-1) + int32(-1) + int16(0)
        }
        return message("T", body)
    }

    static func dataRow(_ values: [String?]) -> [UInt8] {
        var body = int16(Int16(values.count))
        for value in values {
            guard let value else {
                body += int32(-1)
                continue
            }
            body += int32(Int32(value.utf8.count)) + Array(value.utf8)
        }
        return message("D", body)
    }

    /// An ErrorResponse ('E') or NoticeResponse ('N') with these fields, in order.
    static func diagnostic(_ type: Character, _ fields: [(Character, String)]) -> [UInt8] {
        var body: [UInt8] = []
        for (code, value) in fields { body += [code.asciiValue ?? 0] + cString(value) }
        return message(type, body + [0])
    }

    static func error(_ sqlState: String, _ text: String, severity: String = "ERROR") -> [UInt8] {
        diagnostic("E", [("S", severity), ("V", severity), ("C", sqlState), ("M", text)])
    }

    static func notification(pid: Int32, _ channel: String, _ payload: String) -> [UInt8] {
        message("A", int32(pid) + cString(channel) + cString(payload))
    }
}

/// What a stream decoded into: the messages with the bytes each took, then the error, if any.
/// After an error `leftover` is 0: what was left depends on how much had been read.
struct DecodedStream: Equatable {
    var messages: [BackendMessage] = []
    var consumed: [Int] = []
    var error: PostgresWireError?
    /// Bytes left over that hold no whole message.
    var leftover = 0
}

/// Feeds `chunks` the way the connection does, keeping the unconsumed bytes.
func decodeStream(_ chunks: [[UInt8]], decoder: BackendMessageDecoder = .init()) -> DecodedStream {
    var stream = DecodedStream()
    var pending: [UInt8] = []
    for chunk in chunks {
        pending += chunk
        while true {
            do {
                guard case .message(let message, let consumed) = try decoder.decode(pending) else { break }
                stream.messages.append(message)
                stream.consumed.append(consumed)
                pending.removeFirst(consumed)
            } catch {
                stream.error = error
                return stream
            }
        }
    }
    stream.leftover = pending.count
    return stream
}
