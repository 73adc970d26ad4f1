import Foundation
import TripsClient
import TripsDomain

extension Invocation {
    /// Runs the command; answers the exit status.
    func run() async -> Int32 {
        let client = TripsClient(baseURL: server, token: token)
        let printer = Printer(json: json, language: language)
        do {
            try await perform(command, client, printer)
            return 0
        } catch let error as TripsClientError {
            FileHandle.standardError.write(Data("trips: \(TerminalText.shown("\(error)"))\n".utf8))
            return 1
        } catch let error as UsageError {
            FileHandle.standardError.write(Data(Usage.error(error).utf8))
            return 2
        } catch {
            FileHandle.standardError.write(Data("trips: \(TerminalText.shown("\(error)"))\n".utf8))
            return 1
        }
    }

    private func perform(_ command: Command, _ client: TripsClient, _ printer: Printer) async throws {
        switch command {
        case .help:
            FileHandle.standardOutput.write(Data((Usage.text + "\n").utf8))
        case .list(let query):
            var trips: [Trip] = []
            for try await trip in client.trips(query) { trips.append(trip) }
            printer.trips(trips)
        case .show(let id):
            printer.trip(try await client.trip(id).value)
        case .addSentence(let sentence, let before):
            let lines = sentence.split(whereSeparator: \.isNewline).map(String.init)
            if lines.count == 1 {
                return printer.trip(
                    try await changing(client, .list) { try await client.create(sentence: sentence, before: before, ifMatch: $0) }.value)
            }
            printer.trips(
                try await changing(client, .list) { try await client.create(sentences: lines, before: before, ifMatch: $0) }.value)
        case .addDraft(let draft, let before):
            printer.trip(try await changing(client, .list) { try await client.create(draft, before: before, ifMatch: $0) }.value)
        case .move(let ids, let before):
            printer.trips(try await changing(client, .list) { try await client.move(ids, before: before, ifMatch: $0) }.value)
        case .favorite(let names):
            let ids = names.compactMap { Int($0) }  // all or none (`Invocation`)
            let answer = try await changing(client, .list) { tag in
                try await ids.isEmpty ? client.makeFavorites(named: names, ifMatch: tag) : client.makeFavorites(ids, ifMatch: tag)
            }
            printer.favorites(answer.value)
        case .delete(let ids):
            if ids.count == 1 {
                try await changing(client, .trip(ids[0])) { try await client.delete(ids[0], ifMatch: $0) }
            } else {
                try await changing(client, .list) { try await client.delete(ids, ifMatch: $0) }
            }
            printer.done("Deleted \(ids.map(String.init).joined(separator: ", ")).")
        case .sort(let key):
            printer.trips(try await changing(client, .list) { try await client.sort(by: key, ifMatch: $0) }.value)
        case .watch(let since):
            for try await change in client.changes(since: since) { printer.change(change) }
        case .photo(let id, let file):
            guard let file else {
                return printer.trip(try await changing(client, .trip(id)) { try await client.clearPhoto(id, ifMatch: $0) }.value)
            }
            guard let type = Self.imageType(of: file) else {
                throw UsageError(message: "\(file) is not a .jpg, .jpeg, .png or .webp file", verb: "photo")
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw UsageError(message: "\(file) cannot be read", verb: "photo")
            }
            printer.trip(
                try await changing(client, .trip(id)) { try await client.setPhoto(id, [UInt8](data), type: type, ifMatch: $0) }.value)
        }
    }

    /// What a change changes, whose tag it is made against.
    private enum Target {
        case list
        case trip(Trip.ID)
    }

    /// Makes a change without `If-Match` (the person names trips as they are now); when the
    /// server takes no change without it (428, `--require-if-match`), reads the current tag of
    /// what it changes (`HEAD`) and makes it again with that tag.
    @discardableResult
    private func changing<T>(_ client: TripsClient, _ target: Target, _ change: (String?) async throws -> T) async throws -> T {
        do {
            return try await change(nil)
        } catch let error as TripsClientError where error.kind == .preconditionRequired {
            let version =
                switch target {
                case .list: try await client.listVersion()
                case .trip(let id): try await client.tripVersion(id)
                }
            return try await change(version.etag)
        }
    }

    /// The media type a photo's file name says.
    static func imageType(of file: String) -> String? {
        switch URL(fileURLWithPath: file).pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        default: nil
        }
    }
}
