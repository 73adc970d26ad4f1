import Foundation
import Testing
import TripsDomain

/// What the change feed says of each kind of change: one line of JSON a client holding the
/// list can apply.
@Suite struct ChangeEventTests {
    private func event(_ change: TripChange, on list: inout TripList) throws -> (String, String)? {
        guard let event = try list.applyTelling(change).event else { return nil }
        return (event.name, String(decoding: event.data, as: UTF8.self))
    }

    @Test func everyKindOfChangeHasItsEvent() throws {
        var list = TripList.samples
        let created = try event(.add([lisbonDraft()], before: 2), on: &list)
        #expect(created?.0 == "created")
        #expect(created?.1.hasPrefix(#"{"revision":1,"trips":[{"id":7,"city":"Lisbon""#) == true)
        #expect(created?.1.hasSuffix(#""notes":"","photo":null}],"before":2}"#) == true)
        #expect(try event(.add(lisbonDraft()), on: &list)?.1.hasSuffix(#"],"before":null}"#) == true)
        let updated = try event(.replace(2, lisbonDraft()), on: &list)
        #expect(updated?.0 == "updated")
        #expect(updated?.1.hasPrefix(#"{"revision":3,"trip":{"id":2,"city":"Lisbon""#) == true)
        #expect(try event(.delete([8]), on: &list)! == ("deleted", #"{"revision":4,"ids":[8]}"#))
        #expect(
            try event(.move(ReorderDifference(sources: [3], destination: .end)), on: &list)!
                == ("reordered", #"{"revision":5,"sources":[3],"destination":"end"}"#))
        #expect(
            try event(.move(ReorderDifference(sources: [6], destination: .before(1))), on: &list)!
                == ("reordered", #"{"revision":6,"sources":[6],"destination":{"before":1}}"#))
        #expect(try event(.sort(.price), on: &list)!.1.hasPrefix(#"{"revision":7,"by":"price","order":["#))
        #expect(try event(.makeFavorites([2, 3, 1]), on: &list)! == ("favorites", #"{"revision":8,"added":[2,3],"removed":[]}"#))
        #expect(try event(.setFavorite(3, false), on: &list)! == ("favorites", #"{"revision":9,"added":[],"removed":[3]}"#))
        #expect(try event(.setFavorite(4, true), on: &list)! == ("favorites", #"{"revision":10,"added":[4],"removed":[]}"#))
    }

    @Test func aChangeThatChangesNothingHasNoEvent() throws {
        var list = TripList.samples
        #expect(try event(.makeFavorites([1]), on: &list) == nil)
        #expect(try event(.move(ReorderDifference(sources: [6], destination: .end)), on: &list) == nil)
        #expect(try event(.setFavorite(1, true), on: &list) == nil)
    }

    /// The one trip a `created` or `updated` event carries is found in its data, byte for byte
    /// the trip's JSON, for the change's answer to send; an event read back does not know it
    /// and is still the same event.
    @Test func theOneTripAnEventCarriesIsFoundInItsData() throws {
        // What the answer would write: the trip's first representation, JSON.
        func json(_ trip: Trip) -> [UInt8] { Trip.transferRepresentations[0].export(trip) }
        var list = TripList.samples
        let created = try #require(try list.applyTelling(.add([lisbonDraft()], before: 2)).event)
        #expect(created.tripJSON.map(Array.init) == json(try #require(list[7])))
        let updated = try #require(try list.applyTelling(.replace(2, lisbonDraft())).event)
        #expect(updated.tripJSON.map(Array.init) == json(try #require(list[2])))
        let two = try #require(try list.applyTelling(.add([lisbonDraft(), lisbonDraft()], before: nil)).event)
        #expect(two.tripJSON == nil)
        let favorites = try #require(try list.applyTelling(.setFavorite(3, true)).event)
        #expect(favorites.tripJSON == nil)
        let readBack = ChangeEvent(revision: created.revision, name: created.name, data: created.data)
        #expect(readBack.tripJSON == nil && readBack == created && readBack.hashValue == created.hashValue)
    }

    /// A stored event's name is read from its bytes as the one string kept for it: each name
    /// the feed sends, and nothing else (no prefix, no longer word, no other case).
    @Test func aChangeNameIsReadFromItsBytesAndNoOtherBytesAreOne() {
        func read(_ text: String) -> String? { Array(text.utf8).withUnsafeBytes { ChangeEvent.changeName(utf8: $0) } }
        for name in ["created", "updated", "deleted", "reordered", "sorted", "favorites"] {
            #expect(read(name) == name)
            #expect(ChangeEvent.isChangeName(name))
        }
        for other in ["create", "createdd", "Created", "", "reset", "sorted ", "favourites"] {
            #expect(read(other) == nil, "\(other)")
        }
    }
}
