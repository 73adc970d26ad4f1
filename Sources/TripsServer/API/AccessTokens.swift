import Glibc
import TripsHTTP
import TripsPlatform

/// Who may use the API: bearer tokens (RFC 6750), each with a name for the access log,
/// read once from a file of `NAME TOKEN` lines (`#` starts a comment).
///
///     # name   token
///     alice    4f9c2a…
///     ci-bot   b81e07…
struct AccessTokens: Sendable {
    private let entries: [(name: String, token: [UInt8])]

    /// Why a token file cannot be used; `trips-server` prints it and exits 2.
    struct FileError: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    init(_ pairs: [(name: String, token: String)]) {
        entries = pairs.map { ($0.name, Array($0.token.utf8)) }
    }

    /// Reads `path`: one `NAME TOKEN` pair a line, both visible ASCII, each name once and each
    /// token once (tokens at least 16 characters); blank lines and `#` comments are skipped.
    init(contentsOf path: String) throws(FileError) {
        guard let file = fopen(path, "r") else {
            throw FileError(description: "cannot read the token file \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            text += chunk[0..<count]
        }
        var pairs: [(name: String, token: String)] = []
        for (index, line) in String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.prefix { $0 != "#" }.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard !content.isEmpty else { continue }
            let at = "\(path) line \(index + 1)"
            guard content.count == 2 else { throw FileError(description: "\(at): expected NAME TOKEN") }
            let (name, token) = (String(content[0]), String(content[1]))
            guard (name + token).utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw FileError(description: "\(at): names and tokens are visible ASCII")
            }
            guard token.utf8.count >= 16 else { throw FileError(description: "\(at): the token of \(name) is shorter than 16 characters") }
            guard !pairs.contains(where: { $0.name == name || $0.token == token }) else {
                throw FileError(description: "\(at): \(name) or its token is listed twice")
            }
            pairs.append((name, token))
        }
        guard !pairs.isEmpty else { throw FileError(description: "the token file \(path) lists no token") }
        self.init(pairs)
    }

    /// What users other than the file's owner (its group, or anyone) may do with `path`, for
    /// a warning at start-up: read it (and so take any token), write it (and so add their
    /// own); nil when they may do neither.
    ///
    ///     AccessTokens.exposure(of: path)  // "readable and writable", for a file in mode 0666
    static func exposure(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let readable = info.st_mode & 0o044 != 0
        let writable = info.st_mode & 0o022 != 0
        switch (readable, writable) {
        case (true, true): return "readable and writable"
        case (true, false): return "readable"
        case (false, true): return "writable"
        case (false, false): return nil
        }
    }

    /// The name whose token `presented` is, or nil. It compares against every token, and every
    /// byte of each, whatever matches, so the time taken says nothing about how close a guess was.
    func name(for presented: some Collection<UInt8>) -> String? {
        let presented = Array(presented)
        var found: String?
        for entry in entries where ConstantTime.isEqual(entry.token, presented) {
            found = entry.name
        }
        return found
    }
}
