/// What `trips --help` prints.
enum Usage {
    static let text = """
        Usage: trips [--server URL] [--token TOKEN] [--json] COMMAND

        Commands:
          list [--favorites] [--country C] [--search Q] [--sort start|-start|price|-price]
          show ID
          add "Lisbon, Portugal: 4 nights from May 1, 2027" [--before ID]
          add --city C --country C --nights N --start YYYY-MM-DD [--price P] [--notes N] [--before ID]
          move ID... --before ID | --end
          favorite ID|CITY...        make these trips favorites (says which were added)
          delete ID...               all or nothing
          sort start|price           sort the stored list
          photo ID FILE              a JPEG, PNG or WebP file; photo ID --clear removes it
          watch [--since REV]        print each change as it happens; resumes after a disconnect

        Options:
          --server URL   the service (TRIPS_URL; default \(Invocation.defaultServer))
          --token TOKEN  a bearer token (TRIPS_TOKEN)
          --json         JSON for scripts instead of sentences
          -h, --help     this text

        Sentences are written in the terminal's language (LC_ALL, LC_MESSAGES or LANG):
        en, fr, de, es, pt-BR, ja or pl; English otherwise.

        Exit status: 0 done; 1 the server refused the change or could not be reached (its
        detail on standard error); 2 a usage error.
        """
}
