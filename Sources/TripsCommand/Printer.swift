import Foundation
import TripsClient
import TripsDomain
import TripsFormats

/// Writes what `trips` shows: sentences in the terminal's language, or JSON for scripts.
struct Printer {
    var json: Bool
    var language: Language

    func trips(_ trips: [Trip]) {
        if json { return write { trips.writeJSON(to: &$0) } }
        for trip in trips { line(summary(trip)) }
    }

    func trip(_ trip: Trip) {
        if json { return write { trip.writeJSON(to: &$0) } }
        line(summary(trip))
        line("  price \(trip.price)\(trip.notes.isEmpty ? "" : "\n  notes \(trip.notes)")\(trip.photo.map { "\n  photo \($0.url)" } ?? "")")
    }

    /// `2  Vancouver, Canada: 3 nights from March 5, 2027  ★`
    func summary(_ trip: Trip) -> String {
        "\(trip.id)  \(trip.sentence(in: language))\(trip.isFavorite ? "  ★" : "")"
    }

    func favorites(_ answer: FavoritesAnswer) {
        if json {
            return write { writer in
                writer.appendRaw(#"{"added":"#)
                writer.appendIntegers(answer.added)
                writer.appendRaw(#","favorites":"#)
                answer.favorites.writeJSON(to: &writer)
                writer.appendRaw("}")
            }
        }
        let names = answer.favorites.filter { answer.added.contains($0.id) }.map(\.city)
        line(answer.added.isEmpty ? "No new favorites." : "Added to favorites: \(names.joined(separator: ", ")).")
    }

    /// One line per change of the feed.
    func change(_ event: TripChangeEvent) {
        if json { return write { event.writeJSON(to: &$0) } }
        switch event {
        case .created(let revision, let trips, let before):
            for trip in trips { line("[\(revision)] added \(summary(trip))\(before.map { " (before \($0))" } ?? "")") }
        case .updated(let revision, let trip): line("[\(revision)] changed \(summary(trip))")
        case .deleted(let revision, let ids): line("[\(revision)] deleted \(list(ids))")
        case .reordered(let revision, let difference):
            let destination = if case .before(let id) = difference.destination { "before \(id)" } else { "to the end" }
            line("[\(revision)] moved \(list(difference.sources)) \(destination)")
        case .sorted(let revision, let key, _): line("[\(revision)] sorted by \(key.rawValue)")
        case .favorites(let revision, let added, let removed):
            if !added.isEmpty { line("[\(revision)] favorites added \(list(added))") }
            if !removed.isEmpty { line("[\(revision)] favorites removed \(list(removed))") }
        case .reset(let revision): line("[\(revision)] reset: read the list again")
        }
    }

    func done(_ message: String) {
        if !json { line(message) }
    }

    private func list(_ ids: [Trip.ID]) -> String { ids.map(String.init).joined(separator: ", ") }

    private func write(_ body: (inout JSONWriter) -> Void) {
        var writer = JSONWriter()
        body(&writer)
        line(String(decoding: writer.bytes, as: UTF8.self))
    }

    private func line(_ text: String) {
        FileHandle.standardOutput.write(Data(((json ? text : TerminalText.shown(text)) + "\n").utf8))
    }
}

extension TripChangeEvent {
    /// The event as one line of JSON, its name as `event`: what the feed's long poll writes.
    func writeJSON(to writer: inout JSONWriter) {
        writer.appendRaw(#"{"event":"#)
        switch self {
        case .created(let revision, let trips, let before):
            head("created", revision, &writer)
            writer.appendRaw(#","trips":"#)
            trips.writeJSON(to: &writer)
            writer.appendRaw(#","before":"#)
            writer.appendRaw(before.map(String.init) ?? "null")
        case .updated(let revision, let trip):
            head("updated", revision, &writer)
            writer.appendRaw(#","trip":"#)
            trip.writeJSON(to: &writer)
        case .deleted(let revision, let ids):
            head("deleted", revision, &writer)
            writer.appendRaw(#","ids":"#)
            writer.appendIntegers(ids)
        case .reordered(let revision, let difference):
            head("reordered", revision, &writer)
            writer.appendRaw(#","sources":"#)
            writer.appendIntegers(difference.sources)
            writer.appendRaw(#","destination":"#)
            writer.appendDestination(difference.destination)
        case .sorted(let revision, let key, let order):
            head("sorted", revision, &writer)
            writer.appendRaw(#","by":"#)
            writer.appendString(key.rawValue)
            writer.appendRaw(#","order":"#)
            writer.appendIntegers(order)
        case .favorites(let revision, let added, let removed):
            head("favorites", revision, &writer)
            writer.appendRaw(#","added":"#)
            writer.appendIntegers(added)
            writer.appendRaw(#","removed":"#)
            writer.appendIntegers(removed)
        case .reset(let revision):
            head("reset", revision, &writer)
        }
        writer.appendRaw("}")
    }

    private func head(_ name: String, _ revision: UInt64, _ writer: inout JSONWriter) {
        writer.appendString(name)
        writer.appendRaw(#","revision":"#)
        writer.appendInteger(revision)
    }
}
