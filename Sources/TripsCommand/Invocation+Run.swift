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
            FileHandle.standardError.write(Data("trips: \(error)\n".utf8))
            return 1
        } catch let error as UsageError {
            FileHandle.standardError.write(Data(Usage.error(error).utf8))
            return 2
        } catch {
            FileHandle.standardError.write(Data("trips: \(error)\n".utf8))
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
            if lines.count == 1 { return printer.trip(try await client.create(sentence: sentence, before: before).value) }
            printer.trips(try await client.create(sentences: lines, before: before).value)
        case .addDraft(let draft, let before):
            printer.trip(try await client.create(draft, before: before).value)
        case .move(let ids, let before):
            let list = try await client.move(ids, before: before)
            printer.trips(list.value)
        case .favorite(let names):
            let ids = names.compactMap { Int($0) }  // all or none (`Invocation`)
            let answer = try await ids.isEmpty ? client.makeFavorites(named: names) : client.makeFavorites(ids)
            printer.favorites(answer.value)
        case .delete(let ids):
            if ids.count == 1 { try await client.delete(ids[0]) } else { try await client.delete(ids) }
            printer.done("Deleted \(ids.map(String.init).joined(separator: ", ")).")
        case .sort(let key):
            printer.trips(try await client.sort(by: key).value)
        case .watch(let since):
            for try await change in client.changes(since: since) { printer.change(change) }
        case .photo(let id, let file):
            guard let file else { return printer.trip(try await client.clearPhoto(id).value) }
            guard let type = Self.imageType(of: file) else {
                throw UsageError(message: "\(file) is not a .jpg, .jpeg, .png or .webp file", verb: "photo")
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw UsageError(message: "\(file) cannot be read", verb: "photo")
            }
            printer.trip(try await client.setPhoto(id, [UInt8](data), type: type).value)
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
