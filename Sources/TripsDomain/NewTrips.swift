import Foundation
import TripsFormats

/// New trips as a client hands them over, the way items dropped on a list arrive: one (a
/// JSON draft, or one sentence) or several (a JSON array of drafts, or one sentence per line).
public struct NewTrips: Sendable, Hashable {
    public var drafts: [TripDraft]
    /// Whether they came as a list (a JSON array, or several lines of text), which is
    /// answered with a list; a single draft or sentence is answered with its trip.
    public var isList: Bool

    public init(drafts: [TripDraft], isList: Bool) {
        self.drafts = drafts
        self.isList = isList
    }

    /// Reads a draft object, or an array of them; every rule every draft breaks is reported,
    /// each under its index (`[1].nights`), up to `BrokenRules.limit`.
    public init(json: JSONValue) throws(TripsError) {
        guard case .array(let elements) = json else {
            self.init(drafts: [try TripDraft(json: json)], isList: false)
            return
        }
        guard !elements.isEmpty else { throw .invalidBody("a list of new trips must hold at least one trip") }
        var drafts: [TripDraft] = []
        var broken = BrokenRules()
        for (index, element) in elements.enumerated() {
            guard broken.checksMore() else { break }
            do throws(TripsError) {
                drafts.append(try TripDraft(json: element))
            } catch {
                broken.add(.inElement(index, error))
            }
        }
        if let error = TripsError.combining(broken.errors) { throw error }
        self.init(drafts: drafts, isList: true)
    }

    /// One valid draft a client sent as a flat JSON object (`TripDraft(flatMembers:)`), read
    /// without parsing the document into a tree; nil for any other body, which `init(json:)`
    /// reads from the parsed document.
    @Sendable package init?(flatJSON bytes: [UInt8]) {
        guard let members = JSONValue.flatObjectMembers(parsing: bytes), let draft = TripDraft(flatMembers: members) else { return nil }
        self.init(drafts: [draft], isList: false)
    }

    /// Reads one sentence per line, in `language` or (nil) each line in whichever language it
    /// is in; blank lines are skipped. Every line that is not a sentence, or breaks a rule,
    /// is reported with its number (counting from 1), up to `BrokenRules.limit`.
    public init(text: String, language: Language? = nil) throws(TripsError) {
        var drafts: [TripDraft] = []
        var broken = BrokenRules()
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            guard broken.checksMore() else { break }
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            do throws(TripsError) {
                drafts.append(try TripDraft(sentence: String(line), language: language))
            } catch {
                broken.add(.onLine(index + 1, error))
            }
        }
        if let error = TripsError.combining(broken.errors) { throw error }
        guard !drafts.isEmpty else { throw .unreadableSentence(text) }
        self.init(drafts: drafts, isList: drafts.count > 1)
    }
}
