import FuzzSupport
import TripsDomain
@testable import TripsFormats

/// The whole input is a request body.
///
/// Properties: no crash; a parsed document written out again parses to itself; an
/// accepted draft validates, is added, and reads back from the trip's JSON unchanged; an
/// accepted merge patch (on each sample trip and an unknown id) gives a draft that
/// validates and replaces the trip in place; an accepted difference moves the trips as a
/// naive model does, or throws and changes nothing; an accepted drop makes exactly the
/// dropped trips favorites, or throws and changes nothing. The list stays whole throughout.
/// The shortcuts read only what the general reading reads, and read it alike (`checkShortcuts`).
func checkJSONBodies(_ input: [UInt8]) {
    checkShortcuts(input)
    guard let json = try? JSONValue(parsing: input) else { return }
    precondition((try? JSONValue(parsing: write(json))) == json, "a written-out document parses differently")
    let samples = TripList.samples

    if let draft = try? TripDraft(json: json) {
        precondition((try? draft.validate()) != nil, "an accepted draft does not validate")
        var list = samples
        guard let trip = try? list.add(draft) else { preconditionFailure("an accepted draft is not added") }
        checkWhole(list)
        var writer = JSONWriter()
        trip.writeJSON(to: &writer)
        let readBack = (try? JSONValue(parsing: writer.bytes)).flatMap { try? TripDraft(json: $0, replacing: trip) }
        precondition(readBack == draft, "the trip's JSON reads back as \(String(describing: readBack)), not \(draft)")
    }

    for id in samples.trips.map(\.id) + [999] {
        guard let draft = try? samples.draft(patching: id, with: json) else { continue }
        precondition((try? draft.validate()) != nil, "a patched draft does not validate")
        var list = samples
        guard (try? list.apply(.replace(id, draft))) != nil else { preconditionFailure("a patched draft is refused") }
        precondition(list.trips.map(\.id) == samples.trips.map(\.id), "a patch moved or lost trips")
        precondition(list[id]?.draft == draft, "the patched trip is not the draft")
        checkWhole(list)
    }

    if let difference = try? ReorderDifference(json: json) {
        var list = samples
        if (try? list.apply(.move(difference))) != nil {
            precondition(list.trips.map(\.id) == naiveMove(samples.trips.map(\.id), difference), "moved unlike the model")
        } else {
            precondition(list == samples, "a refused difference changed the list")
        }
        checkWhole(list)
    }

    if let drop = try? FavoriteDrop(json: json) {
        checkDrop(drop, on: samples)
    }
}

/// A flat object's members are the parsed document's, and nothing else is read that way; a
/// new trip read straight from the bytes is the one the parsed document gives.
private func checkShortcuts(_ input: [UInt8]) {
    let document = try? JSONValue(parsing: input)
    if let members = JSONValue.flatObjectMembers(parsing: input) {
        let object = JSONValue.object(Dictionary(members.map { ($0.name, $0.value) }) { first, _ in first })
        precondition(document == object && Set(members.map(\.name)).count == members.count, "flat members unlike the document")
    }
    if let shortcut = NewTrips(flatJSON: input) {
        precondition(document.flatMap { try? NewTrips(json: $0) } == shortcut, "a new trip read straight differs from the document's")
    }
}

/// The reorder rule written the plain way: take the moving trips out in list order, then
/// put them in front of the first trip at or after the destination that is not moving.
private func naiveMove(_ ids: [Int], _ difference: ReorderDifference) -> [Int] {
    let moving = Set(difference.sources)
    let block = ids.filter { moving.contains($0) }
    var rest = ids.filter { !moving.contains($0) }
    var insertion = rest.count
    if case .before(let target) = difference.destination, let position = ids.firstIndex(of: target) {
        for id in ids[position...] where !moving.contains(id) {
            insertion = rest.firstIndex(of: id)!
            break
        }
    }
    rest.insert(contentsOf: block, at: insertion)
    return rest
}

/// Writes a JSON value back out with the writer the server uses.
private func write(_ value: JSONValue) -> [UInt8] {
    var writer = JSONWriter()
    write(value, to: &writer)
    return writer.bytes
}

private func write(_ value: JSONValue, to writer: inout JSONWriter) {
    switch value {
    case .null: writer.appendRaw("null")
    case .bool(let bool): writer.appendBool(bool)
    case .number(let literal): writer.appendRaw(literal)
    case .string(let string): writer.appendString(string)
    case .array(let elements):
        writer.appendRaw("[")
        for (index, element) in elements.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            write(element, to: &writer)
        }
        writer.appendRaw("]")
    case .object(let members):
        writer.appendRaw("{")
        for (index, (name, member)) in members.enumerated() {
            if index > 0 { writer.appendRaw(",") }
            writer.appendString(name)
            writer.appendRaw(":")
            write(member, to: &writer)
        }
        writer.appendRaw("}")
    }
}
