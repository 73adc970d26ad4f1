import Foundation
import Synchronization
import Testing
import TripsDomain

@testable import TripsFormats
@testable import TripsServer
@testable import TripsStore

@Suite struct APICreateTests {
    @Test(arguments: TestStore.all) func aJSONDraftBecomesATripWithALocation(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.json(
            "POST", "/trips", #"{"city": "Lisbon", "country": "Portugal", "nights": 4, "price": 0.1, "start": "2027-05-01"}"#)
        #expect(response.status == 201)
        #expect(response.field("Location") == "/trips/7")
        #expect(try response.member("id") == .number("7"))
        #expect(try response.member("price") == .number("0.1"))
        #expect(try response.member("start") == .string("2027-05-01T00:00:00Z"))
        #expect(response.field("ETag") == (try await api.request("GET", "/trips/7").field("ETag")))
        #expect(api.order == [1, 2, 3, 4, 5, 6, 7])
    }

    @Test(arguments: TestStore.all) func aSentenceBecomesATripToo(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.request(
            "POST", "/trips", headers: ["Content-Type": "text/plain; charset=utf-8", "Accept": "text/plain"],
            body: "Lisbon, Portugal: 4 nights from May 1, 2027")
        #expect(response.status == 201)
        #expect(response.text == "Lisbon, Portugal: 4 nights from May 1, 2027\n")
        #expect(api.store.list[7]?.nights == 4)
    }

    @Test(arguments: TestStore.all) func idsAreNeverReused(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        #expect(try await api.request("DELETE", "/trips/6").status == 204)
        let response = try await api.request(
            "POST", "/trips", headers: ["Content-Type": "text/plain"], body: "Oslo, Norway: 2 nights from June 1, 2027")
        #expect(response.field("Location") == "/trips/7")
        #expect(try await api.request("GET", "/trips/6").status == 404)
    }

    @Test(arguments: [
        ("application/json", "{not json", 400, nil as String?),
        ("application/json", "", 400, nil),
        ("application/json", #"{"city": "Lisbon", "country": "Portugal", "nights": 0, "price": 1, "start": "2027-05-01"}"#, 422, "nights"),
        (
            "application/json",
            #"{"city": "Lisbon", "country": "Portugal", "nights": 1, "price": 1, "start": "2027-05-01", "isFavourite": true}"#, 422,
            "isFavourite"
        ),
        ("text/plain", "Lisbon for a while", 422, nil),
        ("text/plain; charset=iso-8859-1", "Lisbon, Portugal: 4 nights from May 1, 2027", 415, nil),
        ("application/x-www-form-urlencoded", "city=Lisbon", 415, nil),
    ])
    func badDraftsAreRefusedAndAddNothing(contentType: String, body: String, status: Int, member: String?) async throws {
        let api = try await APIServer()
        defer { api.stop() }
        let response = try await api.request("POST", "/trips", headers: ["Content-Type": contentType], body: body)
        #expect(response.status == status)
        #expect(response.field("Content-Type") == "application/problem+json")
        if let member { #expect(try response.member("member") == .string(member)) }
        if status == 415 { #expect(response.field("Accept-Post") == "application/json, text/plain") }
        #expect(api.store.list == SampleTrips.list)
    }

    /// Content in a coding (`Content-Encoding`) is 415 with `Accept-Encoding: identity`, on
    /// every operation that reads a body: no body is decoded, and one read as it is was stored
    /// as a trip (found from outside). `identity` is no coding.
    @Test func contentInACodingIs415AndChangesNothing() async throws {
        let api = try await APIServer()
        defer { api.stop() }
        let sentence = "Oslo, Norway: 2 nights from June 1, 2027"
        for (method, target, type, coding) in [
            ("POST", "/trips", "text/plain", "br"), ("POST", "/trips", "text/plain", "gzip"),
            ("PATCH", "/trips/2", "application/merge-patch+json", "identity, deflate"),
            ("PUT", "/trips/2/photo", "image/png", "gzip"), ("POST", "/session", "application/x-www-form-urlencoded", "gzip"),
        ] {
            let response = try await api.request(
                method, target, headers: ["Content-Type": type, "Content-Encoding": coding], body: sentence)
            #expect(response.status == 415, "\(method) \(target) \(coding)")
            #expect(response.field("Accept-Encoding") == "identity", "\(method) \(target)")
        }
        #expect(api.store.list == SampleTrips.list)
        let plain = ["Content-Type": "text/plain", "Content-Encoding": "identity"]
        #expect(try await api.request("POST", "/trips", headers: plain, body: sentence).status == 201)
    }

    @Test(arguments: TestStore.all) func anUnacceptableAnswerRefusesTheChangeUpFront(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.request(
            "POST", "/trips", headers: ["Content-Type": "text/plain", "Accept": "image/png"],
            body: "Lisbon, Portugal: 4 nights from May 1, 2027")
        #expect(response.status == 406)
        #expect(api.store.list == SampleTrips.list)
    }
}

@Suite struct APIChangeTests {
    @Test(arguments: TestStore.all) func reorderMovesTripsByPostOrPatch(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let post = try await api.json("POST", "/trips/reorder", #"{"sources": [2], "destination": {"before": 1}}"#)
        #expect(post.status == 200)
        #expect(try post.ids == [2, 1, 3, 4, 5, 6])
        let patch = try await api.json("PATCH", "/trips", #"{"sources": [5, 3], "destination": "end"}"#)
        #expect(try patch.ids == [2, 1, 4, 6, 3, 5])
        #expect(api.order == [2, 1, 4, 6, 3, 5])
        let text = try await api.json(
            "POST", "/trips/reorder", #"{"sources": [1], "destination": "end"}"#, headers: ["Accept": "text/plain"])
        #expect(text.text.hasSuffix("Seattle, United States: 4 nights from January 12, 2027\n"))
    }

    @Test(arguments: [
        (#"{"sources": [2, 42], "destination": "end"}"#, 422, [42]),
        (#"{"sources": [2], "destination": {"before": 42}}"#, 422, [42]),
        (#"{"sources": [], "destination": "end"}"#, 422, nil as [Int]?),
        (#"{"sources": [2]}"#, 422, nil),
        (#"{"sources": [2], "destination": "end""#, 400, nil),
    ])
    func badDifferencesChangeNothing(body: String, status: Int, ids: [Int]?) async throws {
        let api = try await APIServer()
        defer { api.stop() }
        let response = try await api.json("POST", "/trips/reorder", body)
        #expect(response.status == status)
        if let ids { #expect(try response.member("ids") == .array(ids.map { .number(String($0)) })) }
        #expect(api.order == [1, 2, 3, 4, 5, 6])
    }

    @Test(arguments: TestStore.all) func sortOrdersTheStoredList(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.json("POST", "/trips/sort", #"{"by": "price"}"#)
        #expect(response.status == 200)
        #expect(try response.ids == [6, 2, 1, 4, 3, 5])
        #expect(api.order == [6, 2, 1, 4, 3, 5])
        #expect(try await api.json("POST", "/trips/sort", #"{"by": "name"}"#).status == 422)
    }

    @Test(arguments: TestStore.all) func deleteSeveralIsAllOrNothing(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let unknown = try await api.request("DELETE", "/trips?ids=1,42")
        #expect(unknown.status == 422)
        #expect(try unknown.member("ids") == .array([.number("42")]))
        #expect(api.order == [1, 2, 3, 4, 5, 6])
        #expect(try await api.request("DELETE", "/trips?ids=1,x").status == 400)
        #expect(try await api.request("DELETE", "/trips").status == 400)
        #expect(try await api.request("DELETE", "/trips?ids=3,1").status == 204)
        #expect(api.order == [2, 4, 5, 6])
    }

    @Test(arguments: TestStore.all) func putReplacesATrip(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let body = #"{"id": 2, "city": "Victoria", "country": "Canada", "nights": 2, "price": 500, "start": "2027-03-05"}"#
        let response = try await api.json("PUT", "/trips/2", body)
        #expect(response.status == 200)
        #expect(try response.member("city") == .string("Victoria"))
        #expect(try response.member("notes") == .string(""))
        let mismatch = try await api.json("PUT", "/trips/2", body.replacingOccurrences(of: #""id": 2"#, with: #""id": 3"#))
        #expect(mismatch.status == 422)
        #expect(try await api.json("PUT", "/trips/42", body.replacingOccurrences(of: #""id": 2, "#, with: "")).status == 404)
    }

    /// A trip read and sent back as it is replaces it with itself, photo and all: `photo`, like
    /// `id`, may be shown as the trip has it, and another one is refused.
    @Test(arguments: TestStore.all) func putTakesBackTheTripItsClientRead(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let photo = examplePhotoBytes(1)
        try await api.store.setPhoto(2, photo)
        let read = try await api.request("GET", "/trips/2")
        let echoed = try await api.json("PUT", "/trips/2", read.text)
        #expect(echoed.status == 200)
        #expect(try echoed.member("photo") == read.member("photo"))
        let other = read.text.replacingOccurrences(of: photo.photo.digest, with: examplePhotoBytes(2).photo.digest)
        let refused = try await api.json("PUT", "/trips/2", other)
        #expect(refused.status == 422)
        #expect(refused.text.contains("photo"))
        let created = try await api.json("POST", "/trips", read.text.replacingOccurrences(of: #""id":2,"#, with: ""))
        #expect(created.status == 422)
        #expect(api.store.list[2]?.photo == photo.photo)
    }

    @Test(arguments: TestStore.all) func patchMergesFields(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.json(
            "PATCH", "/trips/2", #"{"nights": 5, "notes": null}"#, headers: ["Content-Type": "application/merge-patch+json"])
        #expect(response.status == 200)
        #expect(try response.member("nights") == .number("5"))
        #expect(try response.member("notes") == .string(""))
        #expect(try response.member("city") == .string("Vancouver"))
        let nullCity = try await api.json("PATCH", "/trips/2", #"{"city": null}"#)
        #expect(nullCity.status == 422)
        #expect(try nullCity.member("member") == .string("city"))
        let text = try await api.request("PATCH", "/trips/2", headers: ["Content-Type": "text/plain"], body: "nights 5")
        #expect(text.status == 415)
        #expect(text.field("Accept-Patch") == "application/merge-patch+json, application/json")
        #expect(try await api.json("PATCH", "/trips/42", #"{"nights": 5}"#).status == 404)
        #expect(api.store.list[2]?.nights == 5)
    }

    @Test(arguments: TestStore.all) func deleteOneTrip(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        #expect(try await api.request("DELETE", "/trips/2").status == 204)
        #expect(try await api.request("DELETE", "/trips/2").status == 404)
        #expect(api.order == [1, 3, 4, 5, 6])
    }
}

@Suite struct APIFavoriteTests {
    @Test(arguments: TestStore.all) func aDropSaysWhatChangedSoTheClientKnowsWhenToPlayItsHaptic(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let first = try await api.json("POST", "/favorites", #"[2, {"id": 3, "city": "Atacama"}, 1]"#)
        #expect(first.status == 200)
        #expect(try first.member("added") == .array([.number("2"), .number("3")]))
        guard case .array(let favorites)? = try first.member("favorites") else { throw TestFailure("no favorites") }
        #expect(favorites.count == 4)
        let again = try await api.json("PATCH", "/favorites", "[2, 3]")
        #expect(try again.member("added") == .array([]))
    }

    /// A drop's answer lists every favorite, so it grows with the list: it is made off the
    /// store's writer thread, which the next change waits for. With that work held back, a
    /// create sent after the drop is answered first.
    @Test(arguments: TestStore.all) func aDropsAnswerIsMadeOffTheStoresWriter(store: TestStore) async throws {
        let api = try await APIServer(on: store, mode: .live)
        defer { api.stop() }
        let (port, work) = (api.port, api.heavyWork)
        let (waited, created, dropped) = try await onOwnThread {
            work.suspend()
            var held = true
            defer { if held { work.resume() } }
            let drop = try TestClient(port: port)
            try drop.send("POST /favorites HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n[2]")
            let create = try TestClient(port: port)
            let body = #"{"city":"Faro","country":"Portugal","nights":2,"price":100,"start":"2027-05-01"}"#
            try create.send(
                "POST /trips HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
            let created = try create.readResponse()
            let waited = !drop.hasBytesWaiting()
            work.resume()
            held = false
            return (waited, created.status, try drop.readResponse())
        }
        #expect(waited)
        #expect(created == 201)
        #expect(dropped.status == 200)
        #expect(try dropped.member("added") == .array([.number("2")]))
    }

    @Test(arguments: TestStore.all) func aTextDropNamesTripsByCityOrSentence(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let response = try await api.request(
            "PATCH", "/favorites", headers: ["Content-Type": "text/plain", "Accept": "text/plain"],
            body: "vancouver\nAtacama, Chile: 6 nights from April 20, 2027\n")
        #expect(response.status == 200)
        #expect(response.text.hasPrefix("New favorites: Vancouver, Atacama.\n"))
        #expect(api.store.list.trips.filter(\.isFavorite).map(\.id) == [1, 2, 3, 5])
    }

    @Test(arguments: TestStore.all) func aDropWithAnUnknownTripChangesNothing(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let unknown = try await api.json("POST", "/favorites", "[2, 42]")
        #expect(unknown.status == 422)
        #expect(try unknown.member("ids") == .array([.number("42")]))
        let unnamed = try await api.request("POST", "/favorites", headers: ["Content-Type": "text/plain"], body: "Vancouver\nParis")
        #expect(unnamed.status == 422)
        #expect(try await api.json("POST", "/favorites", #"{"id": 42}"#).status == 422)
        #expect(api.store.list == SampleTrips.list)
    }

    /// A name within 200 characters but over 200 code points (a letter under a pile of
    /// combining marks) breaks the contract's `maxLength`: refused with 422 by a create, a
    /// replace and a merge patch, on either store, and nothing changes.
    @Test(arguments: TestStore.all) func aNameOverItsLimitInCodePointsIs422(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let marked = String(repeating: "o\u{301}\u{302}", count: 100)  // 100 characters, 300 code points
        let body = #"{"city": "Oslo", "country": "\#(marked)", "nights": 4, "price": 1, "start": "2027-05-01"}"#
        for (method, target) in [("POST", "/trips"), ("PUT", "/trips/2")] {
            let refused = try await api.json(method, target, body)
            #expect(refused.status == 422, "\(method)")
            #expect(try refused.member("member") == .string("country"), "\(method)")
        }
        let patch = try await api.request(
            "PATCH", "/trips/2", headers: ["Content-Type": "application/merge-patch+json"], body: #"{"city": "\#(marked)"}"#)
        #expect(patch.status == 422)
        #expect(api.store.list == SampleTrips.list)
    }

    /// A drop finds trips by the folded words the list keeps with them, which follow every
    /// change: a create, a rename through PATCH, a delete and a reorder.
    @Test(arguments: TestStore.all) func namesResolveAfterCreatesRenamesDeletesAndReorders(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        func drop(_ text: String) async throws -> TestResponse {
            try await api.request("POST", "/favorites", headers: ["Content-Type": "text/plain"], body: text)
        }
        let lisbon = #"{"city": "Lisbon", "country": "Portugal", "nights": 4, "price": 1, "start": "2027-05-01"}"#
        #expect(try await api.json("POST", "/trips", lisbon).status == 201)  // 7
        #expect(try await api.json("PATCH", "/trips/7", #"{"city": "Pôrto"}"#).status == 200)
        #expect(try await drop("lisbon").status == 422)
        #expect(try await drop("PORTO").member("added") == .array([.number("7")]))
        #expect(try await api.request("DELETE", "/trips/2").status == 204)
        #expect(try await drop("Vancouver").status == 422)
        #expect(try await api.json("POST", "/trips", lisbon.replacingOccurrences(of: "Lisbon", with: "ZURICH")).status == 201)  // 8
        #expect(try await drop("zürich").member("ids") == .array([.number("6"), .number("8")]))
        let move = #"{"sources": [8], "destination": {"before": 6}}"#
        #expect(try await api.json("POST", "/trips/reorder", move).status == 200)
        #expect(try await drop("zürich").member("ids") == .array([.number("8"), .number("6")]))
        #expect(try await drop("Pôrto, Portugal: 4 nights from May 1, 2027").member("added") == .array([]))
    }

    @Test(arguments: TestStore.all) func oneTripCanBeMadeAFavoriteOrNot(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let put = try await api.request("PUT", "/favorites/2")
        #expect(put.status == 200)
        #expect(try put.member("isFavorite") == .bool(true))
        let delete = try await api.request("DELETE", "/favorites/1")
        #expect(try delete.member("isFavorite") == .bool(false))
        #expect(try await api.request("GET", "/favorites").ids == [2, 5])
        #expect(try await api.request("PUT", "/favorites/42").status == 404)
    }
}

/// `Prefer: return=minimal` (RFC 7240): a reorder or a sort answered with 204 and the list's
/// new tag and revision, not the whole list.
@Suite struct APIPreferMinimalTests {
    @Test(arguments: ["return=minimal", "RETURN = \"minimal\"", "respond-async, return=minimal;x=1"])
    func aMinimalReorderAnswersNoList(prefer: String) async throws {
        let api = try await APIServer()
        let moved = try await api.request(
            "PATCH", "/trips", headers: ["Content-Type": "application/json", "Prefer": prefer],
            body: #"{"sources":[2],"destination":"end"}"#)
        #expect(moved.status == 204)
        #expect(moved.body.isEmpty)
        #expect(moved.field("Preference-Applied") == "return=minimal")
        #expect(moved.field("Trips-Revision") == "1")
        #expect(moved.field("ETag") == #""list-r1-json""#)
        #expect(api.store.list.trips.map(\.id) == [1, 3, 4, 5, 6, 2])
        let list = try await api.request("GET", "/trips")
        #expect(list.field("ETag") == moved.field("ETag"))
    }

    @Test(arguments: TestStore.all) func withoutThePreferenceTheListComesBackAndConditionsStillHold(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        let full = try await api.request(
            "POST", "/trips/sort", headers: ["Content-Type": "application/json", "Prefer": "return=representation"],
            body: #"{"by":"price"}"#)
        #expect(full.status == 200 && full.field("Preference-Applied") == nil)
        let stale = try await api.request(
            "PATCH", "/trips", headers: ["Content-Type": "application/json", "Prefer": "return=minimal", "If-Match": #""list-r0-json""#],
            body: #"{"sources":[2],"destination":"end"}"#)
        #expect(stale.status == 412)
    }

    /// A minimal drop asks the store for no copy of the list (which would make its next
    /// changes copy what they touch); the full answer, which lists every favorite, does.
    @Test func aMinimalDropAsksTheStoreForNoList() async throws {
        let store = ListRequestRecordingStore()
        let api = try await APIServer(store: store)
        defer { api.stop() }
        let minimal = try await api.request(
            "PATCH", "/favorites", headers: ["Content-Type": "application/json", "Prefer": "return=minimal"], body: "[3, 2]")
        #expect(minimal.text == #"{"added":[2,3]}"#)
        _ = try await api.json("POST", "/favorites", "[6]")
        #expect(store.returningList.withLock { $0 } == [false, true])
    }

    /// A favorite drop answered with `added` alone (the text: its first line), and the same
    /// tag and revision as the full answer would have.
    @Test(arguments: TestStore.all) func aMinimalDropAnswersWhatWasAddedWithoutTheFavorites(store: TestStore) async throws {
        let api = try await APIServer(on: store)
        defer { api.stop() }
        let minimal = try await api.request(
            "PATCH", "/favorites", headers: ["Content-Type": "application/json", "Prefer": "return=minimal"], body: "[3, 2]")
        #expect(minimal.status == 200)
        #expect(minimal.text == #"{"added":[2,3]}"#)
        #expect(minimal.field("Preference-Applied") == "return=minimal")
        #expect(minimal.field("Trips-Revision") == "1")
        #expect(minimal.field("ETag") == #""list-r1-json""#)
        let text = try await api.request(
            "POST", "/favorites",
            headers: ["Content-Type": "application/json", "Accept": "text/plain", "Prefer": "return=minimal"], body: "[4, 2]")
        #expect(text.text == "New favorites: New York.\n")
        let full = try await api.json("POST", "/favorites", "[6]")
        #expect(full.field("Preference-Applied") == nil)
        guard case .array(let favorites)? = try full.member("favorites") else { throw TestFailure("the full answer lists no favorites") }
        #expect(favorites.count == 6)
    }
}

/// A store in memory that notes, for each change submitted, whether it asked for the list.
private final class ListRequestRecordingStore: TripStoring {
    let base = MemoryTripStore(seedSamples: true)
    let returningList = Mutex<[Bool]>([])

    var keepsAJournal: Bool { false }
    var list: TripList { base.list }
    var statistics: (store: StoreStatistics, trips: Int, revision: UInt64) { base.statistics }
    var writeFailure: StorageError? { base.writeFailure }
    func read<T>(_ body: (borrowing TripList) throws -> T) rethrows -> T { try base.read(body) }
    func withHistory<T>(_ body: (ChangeHistory) throws -> T) rethrows -> T { try base.withHistory(body) }
    func setChangeListener(_ listener: @escaping @Sendable (ChangeEvent) -> Void) { base.setChangeListener(listener) }
    func photo(digest: String) throws(StorageError) -> PhotoBytes? { base.photo(digest: digest) }
    func close() { base.close() }

    func submit(_ request: ChangeRequest, completion: @escaping @Sendable (Result<Mutation, MutationError>) -> Void) {
        returningList.withLock { $0.append(request.returningList) }
        base.submit(request, completion: completion)
    }
}
