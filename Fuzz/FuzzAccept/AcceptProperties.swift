#if DEBUG
import TripsDomain
@testable import TripsFormats
@testable import TripsHTTP
@testable import TripsServer
// The checks reach internal types through `@testable import`, which only a debug build
// (compiled for testing) allows; `scripts/checks/fuzz.sh` builds debug. A release build of every
// target still compiles, with a stub that refuses to run.

/// The representations an endpoint may offer, most preferred first; the first byte of an
/// input picks which of them, in which order.
private let pool: [MediaType] = [
    .json, .plainText, MediaType(type: "application", subtype: "problem+json"),
    MediaType(type: "application", subtype: "merge-patch+json"), MediaType(type: "text", subtype: "html"),
    MediaType(type: "image", subtype: "png"),
]

/// The first byte picks the offered types; the rest is one `Accept` value per line.
///
/// Properties: no crash; a parsed range is lowercased with a weight from 0 to 1000 and no
/// `*/subtype`; the choice is nil or an index of an offered type; with a usable `Accept`
/// it is the first offered type of the highest quality, which is above 0, and nil means
/// every offered type has quality 0; without one (absent, or no valid element) it is the first.
/// The same lines as `Accept-Language`: weights from 0 to 1000, and a language chosen that
/// no `q=0` range names exactly.
func checkAccept(_ input: [UInt8]) {
    guard let selector = input.first else { return }
    var offered: [MediaType] = []
    for bit in 0..<pool.count where selector & (1 << bit) != 0 {
        offered.append(pool[bit])
    }
    if selector & 0x80 != 0 { offered.reverse() }
    let values = String(decoding: input.dropFirst(), as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)

    let accept = AcceptField(values)
    for range in accept.ranges {
        precondition((0...1000).contains(range.quality), "quality \(range.quality)")
        precondition(range.type == range.type.lowercased() && range.subtype == range.subtype.lowercased())
        precondition(range.type != "*" || range.subtype == "*", "*/\(range.subtype) accepted")
        precondition(!range.type.isEmpty && !range.subtype.isEmpty)
    }

    let languages = AcceptLanguage(values)
    for range in languages.ranges { precondition((0...1000).contains(range.quality), "language quality \(range.quality)") }
    let language = languages.chosen
    precondition(
        language == .english || !languages.ranges.contains { $0.quality == 0 && $0.tag.lowercased() == language.tag.lowercased() },
        "chose \(language), which a q=0 range refuses")

    let choice = ContentNegotiation.choose(offered, accept: values)
    if let choice { precondition(offered.indices.contains(choice), "index \(choice) of \(offered.count)") }
    guard !accept.ranges.isEmpty else {
        precondition(choice == (offered.isEmpty ? nil : 0), "without a usable Accept the first type wins")
        return
    }
    let qualities = offered.map { accept.quality(of: $0) }
    let best = qualities.max() ?? 0
    if let choice {
        precondition(qualities[choice] > 0 && qualities[choice] == best, "chose quality \(qualities[choice]) of \(best)")
        precondition(qualities.firstIndex(of: best) == choice, "a tie goes to the declared order")
    } else {
        precondition(best == 0, "refused everything although one type has quality \(best)")
    }
}
#else
func checkAccept(_ input: [UInt8]) {
    fatalError("FuzzAccept needs a debug build: it reaches TripsServer through @testable import")
}
#endif
