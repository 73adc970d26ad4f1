import Foundation
import FuzzSupport
import TripsDomain

/// The input, decoded as UTF-8 the way a `text/plain` body is, is a sentence and a drop.
///
/// Properties: no crash; an accepted sentence gives a draft that validates, is added to the
/// list, and whose own sentence in every language reads back as the same draft (in that
/// language, and in whichever language it is in); a text drop has one trimmed, non-empty
/// line per item and makes exactly the named trips favorites, or throws and changes nothing.
func checkTextImport(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)

    if let draft = try? TripDraft(sentence: text) {
        precondition((try? draft.validate()) != nil, "an accepted sentence does not validate")
        for language in Language.allCases {
            let sentence = draft.sentence(in: language)
            let again = try? TripDraft(sentence: sentence, language: language)
            precondition(again == draft, "\(sentence) reads back as \(String(describing: again)), not \(draft)")
            let guessed = try? TripDraft(sentence: sentence)
            precondition(guessed == draft, "\(sentence) read in any language gives \(String(describing: guessed))")
        }
        var list = TripList.samples
        precondition((try? list.add(draft)) != nil, "an accepted sentence is not added")
        checkWhole(list)
    }

    let drop = FavoriteDrop(text: text)
    for item in drop.items {
        let line: String
        switch item {
        case .id: preconditionFailure("a text drop named an id")
        case .name(let name): line = name
        case .sentence(_, let sentence): line = sentence
        }
        precondition(!line.isEmpty && !line.contains(where: \.isNewline), "line \(line.debugDescription)")
        // Trimmed scalar by scalar: " \u{361}" is one Character, and a whitespace one.
        let ends = [line.unicodeScalars.first, line.unicodeScalars.last].compactMap { $0 }
        precondition(!ends.contains(where: CharacterSet.whitespaces.contains), "untrimmed \(line.debugDescription)")
    }
    checkDrop(drop, on: TripList.samples)
}
