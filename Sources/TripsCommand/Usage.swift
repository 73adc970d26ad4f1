/// What `trips --help` prints, and the short usage a usage error prints.
enum Usage {
    /// The options every command takes, before or after it.
    static let synopsis = "trips [--server URL] [--token TOKEN] [--json] COMMAND"

    /// Each command's forms, and what it does when its form does not say, in the help's order.
    static let commands: [(verb: String, forms: [String], about: String)] = [
        ("list", ["list [--favorites] [--country C] [--search Q] [--sort start|-start|price|-price]"], ""),
        ("show", ["show ID"], ""),
        (
            "add",
            [
                #"add "Lisbon, Portugal: 4 nights from May 1, 2027" [--before ID]"#,
                "add --city C --country C --nights N --start YYYY-MM-DD [--price P] [--notes N] [--before ID]",
            ], ""
        ),
        ("move", ["move ID... --before ID | --end"], ""),
        ("favorite", ["favorite ID... | CITY..."], "make these trips favorites (says which were added)"),
        ("delete", ["delete ID..."], "all or nothing"),
        ("sort", ["sort start|price"], "sort the stored list"),
        ("photo", ["photo ID FILE"], "a JPEG, PNG or WebP file; photo ID --clear removes it"),
        ("watch", ["watch [--since REV]"], "print each change as it happens; resumes after a disconnect"),
    ]

    static let text = """
        Usage: \(synopsis)

        Commands:
        \(commands.flatMap { command in command.forms.map { "  " + aligned($0, command.about) } }.joined(separator: "\n"))

        Options:
          --server URL   the service (TRIPS_URL; default \(Invocation.defaultServer))
          --token TOKEN  a bearer token (TRIPS_TOKEN)
          --json         JSON for scripts instead of sentences
          -h, --help     this text

        Sentences are written in the terminal's language (LC_ALL, LC_MESSAGES or LANG):
        en, fr, de, es, pt-BR, ja or pl; English otherwise.

        A favorite's operands are all trip ids or all cities: a number is always an id.

        Exit status: 0 done; 1 the server refused the change or could not be reached (its
        detail on standard error); 2 a usage error.
        """

    /// What a usage error prints: its message, the usage of the command it is about (or of
    /// `trips`), and where the rest is.
    static func error(_ error: UsageError) -> String {
        let forms = commands.first { $0.verb == error.verb }?.forms.map { "trips " + $0 } ?? [synopsis]
        let usage = forms.enumerated().map { index, form in (index == 0 ? "usage: " : "       ") + form }
        return (["trips: \(error.message)"] + usage + ["see trips --help"]).joined(separator: "\n") + "\n"
    }

    /// A form, then its description from the 28th column (or after two spaces).
    private static func aligned(_ form: String, _ about: String) -> String {
        guard !about.isEmpty else { return form }
        return form + String(repeating: " ", count: max(2, 27 - form.count)) + about
    }
}
