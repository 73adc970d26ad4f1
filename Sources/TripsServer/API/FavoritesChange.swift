import TripsDomain

/// The answer to a favorite drop: which trips newly became favorites, and the favorites now.
/// `added` is empty when nothing changed, so a client can give feedback only for a drop that
/// did something (the lesson's app plays `.sensoryFeedback(.success, trigger:)` then).
struct FavoritesChange: Sendable, Hashable {
    var added: [Trip.ID]
    var favorites: [Trip]
}

extension FavoritesChange: Transferable {
    /// `{"added": [2], "favorites": [...]}`, or in text a line saying what was added and
    /// then the favorites, one sentence per line.
    static let transferRepresentations: [TransferRepresentation<FavoritesChange>] = [
        TransferRepresentation(.json) { change in
            var writer = JSONWriter()
            writer.appendRaw(#"{"added":["#)
            writer.appendRaw(change.added.map(String.init).joined(separator: ","))
            writer.appendRaw(#"],"favorites":"#)
            change.favorites.writeJSON(to: &writer)
            writer.appendRaw("}")
            return writer.bytes
        },
        TransferRepresentation(.plainText) { change in
            let added = change.favorites.filter { change.added.contains($0.id) }.map(\.city)
            let summary = added.isEmpty ? "No new favorites." : "New favorites: \(added.joined(separator: ", "))."
            return Array((summary + "\n" + change.favorites.sentences).utf8)
        },
    ]
}
