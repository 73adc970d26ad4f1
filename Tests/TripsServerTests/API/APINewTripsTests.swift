import Foundation
import Testing
import TripsDomain
@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

/// `POST /trips` with several trips at once (lines of text, a JSON array), where they land,
/// and how a body that breaks rules is refused.
@Suite struct APINewTripsTests {
    @Test(arguments: TestStore.all) func severalLinesOfTextAreADropOfSeveralTripsAnsweredWithAList(store: TestStore) async throws {
        let api = try await APIServer(on: store, mode: .live)
        defer { api.stop() }
        let response = try await api.request(
            "POST", "/trips", headers: ["Content-Type": "text/plain", "Accept": "text/plain"],
            body: "Lisbon, Portugal: 4 nights from May 1, 2027\r\n\n  \nOslo, Norway: 1 night from June 1, 2027\n")
        #expect(response.status == 201)
        #expect(response.field("Location") == nil)
        #expect(response.text == "Lisbon, Portugal: 4 nights from May 1, 2027\nOslo, Norway: 1 night from June 1, 2027\n")
        #expect(api.order == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(api.store.list[8]?.city == "Oslo")
    }

    @Test(arguments: TestStore.all) func aBadLineRefusesTheWholeDropAndNamesTheLine(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.request(
            "POST", "/trips", headers: ["Content-Type": "text/plain"],
            body: "Lisbon, Portugal: 4 nights from May 1, 2027\nOslo for a while\nBergen, Norway: 0 nights from June 1, 2027")
        #expect(response.status == 422)
        #expect(try response.member("line") == .number("2"))
        guard case .array(let errors)? = try response.member("errors") else { throw TestFailure("no errors: \(response.text)") }
        #expect(errors.count == 2)
        #expect(
            errors.last
                == .object([
                    "line": .number("3"), "member": .string("nights"), "detail": .string("line 3: nights: must be between 1 and 365"),
                ]))
        #expect(api.store.list == SampleTrips.list)
    }

    @Test(arguments: TestStore.all) func aJSONArrayOfDraftsIsTheSameDrop(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let drafts =
            #"[{"city":"Lisbon","country":"Portugal","nights":4,"price":1,"start":"2027-05-01"},{"city":"Oslo","country":"Norway","nights":1,"price":2,"start":"2027-06-01"}]"#
        let response = try await api.json("POST", "/trips", drafts)
        #expect(response.status == 201)
        #expect(try response.ids == [7, 8])
        let one = try await api.json("POST", "/trips", #"[{"city":"Faro","country":"Portugal","nights":2,"price":1,"start":"2027-07-01"}]"#)
        #expect(try one.ids == [9])  // an array is answered with a list, even of one
        let bad = try await api.json(
            "POST", "/trips",
            #"[{"city":"Faro","country":"Portugal","nights":2,"price":1,"start":"2027-07-01"},{"city":"Faro","country":"Portugal","nights":0,"price":1,"start":"2027-07-01"}]"#
        )
        #expect(bad.status == 422)
        #expect(try bad.member("member") == .string("[1].nights"))
        #expect(try await api.json("POST", "/trips", "[]").status == 422)
        #expect(api.order == [1, 2, 3, 4, 5, 6, 7, 8, 9])
    }

    @Test(arguments: TestStore.all) func beforePlacesTheNewTripsInFrontOfATrip(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.request(
            "POST", "/trips?before=2", headers: ["Content-Type": "text/plain"],
            body: "Lisbon, Portugal: 4 nights from May 1, 2027\nOslo, Norway: 1 night from June 1, 2027")
        #expect(response.status == 201)
        #expect(api.order == [1, 7, 8, 2, 3, 4, 5, 6])
        let one = try await api.request(
            "POST", "/trips?before=1", headers: ["Content-Type": "text/plain"], body: "Faro, Portugal: 2 nights from July 1, 2027")
        #expect(one.field("Location") == "/trips/9")
        #expect(api.order == [9, 1, 7, 8, 2, 3, 4, 5, 6])

        let unknown = try await api.request(
            "POST", "/trips?before=42", headers: ["Content-Type": "text/plain"], body: "Faro, Portugal: 2 nights from July 1, 2027")
        #expect(unknown.status == 422)
        #expect(try unknown.member("member") == .string("before"))
        let tooLarge = try await api.request(
            "POST", "/trips?before=99999999999999999999999", headers: ["Content-Type": "text/plain"],
            body: "Faro, Portugal: 2 nights from July 1, 2027")
        #expect(tooLarge.status == 422)
        #expect(
            try await api.request(
                "POST", "/trips?before=x", headers: ["Content-Type": "text/plain"], body: "Faro, Portugal: 2 nights from July 1, 2027"
            ).status == 400)
        #expect(
            try await api.request(
                "POST", "/trips?at=1", headers: ["Content-Type": "text/plain"], body: "Faro, Portugal: 2 nights from July 1, 2027"
            ).status == 400)
        #expect(api.order == [9, 1, 7, 8, 2, 3, 4, 5, 6])
    }

    /// The page undoes a delete by creating the trips again where they were, on the list it
    /// saw: a list that moved meanwhile refuses it rather than guessing the place.
    @Test(arguments: TestStore.all) func ifMatchGuardsACreateAgainstAListThatMoved(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let listTag = try #require(try await api.request("GET", "/trips").field("ETag"))
        let lisbon = ["Content-Type": "text/plain", "If-Match": listTag]
        let created = try await api.request("POST", "/trips?before=2", headers: lisbon, body: "Lisbon, Portugal: 4 nights from May 1, 2027")
        #expect(created.status == 201)
        let stale = try await api.request("POST", "/trips?before=2", headers: lisbon, body: "Oslo, Norway: 1 night from June 1, 2027")
        #expect(stale.status == 412)
        let drafts = #"[{"city":"Oslo","country":"Norway","nights":1,"price":1,"start":"2027-06-01"}]"#
        let staleList = try await api.json("POST", "/trips", drafts, headers: ["If-Match": listTag])
        #expect(staleList.status == 412)
        #expect(api.order == [1, 7, 2, 3, 4, 5, 6])
    }

    @Test(arguments: TestStore.all) func a422ListsEveryRuleTheBodyBreaks(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.json(
            "POST", "/trips", #"{"city": " ", "country": "Canada, BC", "nights": 0, "price": -1, "start": "soon", "isFavourite": true}"#)
        #expect(response.status == 422)
        #expect(try response.member("member") == .string("city"))
        guard case .array(let errors)? = try response.member("errors") else { throw TestFailure("no errors: \(response.text)") }
        let members = errors.compactMap { error -> String? in
            if case .object(let fields) = error, case .string(let member)? = fields["member"] { return member }
            return nil
        }
        #expect(members == ["city", "country", "nights", "price", "start", "isFavourite"])
        #expect(api.store.list == SampleTrips.list)
    }

    /// A body that breaks rules many times over (20,000 empty drafts, five rules each) is
    /// checked until it has broken 100, and says the rest was not checked: checking and
    /// listing every one made a 1 MiB body a 170 MB answer, 1.8 s of an event loop.
    @Test func aBodyIsCheckedUntilItHasBrokenAHundredRules() async throws {
        let api = try await APIServer(on: .memory)
        defer { api.stop() }
        let body = "[" + Array(repeating: "{}", count: 20_000).joined(separator: ",") + "]"
        let response = try await api.json("POST", "/trips", body)
        #expect(response.status == 422)
        #expect(response.body.count < 40_000, "\(response.body.count) bytes")
        guard case .array(let errors)? = try response.member("errors") else { throw TestFailure("no errors: \(response.text)") }
        #expect(errors.count == 101)
        #expect(errors.last == .object(["detail": .string("the rest was not checked after 100 broken rules")]))
        let lines = Array(repeating: "x", count: 500).joined(separator: "\n")
        let text = try await api.request("POST", "/trips", headers: ["Content-Type": "text/plain"], body: lines)
        #expect(text.status == 422)
        #expect(text.body.count < 40_000, "\(text.body.count) bytes: 500 lines listed would be 100 KB")
        #expect(api.store.list == SampleTrips.list)
    }

    /// Whatever made them, at most 200 broken rules are listed, the rest counted.
    @Test func a422ListsAtMostTwoHundredRules() throws {
        let error = APIError(.several((0..<1_000).map { .inElement($0, .invalidField(.nights, "must be between 1 and 365")) }))
        #expect(error.errors?.count == 200)
        #expect(error.detail.hasSuffix("[199]: nights: must be between 1 and 365; and 800 more"), "\(error.detail.suffix(80))")
    }

    @Test(
        arguments: TestStore.all,
        [
            (#"{"city": "Van\ncouver", "country": "Canada", "nights": 3, "price": 1, "start": "2027-03-05"}"#, "city"),
            (#"{"city": "Van\u0000couver", "country": "Canada", "nights": 3, "price": 1, "start": "2027-03-05"}"#, "city"),
            (#"{"city": "Vancouver", "country": "Canada, BC", "nights": 3, "price": 1, "start": "2027-03-05"}"#, "country"),
            (#"{"city": "Vancouver", "country": "\u0085", "nights": 3, "price": 1, "start": "2027-03-05"}"#, "country"),
        ])
    func aNameThatCannotSurviveItsSentenceIs422OnEveryPath(store: TestStore, example: (body: String, member: String)) async throws {
        let (body, member) = example
        let api = try await APIServer(on: store)
        defer { api.stop() }
        for (method, target, type) in [
            ("POST", "/trips", "application/json"), ("PUT", "/trips/2", "application/json"),
            ("PATCH", "/trips/2", "application/merge-patch+json"),
        ] {
            let response = try await api.request(method, target, headers: ["Content-Type": type], body: body)
            #expect(response.status == 422, "\(method) \(target)")
            #expect(try response.member("member") == .string(member))
        }
        #expect(api.store.list == SampleTrips.list)
    }

    @Test(arguments: TestStore.all) func aCityWithACommaSurvivesItsSentenceOverHTTP(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let created = try await api.json(
            "POST", "/trips",
            #"{"city": "  Washington, D.C. ", "country": "United States", "nights": 2, "price": 1, "start": "2027-07-04"}"#)
        #expect(try created.member("city") == .string("Washington, D.C."))
        let sentence = try await api.request("GET", "/trips/7", headers: ["Accept": "text/plain"]).text
        let again = try await api.request("POST", "/trips", headers: ["Content-Type": "text/plain"], body: sentence)
        #expect(api.store.list[8]?.city == "Washington, D.C.")
        #expect(api.store.list[8]?.country == "United States")
        #expect(again.status == 201)
    }

    @Test(arguments: TestStore.all) func aSentenceOrASingleTripObjectIsAFavoriteDrop(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let sentence = try await api.request(
            "POST", "/favorites", headers: ["Content-Type": "text/plain"], body: "vancouver, CANADA: 3 nights from march 5, 2027")
        #expect(try sentence.member("added") == .array([.number("2")]))
        let trip = try await api.request("GET", "/trips/3").text
        let object = try await api.json("POST", "/favorites", trip)
        #expect(try object.member("added") == .array([.number("3")]))
    }

    @Test(arguments: TestStore.all) func aSentenceThatMatchesSeveralTripsIs422WithTheirIds(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let sentence = "Vancouver, Canada: 3 nights from March 5, 2027"
        _ = try await api.request("POST", "/trips", headers: ["Content-Type": "text/plain"], body: sentence)
        let response = try await api.request("POST", "/favorites", headers: ["Content-Type": "text/plain"], body: sentence)
        #expect(response.status == 422)
        #expect(try response.member("ids") == .array([.number("2"), .number("7")]))
    }
}
