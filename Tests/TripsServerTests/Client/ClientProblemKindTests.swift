import Testing
import TripsClient

@testable import TripsHTTP
@testable import TripsServer

/// The client reads a problem's kind from its `type`, and knows every kind the server names.
@Suite struct ClientProblemKindTests {
    @Test func theClientKnowsEveryKindTheServerNames() {
        #expect(Set(ProblemKind.allCases.map(\.type)) == Set(ProblemType.all.map(\.uri)))
    }

    @Test func aKindIsReadFromARelativeTypeOnly() {
        #expect(ProblemKind(type: "/problems/stale-if-match") == .staleIfMatch)
        #expect(ProblemKind(type: "/problems/unknown-ids") == .unknownIDs)
        for type in [
            "about:blank", "/problems/", "/problems/no-such-kind", "/problems/stale-if-match/x",
            "https://example.com/problems/stale-if-match", "",
        ] {
            #expect(ProblemKind(type: type) == nil, "\(type)")
        }
        let problem = Problem(
            status: 409, body: Array(#"{"type":"/problems/idempotency-conflict","title":"Conflict","status":409,"detail":"d"}"#.utf8))
        #expect(problem.kind == .idempotencyConflict)
        #expect(TripsClientError(refusal: problem).kind == .idempotencyConflict)
        #expect(Problem(status: 502, body: Array("<html>Bad Gateway</html>".utf8)).kind == nil)
        #expect(TripsClientError.connectionFailed("refused").kind == nil)
    }
}
