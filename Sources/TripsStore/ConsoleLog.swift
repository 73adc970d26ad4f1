import TripsPlatform

/// Writes news to standard output and warnings to standard error, one line each.
struct ConsoleLog: StorageLog {
    init() {}

    func warning(_ message: String) {
        Console.warning(message)
    }

    func info(_ message: String) {
        Console.info("trips-server: \(message)")
    }
}
