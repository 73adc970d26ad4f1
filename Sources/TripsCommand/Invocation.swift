import Foundation
import TripsDomain

/// What `trips` was asked to do: read from the arguments and the environment, by hand.
struct Invocation {
    /// One subcommand and its operands.
    enum Command: Equatable {
        case help
        case list(TripQuery)
        case show(Trip.ID)
        case addSentence(String, before: Trip.ID?)
        case addDraft(TripDraft, before: Trip.ID?)
        case move([Trip.ID], before: Trip.ID?)
        case favorite([String])
        case delete([Trip.ID])
        case sort(TripSortKey)
        case watch(since: UInt64?)
        case photo(Trip.ID, file: String?)
    }

    var command: Command
    var server: URL
    var token: String?
    var json = false
    var language: Language

    /// The server when neither `--server` nor `TRIPS_URL` names one.
    static let defaultServer = "http://127.0.0.1:8080"
}

/// A command line `trips` cannot run: the message, then the usage of its command (`verb`,
/// nil when none is known yet), and exit 2 (`Usage.error`).
struct UsageError: Error {
    var message: String
    var verb: String?
}

extension Invocation {
    /// Reads `arguments` (without the program's name) and `environment`.
    init(arguments: [String], environment: [String: String]) throws(UsageError) {
        var serverText = environment["TRIPS_URL"] ?? Self.defaultServer
        var token = environment["TRIPS_TOKEN"]
        var json = false
        var words: [String] = []
        var options: [String: [String]] = [:]
        var index = 0
        /// `--name value` or `--name=value`.
        func value(of name: String, _ argument: String) throws(UsageError) -> String {
            if let equals = argument.firstIndex(of: "=") { return String(argument[argument.index(after: equals)...]) }
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(name) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            switch name {
            case "--server": serverText = try value(of: name, argument)
            case "--token": token = try value(of: name, argument)
            case "--json": json = true
            case "-h", "--help": words = ["help"] + words
            case "--favorites", "--end", "--clear": options[name, default: []].append("")
            case "--country", "--sort", "--search", "--before", "--city", "--nights", "--start", "--price", "--notes", "--since":
                options[name, default: []].append(try value(of: name, argument))
            case "--":
                words += arguments[(index + 1)...]
                index = arguments.count
            default:
                guard !argument.hasPrefix("--") || argument.count == 2 else { throw UsageError(message: "unknown option \(argument)") }
                words.append(argument)
            }
            index += 1
        }
        guard let server = URL(string: serverText), ["http", "https"].contains(server.scheme ?? ""), server.host != nil else {
            throw UsageError(message: "the server must be an http:// or https:// URL, not \(serverText)")
        }
        self.server = server
        self.token = token
        self.json = json
        self.language = Self.language(environment)
        self.command = try Self.command(words, options)
    }

    /// The terminal's language: `LC_ALL`, `LC_MESSAGES` or `LANG` (`fr_FR.UTF-8` is French),
    /// English when none is one the sentences are written in.
    static func language(_ environment: [String: String]) -> Language {
        let locale = [environment["LC_ALL"], environment["LC_MESSAGES"], environment["LANG"]].compactMap { $0 }.first { !$0.isEmpty } ?? ""
        let tag = locale.prefix { $0 != "." && $0 != "@" }.replacingOccurrences(of: "_", with: "-")
        return Language(lookingUp: tag) ?? .english
    }

    private static func command(_ words: [String], _ options: [String: [String]]) throws(UsageError) -> Command {
        guard let verb = words.first else { return .help }
        do {
            return try command(verb, Array(words.dropFirst()), options)
        } catch {
            let isKnown = Usage.commands.contains { $0.verb == verb }
            throw UsageError(message: error.message, verb: isKnown ? verb : nil)
        }
    }

    private static func command(_ verb: String, _ operands: [String], _ options: [String: [String]]) throws(UsageError) -> Command {
        var allowed: Set<String> = []
        /// The option's one value, or nil; given twice is a usage error.
        func option(_ name: String) throws(UsageError) -> String? {
            allowed.insert(name)
            guard let values = options[name] else { return nil }
            guard values.count == 1 else { throw UsageError(message: "\(name) is given more than once") }
            return values[0]
        }
        let command: Command
        switch verb {
        case "help":
            return .help
        case "list":
            var query = TripQuery(filter: try option("--favorites") == nil ? .all : .favorites)
            query.country = try option("--country")
            query.search = try option("--search")
            if let sort = try option("--sort") {
                guard let order = TripOrder(sort) else {
                    throw UsageError(message: "--sort takes start, -start, price or -price, not \(sort)")
                }
                query.order = order
            }
            try expect(operands, count: 0, verb)
            command = .list(query)
        case "show":
            try expect(operands, count: 1, verb)
            command = .show(try id(operands[0]))
        case "add":
            let before = try option("--before").map { (text) throws(UsageError) in try id(text) }
            if operands.isEmpty {
                command = .addDraft(try draft(option), before: before)
            } else {
                try expect(operands, count: 1, verb)
                command = .addSentence(operands[0], before: before)
            }
        case "move":
            let before = try option("--before")
            let end = try option("--end")
            guard (before == nil) != (end == nil) else { throw UsageError(message: "move needs --before ID or --end, not both") }
            guard !operands.isEmpty else { throw UsageError(message: "move needs the ids of the trips to move") }
            command = .move(try operands.map(id), before: try before.map(id))
        case "favorite":
            guard !operands.isEmpty else { throw UsageError(message: "favorite needs ids or cities") }
            let ids = operands.filter { Int($0) != nil }
            guard ids.isEmpty || ids.count == operands.count else {
                throw UsageError(message: "favorite takes trip ids or cities, not both: run it once for each")
            }
            command = .favorite(operands)
        case "delete":
            guard !operands.isEmpty else { throw UsageError(message: "delete needs the ids of the trips to delete") }
            command = .delete(try operands.map(id))
        case "sort":
            try expect(operands, count: 1, verb)
            guard let key = TripSortKey(rawValue: operands[0]) else {
                throw UsageError(message: "sort takes start or price, not \(operands[0])")
            }
            command = .sort(key)
        case "watch":
            try expect(operands, count: 0, verb)
            let since = try option("--since")
            guard since == nil || UInt64(since ?? "") != nil else { throw UsageError(message: "--since takes a revision, a whole number") }
            command = .watch(since: since.flatMap { UInt64($0) })
        case "photo":
            let clear = try option("--clear") != nil
            try expect(operands, count: clear ? 1 : 2, verb)
            command = .photo(try id(operands[0]), file: clear ? nil : operands[1])
        default:
            throw UsageError(message: "unknown command \(verb)")
        }
        if let stray = options.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw UsageError(message: "\(verb) does not take \(stray)")
        }
        return command
    }

    private static func expect(_ operands: [String], count: Int, _ verb: String) throws(UsageError) {
        guard operands.count == count else {
            throw UsageError(
                message: "\(verb) takes \(count == 0 ? "no" : String(count)) operand\(count == 1 ? "" : "s"), not \(operands.count)")
        }
    }

    private static func id(_ text: String) throws(UsageError) -> Trip.ID {
        guard let id = Int(text), id > 0 else { throw UsageError(message: "\(text) is not a trip id") }
        return id
    }

    /// A draft from `--city`, `--country`, `--nights`, `--start` (and `--price`, `--notes`).
    private static func draft(_ option: (String) throws(UsageError) -> String?) throws(UsageError) -> TripDraft {
        guard let city = try option("--city"), let country = try option("--country"), let nightsText = try option("--nights"),
            let startText = try option("--start")
        else {
            throw UsageError(
                message: #"add needs a sentence ("Lisbon, Portugal: 4 nights from May 1, 2027") or --city, --country, --nights and --start"#
            )
        }
        guard let nights = Int(nightsText) else { throw UsageError(message: "--nights takes a whole number, not \(nightsText)") }
        guard let start = TripDate.parse(startText) else {
            throw UsageError(message: "--start takes a date like 2027-05-01, not \(startText)")
        }
        let priceText = try option("--price") ?? "0"
        guard let price = Decimal(string: priceText, locale: Locale(identifier: "en_US_POSIX")), !price.isNaN,
            priceText.allSatisfy({ $0.isNumber || $0 == "." })
        else { throw UsageError(message: "--price takes a number like 640.5, not \(priceText)") }
        return TripDraft(city: city, country: country, nights: nights, price: price, start: start, notes: try option("--notes") ?? "")
    }
}
