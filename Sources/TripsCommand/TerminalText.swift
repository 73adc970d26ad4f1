/// Text from a server as a terminal may show it. A trip's notes, a problem's detail or an
/// event's name come from whoever wrote them, and a terminal obeys the control sequences in
/// what it is given: ESC `[2J` clears it, OSC 52 writes the clipboard, U+202E turns the rest
/// of a line around. Every control character but a line break and a tab, DEL, the C1 controls
/// and the bidirectional formatting characters are written as `\u{1B}` instead. (`--json`
/// needs none of this: JSON escapes the controls, and its reader is a program.)
enum TerminalText {
    static func shown(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
