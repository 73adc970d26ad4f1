import TripsDomain
import TripsFormats

/// The answer to a favorite drop: which trips newly became favorites, and the favorites now.
/// `added` is empty when nothing changed, so a client can give feedback only for a drop that
/// did something (the lesson's app plays `.sensoryFeedback(.success, trigger:)` then).
struct FavoritesChange: Sendable, Hashable {
    /// The trips that newly became favorites, in list order.
    var added: [Trip]
    /// Every favorite, in list order; nil with `Prefer: return=minimal`, whose client needs
    /// the trigger alone (a list of thousands of favorites is megabytes each drop).
    var favorites: [Trip]?
}

extension FavoritesChange: Transferable {
    /// `{"added": [2], "favorites": [...]}`, or in text a line saying what was added and
    /// then the favorites, one sentence per line.
    static let transferRepresentations: [TransferRepresentation<FavoritesChange>] = [
        TransferRepresentation(.json) { change in
            var writer = JSONWriter()
            writer.appendRaw(#"{"added":"#)
            writer.appendIntegers(change.added.map(\.id))
            if let favorites = change.favorites {
                writer.appendRaw(#","favorites":"#)
                favorites.writeJSON(to: &writer)
            }
            writer.appendRaw("}")
            return writer.bytes
        },
        TransferRepresentation(.plainText) { change, language in
            let summary = summary(of: change.added.map(\.city), in: language) + "\n"
            return Array((summary + (change.favorites?.sentences(in: language) ?? "")).utf8)
        },
    ]

    /// "New favorites: Vancouver, Kyoto." or "No new favorites.", in the client's language.
    private static func summary(of added: [String], in language: Language) -> String {
        let cities = added.joined(separator: language == .japanese ? "、" : ", ")
        switch (language, added.isEmpty) {
        case (.english, true): return "No new favorites."
        case (.english, false): return "New favorites: \(cities)."
        case (.french, true): return "Aucun nouveau favori."
        case (.french, false): return "Nouveaux favoris\u{00A0}: \(cities)."
        case (.german, true): return "Keine neuen Favoriten."
        case (.german, false): return "Neue Favoriten: \(cities)."
        case (.spanish, true): return "Ningún favorito nuevo."
        case (.spanish, false): return "Nuevos favoritos: \(cities)."
        case (.brazilianPortuguese, true): return "Nenhum favorito novo."
        case (.brazilianPortuguese, false): return "Novos favoritos: \(cities)."
        case (.japanese, true): return "新しいお気に入りはありません。"
        case (.japanese, false): return "新しいお気に入り：\(cities)。"
        case (.polish, true): return "Brak nowych ulubionych."
        case (.polish, false): return "Nowe ulubione: \(cities)."
        }
    }
}
