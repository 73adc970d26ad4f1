import Foundation
import TripsFormats

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a call to the service failed: the server's refusal, read from its problem document
/// (RFC 9457), or a connection that could not be made or kept after every retry. A refusal's
/// case follows its status; its `kind` (from the problem's `type`) says which refusal it is.
///
///     do { _ = try await client.move([2], before: 1, ifMatch: tag) }
///     catch .preconditionFailed(let problem) { reload(problem.detail) }
///     catch where error.kind == .unknownIDs { … }
public enum TripsClientError: Error, Sendable, Hashable {
    /// 400: the request could not be read (a bad query, a body that is not JSON).
    case badRequest(Problem)
    /// 401 or 403: a token is needed, or this one may not make the change.
    case unauthorized(Problem)
    /// 404 or 410: no such trip (or the revision followed is too old).
    case notFound(Problem)
    /// 412: `If-Match` named a version that is no longer current; nothing was changed.
    case preconditionFailed(Problem)
    /// 422: the body breaks rules; `problem.errors` lists every one.
    case unprocessable(Problem)
    /// 503 or 507, still so after every retry: the change was not made.
    case unavailable(Problem)
    /// Any other refusal.
    case refused(Problem)
    /// The connection could not be made, or broke, on every try.
    case connectionFailed(String)
    /// The answer is not what the API promises (not JSON, a member missing).
    case invalidAnswer(String)
    /// The answer's body passed `ClientLimits.maxAnswerBytes` (this many bytes): it was cancelled.
    case answerTooLarge(limit: Int)
    /// The change feed sent an event (or a line) longer than `ClientLimits.maxEventBytes`,
    /// on every try in a row.
    case eventTooLarge(limit: Int)
    /// No answer within `ClientLimits.requestTimeout`, on every try.
    case timedOut(after: Duration)

    /// The error for a refusal with `status`, and its problem.
    public init(refusal problem: Problem) {
        switch problem.status {
        case 400: self = .badRequest(problem)
        case 401, 403: self = .unauthorized(problem)
        case 404, 410: self = .notFound(problem)
        case 412: self = .preconditionFailed(problem)
        case 422: self = .unprocessable(problem)
        case 503, 507: self = .unavailable(problem)
        default: self = .refused(problem)
        }
    }

    /// The server's problem document, when the server answered.
    public var problem: Problem? {
        switch self {
        case .badRequest(let problem), .unauthorized(let problem), .notFound(let problem), .preconditionFailed(let problem),
            .unprocessable(let problem), .unavailable(let problem), .refused(let problem):
            problem
        case .connectionFailed, .invalidAnswer, .answerTooLarge, .eventTooLarge, .timedOut: nil
        }
    }

    /// The kind of the server's refusal (`problem?.kind`): nil when the server did not answer,
    /// or named no kind this client knows.
    public var kind: ProblemKind? { problem?.kind }
}

extension TripsClientError: CustomStringConvertible {
    /// One sentence for a person: the problem's detail, or what happened to the connection.
    public var description: String {
        if let problem { return problem.detail }
        switch self {
        case .connectionFailed(let reason): return "The server could not be reached: \(reason)."
        case .invalidAnswer(let reason): return "The server's answer could not be read: \(reason)."
        case .answerTooLarge(let limit): return "The server's answer was larger than \(limit) bytes; it was not read."
        case .eventTooLarge(let limit): return "The change feed sent an event larger than \(limit) bytes."
        case .timedOut(let after): return "The server did not answer within \(after.seconds) seconds."
        default: return "The server refused the request."
        }
    }
}

/// A problem document (RFC 9457) as the service writes it: `openapi.yaml`'s `Problem`.
public struct Problem: Sendable, Hashable {
    /// One rule a 422 body breaks: the member or line at fault, and why.
    public struct Violation: Sendable, Hashable {
        public var member: String?
        public var line: Int?
        public var detail: String
    }

    public var status: Int
    /// The kind's URI, relative (`/problems/stale-if-match`), or `about:blank`.
    public var type: String
    public var title: String
    public var detail: String
    /// The body member at fault (`nights`, `[1].nights`), when one is.
    public var member: String?
    /// The line of a text body at fault, from 1.
    public var line: Int?
    /// Every rule a 422 body breaks, in order.
    public var errors: [Violation]
    /// Trips the request named that the list does not have.
    public var ids: [Int]

    public init(
        status: Int, type: String = "about:blank", title: String, detail: String, member: String? = nil, line: Int? = nil,
        errors: [Violation] = [], ids: [Int] = []
    ) {
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.member = member
        self.line = line
        self.errors = errors
        self.ids = ids
    }

    /// The kind `type` names, nil when it names none this client knows (`about:blank`).
    public var kind: ProblemKind? { ProblemKind(type: type) }

    /// The problem an answer with `status` carries: its JSON document, or, when the body is
    /// not one (a proxy's page, text), the status with the body's first line as the detail.
    public init(status: Int, body: [UInt8]) {
        let title = HTTPURLResponse.localizedString(forStatusCode: status).capitalized
        guard case .object(let members)? = try? JSONValue(parsing: body) else {
            let text = String(decoding: body.prefix(1_000), as: UTF8.self)
            let firstLine = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            self.init(status: status, title: title, detail: firstLine.isEmpty ? "\(status) \(title)" : firstLine)
            return
        }
        func string(_ value: JSONValue?) -> String? {
            if case .string(let text)? = value { return text }
            return nil
        }
        func integer(_ value: JSONValue?) -> Int? {
            if case .number(let literal)? = value { return Int(literal) }
            return nil
        }
        var violations: [Violation] = []
        if case .array(let items)? = members["errors"] {
            for case .object(let item) in items {
                violations.append(
                    Violation(member: string(item["member"]), line: integer(item["line"]), detail: string(item["detail"]) ?? ""))
            }
        }
        var ids: [Int] = []
        if case .array(let values)? = members["ids"] { ids = values.compactMap { integer($0) } }
        self.init(
            status: integer(members["status"]) ?? status, type: string(members["type"]) ?? "about:blank",
            title: string(members["title"]) ?? title, detail: string(members["detail"]) ?? "\(status) \(title)",
            member: string(members["member"]), line: integer(members["line"]), errors: violations, ids: ids)
    }
}
