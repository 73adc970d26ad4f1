import Foundation
import FuzzSupport
import TripsDomain

/// The input, decoded as UTF-8 the way a `text/plain` body is, is a sentence and a drop.
///
/// Properties: no crash; an accepted sentence gives a draft that validates, is added to the
/// list, and whose own sentence reads back as the same draft; a text drop has one trimmed,
/// non-empty name per line and makes exactly the named trips favorites, or throws and
/// changes nothing.
func checkTextImport(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)

    if let draft = try? TripDraft(sentence: text) {
        precondition((try? draft.validate()) != nil, "an accepted sentence does not validate")
        let again = try? TripDraft(sentence: draft.sentence)
        precondition(again == draft, "\(draft.sentence) reads back as \(String(describing: again)), not \(draft)")
        var list = TripList.samples
        precondition((try? list.add(draft)) != nil, "an accepted sentence is not added")
        checkWhole(list)
    }

    let drop = FavoriteDrop(text: text)
    for item in drop.items {
        guard case .name(let line) = item else { preconditionFailure("a text drop named an id") }
        precondition(!line.isEmpty && !line.contains(where: \.isNewline), "line \(line.debugDescription)")
        // Trimmed scalar by scalar: " \u{361}" is one Character, and a whitespace one.
        let ends = [line.unicodeScalars.first, line.unicodeScalars.last].compactMap { $0 }
        precondition(!ends.contains(where: CharacterSet.whitespaces.contains), "untrimmed \(line.debugDescription)")
    }
    checkDrop(drop, on: TripList.samples)
}
