import TripsFormats

/// Why the list refused an operation. Every operation that throws leaves the list unchanged.
public indirect enum TripsError: Error, Sendable, Hashable {
    /// A body that should be JSON and is not JSON at all.
    case malformedJSON(JSONSyntaxError)
    /// A body that should be text and is not UTF-8.
    case malformedText
    /// A body member (a trip's field, or `sources`, `by`, …) is missing, has the wrong type, or breaks a rule.
    case invalidMember(String, String)
    /// A member the operation does not know, such as `isFavourite`: refused, never silently dropped.
    case unknownMember(String)
    /// A body that has the wrong shape as a whole, such as an array where an object belongs.
    case invalidBody(String)
    /// Trips that the request names and the list does not have, in the order named.
    case unknownTrips([Int])
    /// A reorder destination that is not in the list.
    case unknownDestination(Int)
    /// A reorder that moves nothing.
    case emptySources
    /// A text line that names no trip.
    case noTripNamed(String)
    /// A text line that names more than one trip.
    case ambiguousName(String, candidates: [Int])
    /// Text that is not a trip sentence (`City, Country: N nights from Month D, YYYY`).
    case unreadableSentence(String)
    /// Several rules broken at once, in the order found: a client is told every one.
    case several([TripsError])
    /// An error on one line of a text body, counting from 1.
    case onLine(Int, TripsError)
    /// An error in one element of a JSON array body, counting from 0.
    case inElement(Int, TripsError)
    /// The rest of a body went unchecked once it had broken this many rules
    /// (`BrokenRules.limit`): its first errors are told, not every one.
    case checkingStopped(afterRules: Int)
}

extension TripsError {
    /// A trip field that is missing, mistyped or out of its rules.
    public static func invalidField(_ field: Trip.Field, _ reason: String) -> TripsError {
        .invalidMember(field.rawValue, reason)
    }
}

extension TripsError {
    /// nil for no errors, the error itself for one, `.several` for more.
    public static func combining(_ errors: [TripsError]) -> TripsError? {
        switch errors.count {
        case 0: nil
        case 1: errors[0]
        default: .several(errors.flatMap(\.flattened))
        }
    }

    /// Every single rule broken, in order, with `.several` taken apart (lines and elements stay).
    public var flattened: [TripsError] {
        switch self {
        case .several(let errors): errors.flatMap(\.flattened)
        case .onLine(let line, .several(let errors)): errors.flatMap(\.flattened).map { .onLine(line, $0) }
        case .inElement(let index, .several(let errors)): errors.flatMap(\.flattened).map { .inElement(index, $0) }
        default: [self]
        }
    }
}

extension TripsError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .malformedJSON(let error): "the body is not valid JSON: \(error)"
        case .malformedText: "the body is not UTF-8 text"
        case .invalidMember(let name, let reason): "\(name): \(reason)"
        case .unknownMember(let name): "\(name): is not a member this request accepts"
        case .invalidBody(let reason): reason
        case .unknownTrips(let ids): "no trip has the id\(ids.count == 1 ? "" : "s") \(ids.map(String.init).joined(separator: ", "))"
        case .unknownDestination(let id): "destination: no trip has the id \(id)"
        case .emptySources: "sources: must name at least one trip"
        case .noTripNamed(let line): "no trip is named \"\(line)\""
        case .ambiguousName(let line, let candidates):
            "\"\(line)\" names more than one trip (ids \(candidates.map(String.init).joined(separator: ", ")))"
        case .unreadableSentence(let text):
            "\"\(text)\" is not a trip sentence like \"Lisbon, Portugal: 4 nights from May 1, 2027\""
        case .several(let errors): errors.map(\.description).joined(separator: "; ")
        case .onLine(let line, let error): "line \(line): \(error)"
        case .inElement(let index, let error): "[\(index)]: \(error)"
        case .checkingStopped(let rules): "the rest was not checked after \(rules) broken rules"
        }
    }
}
