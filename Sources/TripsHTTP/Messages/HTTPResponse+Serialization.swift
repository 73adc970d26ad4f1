extension HTTPResponse {
    /// Which Connection field the connection adds.
    package enum ConnectionField: Sendable {
        /// HTTP/1.1 keep-alive: nothing to say.
        case none
        case close
        /// HTTP/1.0 keep-alive must be said.
        case keepAlive
    }

    /// How the content is delimited.
    package enum Framing: Sendable {
        /// `Content-Length`, and the body follows: every ordinary response.
        case contentLength
        /// `Transfer-Encoding: chunked`, and nothing follows yet: a stream to an HTTP/1.1 client.
        case chunked
        /// Neither: a stream to an HTTP/1.0 client, whose content ends when the connection closes.
        case untilClose
    }

    package static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Appends one chunk (`size CRLF bytes CRLF`); the empty chunk ends a chunked stream.
    package static func appendChunk(_ bytes: [UInt8], to output: inout [UInt8]) {
        output.append(contentsOf: String(bytes.count, radix: 16).utf8)
        output.append(contentsOf: "\r\n".utf8)
        output.append(contentsOf: bytes)
        output.append(contentsOf: "\r\n".utf8)
    }

    /// Appends the whole response (status line, fields, content) to `output`.
    ///
    /// The lines every answer has (Date, Server and `X-Content-Type-Options: nosniff`, cached
    /// per loop by `dates`, with the status line of a 200) come first; handler fields named
    /// Date, Server, Content-Length, Transfer-Encoding, Connection, X-Content-Type-Options or
    /// X-Request-ID are not written, since the connection owns the framing, the request id and
    /// the fields every answer has. CR, LF and NUL in values become spaces, so a value cannot
    /// inject a field. `omitContent` is for HEAD: same fields, including Content-Length, no
    /// content. `requestID` (with its loop prefix) is written as `X-Request-ID`, and `trace` as
    /// `traceparent` (and `tracestate`). A `prepared()` response copies its head instead of
    /// formatting it. A stream's head says `Transfer-Encoding: chunked` (or nothing, for
    /// HTTP/1.0) instead of `Content-Length`, and no content follows it here.
    ///
    /// https://www.rfc-editor.org/rfc/rfc9112#name-message-format
    package func serialize(
        into output: inout [UInt8], omitContent: Bool, connection: ConnectionField, dates: DateCache,
        requestID: (id: RequestID, prefix: [UInt8])? = nil, trace: TraceContext? = nil, framing: Framing = .contentLength
    ) {
        let prepared = framing == .contentLength ? preparedHead : nil
        if status == .ok {
            output.append(contentsOf: dates.okStatusAndFieldLines)
        } else {
            if let prepared {
                output.append(contentsOf: prepared.statusLine)
            } else {
                appendStatusLine(to: &output)
            }
            output.append(contentsOf: dates.fieldLines)
        }
        Self.appendIdentityLines(requestID: requestID, trace: trace, to: &output)
        if let prepared, connection == .none {
            if !omitContent, prepared.keepsContent {
                output.append(contentsOf: prepared.fieldLinesAndContent)  // the end of the head and the content
                return
            }
            output.append(contentsOf: prepared.fieldLinesEnded)  // the end of the head included
        } else {
            if let prepared {
                output.append(contentsOf: prepared.fieldLinesAndContent[..<(prepared.headEnd - 2)])
            } else {
                appendFieldLines(to: &output, framing: framing)
            }
            switch connection {
            case .none: break
            case .close: output.append(contentsOf: "Connection: close\r\n".utf8)
            case .keepAlive: output.append(contentsOf: "Connection: keep-alive\r\n".utf8)
            }
            output.append(contentsOf: "\r\n".utf8)
        }
        if status.allowsContent && !omitContent && framing == .contentLength { output.append(contentsOf: body) }
    }

    /// `X-Request-ID` and `traceparent`, which every answer has. A generated id and a trace
    /// without `tracestate` (nearly every answer's) are written on the stack together and
    /// appended at once: an append costs about a hundred instructions, more than copying these
    /// lines' bytes. A client's id, a `tracestate`, or a long prefix take the longer way.
    private static func appendIdentityLines(
        requestID: (id: RequestID, prefix: [UInt8])?, trace: TraceContext?, to output: inout [UInt8]
    ) {
        guard let requestID, case .generated(let counter) = requestID.id, RequestID.inlinePrefixLengths.contains(requestID.prefix.count),
            let trace, trace.state == nil
        else {
            if let requestID { requestID.id.appendFieldLine(to: &output, prefix: requestID.prefix) }
            trace?.appendFieldLines(to: &output)
            return
        }
        withUnsafeTemporaryAllocation(
            byteCount: RequestID.maxGeneratedLineLength + TraceContext.traceparentLineLength, alignment: 8
        ) { room in
            let idLength = requestID.prefix.withUnsafeBytes { RequestID.writeGeneratedLine(counter, prefix: $0, into: room.baseAddress!) }
            let end = idLength + TraceContext.traceparentLineLength
            trace.writeTraceparentLine(into: UnsafeMutableRawBufferPointer(rebasing: room[idLength..<end]))
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: room[..<end]))
        }
    }

    /// `HTTP/1.1 200 OK\r\n`
    package func appendStatusLine(to output: inout [UInt8]) {
        output.append(contentsOf: "HTTP/1.1 ".utf8)
        Self.appendDecimal(status.code, to: &output)
        output.append(ASCII.space)
        Self.appendString(status.reasonPhrase, to: &output)
        output.append(contentsOf: "\r\n".utf8)
    }

    /// The handler's fields the connection does not own, then what delimits the content.
    package func appendFieldLines(to output: inout [UInt8], framing: Framing = .contentLength) {
        for field in headerFields where !Self.isConnectionOwned(field.name) {
            Self.appendFieldLine(name: field.name.rawName, value: field.value, to: &output)
        }
        guard status.allowsContent else { return }
        switch framing {
        case .contentLength:
            output.append(contentsOf: "Content-Length: ".utf8)
            Self.appendDecimal(body.count, to: &output)
            output.append(contentsOf: "\r\n".utf8)
        case .chunked:
            output.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        case .untilClose:
            break
        }
    }

    /// `name: value` and CRLF, made on the stack and appended at once: each append to the
    /// output costs about a hundred instructions, more than the line's bytes, and an answer
    /// not kept prepared (a create's, an error) has a dozen lines. CR, LF and NUL in the value
    /// become spaces, so a value cannot inject a field.
    private static func appendFieldLine(name: String, value: String, to output: inout [UInt8]) {
        var name = name
        var value = value
        name.withUTF8 { name in
            value.withUTF8 { value in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.count + value.count + 4) { line in
                    var end = 0
                    for byte in name {
                        line[end] = byte
                        end += 1
                    }
                    line[end] = UInt8(ascii: ":")
                    line[end + 1] = ASCII.space
                    end += 2
                    for byte in value {
                        line[end] = byte == ASCII.cr || byte == ASCII.lf || byte == 0 ? ASCII.space : byte
                        end += 1
                    }
                    line[end] = ASCII.cr
                    line[end + 1] = ASCII.lf
                    output.append(contentsOf: UnsafeBufferPointer(line))
                }
            }
        }
    }

    /// Whether the handler asked to close the connection with `Connection: close`.
    package var asksToClose: Bool {
        preparedHead?.asksToClose ?? computeAsksToClose()
    }

    package func computeAsksToClose() -> Bool {
        headerFields.contains(.connection) && headerFields.listContains(.connection, token: "close")
    }

    /// Every name the connection owns is indexed, so its number tells, however it is spelled.
    private static func isConnectionOwned(_ name: HTTPField.Name) -> Bool {
        switch HTTPField.Name.Indexed(rawValue: name.index) {
        case .date, .server, .connection, .xRequestID, .contentLength, .transferEncoding, .xContentTypeOptions: true
        default: false
        }
    }

    @inline(__always)
    private static func appendString(_ string: String, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { output.append(contentsOf: $0) }
    }

    /// Appends a non-negative integer in decimal without building a String.
    package static func appendDecimal(_ value: Int, to output: inout [UInt8]) {
        guard value > 0 else {
            output.append(UInt8(ascii: "0"))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var remaining = value
            var index = buffer.count
            while remaining > 0 {
                index -= 1
                buffer[index] = UInt8(ascii: "0") &+ UInt8(remaining % 10)
                remaining /= 10
            }
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[index...]))
        }
    }
}
