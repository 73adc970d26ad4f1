import Glibc

/// An incremental HTTP/1.1 request parser (RFC 9112). It never touches a socket.
///
/// Feed it the unconsumed bytes; it answers with an event and how many bytes it consumed. The
/// caller keeps the unconsumed rest and presents it again, followed by newly read bytes:
///
///     var parser = RequestParser()
///     let step = parser.parse(bytes)   // .request(GET /), consumed: 37
///
/// Lines are consumed whole, so the caller only ever keeps a partial line or partial chunk
/// header, and every limit is checked before the excess is kept. Content bytes are copied
/// straight into the request's body.
///
/// Line endings must be CRLF: a bare LF or a bare CR is rejected with 400 (stricter than nginx,
/// which accepts a bare LF; RFC 9112 §2.2 allows either choice, and strictness closes
/// request-smuggling gaps between us and any proxy in front).
///
/// - Complexity: O(n) in the bytes fed; each byte is scanned once except a partial line, which is
///   scanned again when more bytes arrive.
package struct RequestParser {
    /// What the parser found.
    enum Event: Sendable, Equatable {
        /// The bytes hold no complete request yet.
        case needMoreBytes
        /// The head asked for `Expect: 100-continue`, passed every check, and no content has
        /// arrived yet: send `100 Continue` now, then keep feeding.
        case sendContinue
        /// A complete request; the bytes after it belong to the next one.
        case request(HTTPRequest)
        /// The request is refused; the parser stays failed.
        case failure(HTTPParseError)
    }

    /// One answer: the event, and how many bytes from the start of the input it used up.
    struct Step: Sendable, Equatable {
        var event: Event
        var consumed: Int
    }

    private enum State: Equatable {
        case requestLine
        case fields
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed
    }

    /// What the head said so far about the request.
    private struct Head {
        var method: HTTPMethod = .get
        var target = ""
        var path = ""
        var query: String?
        var version: HTTPVersion = .http1_1
        var fields = HTTPFields()
        var fieldCount = 0
        var hostCount = 0
        var hasInvalidHost = false
        /// The (valid) `Host` names this machine; a second `Host` field is refused anyway.
        var namesLoopbackHost = false
        /// An absolute-form target's authority, which stands for `Host` (`takeTargetAuthority`).
        var targetAuthority: (host: String, isLoopback: Bool)?
        var contentLength: Int?
        var contentLengthError: HTTPParseError?
        var hasTransferEncoding = false
        var chunkedCount = 0
        var lastCodingIsChunked = false
        var otherCodingCount = 0
        var expectsContinue = false
        var hasUnsupportedExpectation = false
        var connectionClose = false
        var connectionKeepAlive = false

        var keepAlive: Bool { !connectionClose && (version == .http1_1 || connectionKeepAlive) }
    }

    let limits: HTTPServerConfiguration.Limits
    /// The most content a request may carry, given its head; nil: `limits.maxBodyLength`.
    /// A route that takes photos takes more than one that takes JSON, and the client hears
    /// 413 from its `Content-Length` before it sends a byte of content.
    private let contentLimit: (HTTPRequest) -> Int?
    /// The limit for the request being read.
    private var currentContentLimit = 0
    private var state: State = .requestLine
    private var head = Head()
    private var body: [UInt8] = []
    /// Bytes of field lines (then trailer lines) consumed for the current request.
    private var sectionLength = 0
    /// Content bytes declared so far by chunk sizes.
    private var chunkedLength = 0
    /// This connection's `Host` values, checked.
    private var hosts = HostValidation()
    /// The last request made, kept to be made again: once its answer is written and nothing
    /// else holds it, its box and its fields' room serve the next request, which then costs
    /// no allocation (a keep-alive connection's requests come one after another). Only a
    /// request without content and with a small head (`maxSpareSectionLength`) is kept: an
    /// idle connection holds what its spare holds.
    private var spare: HTTPRequest?
    /// The largest header section of a request kept as the spare: an API client's or a
    /// browser's usual head, so that a thousand idle connections hold a few MB at most.
    static let maxSpareSectionLength = 4096

    init(limits: HTTPServerConfiguration.Limits = .init(), contentLimit: @escaping (HTTPRequest) -> Int? = { _ in nil }) {
        self.limits = limits
        self.contentLimit = contentLimit
    }

    /// The `Accept` values of the request being read (or refused), so far: how an error about
    /// it is written.
    var acceptOfCurrentRequest: [String] {
        head.fields.values(for: .accept)
    }

    /// The request whose header section is complete and whose content is being read, without
    /// its content: what a handler judges before `100 Continue` is sent.
    var headOfCurrentRequest: HTTPRequest {
        var none: HTTPRequest?
        return HTTPRequest(
            method: head.method, target: head.target, path: head.path, query: head.query, version: head.version,
            headerFields: head.fields, body: [], keepAlive: head.keepAlive, namesLoopbackHost: head.namesLoopbackHost,
            reusing: &none)
    }

    /// Content bytes of the current request read so far.
    var contentReceived: Int { body.count }

    /// True between requests: nothing of the next request has been consumed.
    var isBetweenRequests: Bool { state == .requestLine }

    /// True while the head is complete and content (or trailers) is being read.
    var isReadingBody: Bool {
        switch state {
        case .fixedBody, .chunkSize, .chunkData, .chunkDataEnd, .trailers: true
        case .requestLine, .fields, .failed: false
        }
    }

    /// Parses as far as `input` allows, stopping after the first event other than progress.
    mutating func parse(_ input: UnsafeRawBufferPointer) -> Step {
        var offset = 0
        while true {
            switch state {
            case .failed:
                return Step(event: .needMoreBytes, consumed: 0)

            case .requestLine:
                guard let lf = Self.findLineFeed(input, from: offset) else {
                    if input.count - offset > limits.maxRequestLineLength + 1 {
                        return fail(.requestLineTooLong, offset)
                    }
                    if let error = Self.checkPartialMethod(input, from: offset) { return fail(error, offset) }
                    return Step(event: .needMoreBytes, consumed: offset)
                }
                guard lf > offset, input[lf - 1] == ASCII.cr else { return fail(.invalidLineEnding, offset) }
                let end = lf - 1
                if end == offset {
                    // An empty line before the request line is ignored (RFC 9112 §2.2).
                    offset = lf + 1
                    continue
                }
                if end - offset > limits.maxRequestLineLength { return fail(.requestLineTooLong, offset) }
                if let error = parseRequestLine(UnsafeRawBufferPointer(rebasing: input[offset..<end])) {
                    return fail(error, offset)
                }
                offset = lf + 1
                state = .fields

            case .fields, .trailers:
                let isTrailer = state == .trailers
                guard let lf = Self.findLineFeed(input, from: offset) else {
                    if sectionLength + (input.count - offset) > limits.maxHeaderSectionLength {
                        return fail(.headerSectionTooLarge, offset)
                    }
                    return Step(event: .needMoreBytes, consumed: offset)
                }
                sectionLength += lf + 1 - offset
                if sectionLength > limits.maxHeaderSectionLength { return fail(.headerSectionTooLarge, offset) }
                guard lf > offset, input[lf - 1] == ASCII.cr else { return fail(.invalidLineEnding, offset) }
                let line = UnsafeRawBufferPointer(rebasing: input[offset..<(lf - 1)])
                offset = lf + 1
                if line.isEmpty {
                    if isTrailer { return complete(offset) }
                    if let step = finishHead(input, offset) { return step }
                    continue
                }
                head.fieldCount += 1
                if head.fieldCount > limits.maxHeaderFieldCount { return fail(.tooManyHeaderFields, offset) }
                switch Self.scanFieldLine(line) {
                case .failure(let error):
                    return fail(error, offset)
                case .success(let split) where !isTrailer:
                    addField(line, split)
                case .success:
                    break  // trailer fields are read and dropped
                }

            case .fixedBody(let remaining):
                let count = min(remaining, input.count - offset)
                if count == 0 { return Step(event: .needMoreBytes, consumed: offset) }
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[offset..<(offset + count)]))
                offset += count
                if count == remaining { return complete(offset) }
                state = .fixedBody(remaining: remaining - count)

            case .chunkSize:
                guard let lf = Self.findLineFeed(input, from: offset) else {
                    if input.count - offset > limits.maxChunkLineLength + 1 { return fail(.invalidChunkSize, offset) }
                    return Step(event: .needMoreBytes, consumed: offset)
                }
                guard lf > offset, input[lf - 1] == ASCII.cr, lf - 1 - offset <= limits.maxChunkLineLength else {
                    return fail(.invalidChunkSize, offset)
                }
                guard let size = Self.parseChunkSize(UnsafeRawBufferPointer(rebasing: input[offset..<(lf - 1)])) else {
                    return fail(.invalidChunkSize, offset)
                }
                offset = lf + 1
                if size == 0 {
                    state = .trailers
                    continue
                }
                if size > currentContentLimit - chunkedLength { return fail(.contentTooLarge, offset) }
                chunkedLength += size
                state = .chunkData(remaining: size)

            case .chunkData(let remaining):
                let count = min(remaining, input.count - offset)
                if count == 0 { return Step(event: .needMoreBytes, consumed: offset) }
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[offset..<(offset + count)]))
                offset += count
                state = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)

            case .chunkDataEnd:
                let available = input.count - offset
                if available == 0 { return Step(event: .needMoreBytes, consumed: offset) }
                guard input[offset] == ASCII.cr else { return fail(.invalidChunkTerminator, offset) }
                if available == 1 { return Step(event: .needMoreBytes, consumed: offset) }
                guard input[offset + 1] == ASCII.lf else { return fail(.invalidChunkTerminator, offset) }
                offset += 2
                state = .chunkSize
            }
        }
    }

    // MARK: - Request line

    /// request-line = method SP request-target SP HTTP-version
    ///
    /// https://www.rfc-editor.org/rfc/rfc9112#name-request-line
    private mutating func parseRequestLine(_ line: UnsafeRawBufferPointer) -> HTTPParseError? {
        var index = 0
        while index < line.count, isTokenByte(line[index]) { index += 1 }
        guard index < line.count else { return .malformedRequestLine }
        guard line[index] == ASCII.space else { return .invalidMethod }
        guard index > 0 else { return .malformedRequestLine }
        let methodBytes = UnsafeRawBufferPointer(rebasing: line[0..<index])

        let targetStart = index + 1
        guard let targetEnd = Self.find(ASCII.space, in: line, from: targetStart), targetEnd > targetStart else {
            return .malformedRequestLine
        }
        let targetBytes = UnsafeRawBufferPointer(rebasing: line[targetStart..<targetEnd])
        let versionBytes = UnsafeRawBufferPointer(rebasing: line[(targetEnd + 1)...])

        if ByteRun.firstRefusedInTarget(targetBytes) != nil { return .invalidTarget }
        switch Self.parseVersion(versionBytes) {
        case .success(let version): head.version = version
        case .failure(let error): return error
        }
        // CONNECT asks for a tunnel, which an origin server never makes: 501, not a 404 for
        // its authority taken as a path (RFC 9110 §9.3.6).
        guard let method = HTTPMethod.known(methodBytes), method != .connect else { return .methodNotImplemented }
        head.method = method

        let target = String(decoding: targetBytes, as: UTF8.self)
        head.target = target
        if targetBytes[0] == UInt8(ascii: "/") {
            if let mark = Self.find(UInt8(ascii: "?"), in: targetBytes) {
                head.path = String(decoding: UnsafeRawBufferPointer(rebasing: targetBytes[..<mark]), as: UTF8.self)
                head.query = String(decoding: UnsafeRawBufferPointer(rebasing: targetBytes[(mark + 1)...]), as: UTF8.self)
            } else {
                head.path = target
            }
        } else if targetBytes.count == 1, targetBytes[0] == UInt8(ascii: "*") {
            guard method == .options else { return .invalidTarget }
            head.path = target
        } else if Self.hasHTTPScheme(targetBytes) {
            guard takeTargetAuthority(targetBytes) else { return .invalidTarget }
            (head.path, head.query) = HTTPRequest.split(target: target)
        } else {
            return .invalidTarget
        }
        return nil
    }

    /// Takes an absolute-form target's authority for the request's host, which a server must
    /// use instead of `Host` (RFC 9112 §3.2.2; `finishHead` puts it in its place, for every
    /// rule that reads `Host`). False for no valid host: empty (RFC 9110 §4.2.1), with user
    /// information (§4.2.4), or not `uri-host [ ":" port ]`.
    private mutating func takeTargetAuthority(_ target: UnsafeRawBufferPointer) -> Bool {
        let authority = Self.authority(ofAbsoluteTarget: target)
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")), let host = hosts.validated(authority) else { return false }
        head.targetAuthority = (host, hosts.lastValidIsLoopback)
        return true
    }

    // MARK: - Fields

    /// Records a field and what the framing fields say.
    private mutating func addField(_ line: UnsafeRawBufferPointer, _ split: FieldSplit) {
        let name = UnsafeRawBufferPointer(rebasing: line[0..<split.nameEnd])
        let value = UnsafeRawBufferPointer(rebasing: line[split.valueStart..<split.valueEnd])
        var valueString: String?
        switch name.count {
        case 4 where equalsCaseInsensitive(name, "host"):
            head.hostCount += 1
            valueString = hosts.validated(value)
            if valueString != nil {
                head.namesLoopbackHost = hosts.lastValidIsLoopback
            } else {
                head.hasInvalidHost = true
            }
        case 6 where equalsCaseInsensitive(name, "expect"):
            if equalsCaseInsensitive(value, "100-continue") {
                head.expectsContinue = true
            } else {
                head.hasUnsupportedExpectation = true
            }
        case 10 where equalsCaseInsensitive(name, "connection"):
            forEachListElement(value) { range in
                let token = UnsafeRawBufferPointer(rebasing: value[range])
                if equalsCaseInsensitive(token, "close") { head.connectionClose = true }
                if equalsCaseInsensitive(token, "keep-alive") { head.connectionKeepAlive = true }
            }
        case 14 where equalsCaseInsensitive(name, "content-length"):
            addContentLength(value)
        case 17 where equalsCaseInsensitive(name, "transfer-encoding"):
            head.hasTransferEncoding = true
            forEachListElement(value) { range in
                let element = UnsafeRawBufferPointer(rebasing: value[range])
                var end = 0
                while end < element.count, isTokenByte(element[end]) { end += 1 }
                let coding = UnsafeRawBufferPointer(rebasing: element[..<end])
                let isChunked = equalsCaseInsensitive(coding, "chunked")
                if isChunked { head.chunkedCount += 1 } else { head.otherCodingCount += 1 }
                head.lastCodingIsChunked = isChunked
            }
        default:
            break
        }
        if head.fields.isEmpty {
            if spare?.isUnique() == true, let room = spare?.takeEmptyFields() { head.fields = room }
            head.fields.reserveCapacity(8)
        }
        head.fields.append(
            HTTPField(name: HTTPField.Name(validatedBytes: name), value: valueString ?? String(decoding: value, as: UTF8.self)))
    }

    /// Content-Length = 1*DIGIT, possibly a list of equal values.
    ///
    /// https://www.rfc-editor.org/rfc/rfc9110#name-content-length
    private mutating func addContentLength(_ value: UnsafeRawBufferPointer) {
        var sawElement = false
        forEachListElement(value) { range in
            let element = UnsafeRawBufferPointer(rebasing: value[range])
            sawElement = true
            guard let length = decimalValue(element) else {
                head.contentLengthError = head.contentLengthError ?? .invalidContentLength
                return
            }
            if let existing = head.contentLength, existing != length {
                head.contentLengthError = head.contentLengthError ?? .conflictingContentLength
            }
            head.contentLength = length
        }
        if !sawElement { head.contentLengthError = head.contentLengthError ?? .invalidContentLength }
    }

    /// Checks the head as a whole and chooses how the content is framed.
    ///
    /// https://www.rfc-editor.org/rfc/rfc9112#name-message-body-length
    private mutating func finishHead(_ input: UnsafeRawBufferPointer, _ offset: Int) -> Step? {
        if head.hostCount > 1 { return fail(.multipleHost, offset) }
        if head.hostCount == 0 && head.version == .http1_1 { return fail(.missingHost, offset) }
        if head.hasInvalidHost { return fail(.invalidHost, offset) }
        if let authority = head.targetAuthority {
            head.fields[.host] = authority.host
            head.namesLoopbackHost = authority.isLoopback
        }
        if let error = head.contentLengthError { return fail(error, offset) }
        if head.hasTransferEncoding {
            if head.version == .http1_0 { return fail(.transferEncodingInHTTP1_0, offset) }
            if head.contentLength != nil { return fail(.contentLengthWithTransferEncoding, offset) }
            if !head.lastCodingIsChunked || head.chunkedCount != 1 { return fail(.chunkedNotFinal, offset) }
            if head.otherCodingCount > 0 { return fail(.unsupportedTransferCoding, offset) }
        }
        if head.hasUnsupportedExpectation { return fail(.unsupportedExpectation, offset) }
        let length = head.contentLength ?? 0
        if length > 0 || head.hasTransferEncoding {
            currentContentLimit = contentLimit(headOfCurrentRequest) ?? limits.maxBodyLength
            if length > currentContentLimit { return fail(.contentTooLarge, offset) }
        }

        if head.hasTransferEncoding {
            state = .chunkSize
            chunkedLength = 0
        } else if length > 0 {
            state = .fixedBody(remaining: length)
            // Room for the first read, not the declared length: the buffer grows with what
            // arrives, so a client that declares 1 MiB and sends a byte now and then holds little.
            body.reserveCapacity(min(length, Self.initialBodyCapacity))
        } else {
            return complete(offset)
        }
        sectionLength = 0
        // RFC 9110 §10.1.1: a 1.0 client cannot understand 100; ignore its expectation.
        if head.expectsContinue && head.version == .http1_1 && offset == input.count {
            return Step(event: .sendContinue, consumed: offset)
        }
        return nil
    }

    /// What a fixed-length body reserves at first: one full read of the event loop.
    private static let initialBodyCapacity = 64 * 1024

    private mutating func complete(_ offset: Int) -> Step {
        let request = HTTPRequest(
            method: head.method, target: head.target, path: head.path, query: head.query,
            version: head.version, headerFields: head.fields, body: body, keepAlive: head.keepAlive,
            namesLoopbackHost: head.namesLoopbackHost, reusing: &spare)
        spare = body.isEmpty && sectionLength <= Self.maxSpareSectionLength ? request : nil
        head = Head()
        body = []
        sectionLength = 0
        chunkedLength = 0
        state = .requestLine
        return Step(event: .request(request), consumed: offset)
    }

    private mutating func fail(_ error: HTTPParseError, _ offset: Int) -> Step {
        state = .failed
        // The head stays, so that the error can be written in the form its `Accept` prefers.
        body = []
        return Step(event: .failure(error), consumed: offset)
    }

}
