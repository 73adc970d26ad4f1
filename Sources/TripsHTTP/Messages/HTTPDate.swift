import Glibc

/// Formats IMF-fixdate timestamps for the Date field.
///
/// https://www.rfc-editor.org/rfc/rfc9110#name-date-time-formats
package enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The IMF-fixdate for seconds since 1970 (UTC), from the C library's calendar
    /// (`gmtime_r`, as the access log uses), not a second copy of the date arithmetic.
    ///
    ///     HTTPDate.format(epochSeconds: 784_111_777)  // "Sun, 06 Nov 1994 08:49:37 GMT"
    static func format(epochSeconds: Int) -> String {
        var seconds = epochSeconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "\(weekdays[Int(parts.tm_wday)]), \(twoDigits(Int(parts.tm_mday))) \(months[Int(parts.tm_mon)]) "
            + "\(Int(parts.tm_year) + 1900) "
            + "\(twoDigits(Int(parts.tm_hour))):\(twoDigits(Int(parts.tm_min))):\(twoDigits(Int(parts.tm_sec))) GMT"
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// The field lines every response has, rendered once per second: `Date`, `Server`, and
/// `X-Content-Type-Options: nosniff` (a browser never reads a body as another type than its
/// `Content-Type` says: a trip's notes as a script, a problem as a page;
/// https://fetch.spec.whatwg.org/#x-content-type-options-header). One array, one append.
///
/// Confined to one event loop.
package final class DateCache {
    private(set) var epochSeconds: Int
    /// `Date: <IMF-fixdate>\r\nServer: trips\r\nX-Content-Type-Options: nosniff\r\n`
    private(set) var fieldLines: [UInt8]
    /// `HTTP/1.1 200 OK\r\n` and `fieldLines`: most answers' first lines, one append where
    /// the status line and these were two (each about a hundred instructions).
    private(set) var okStatusAndFieldLines: [UInt8]

    init(epochSeconds: Int) {
        self.epochSeconds = epochSeconds
        fieldLines = Self.render(epochSeconds)
        okStatusAndFieldLines = Self.okStatusLine + fieldLines
    }

    /// Re-renders when the second has changed.
    func update(epochSeconds: Int) {
        guard epochSeconds != self.epochSeconds else { return }
        self.epochSeconds = epochSeconds
        fieldLines = Self.render(epochSeconds)
        okStatusAndFieldLines = Self.okStatusLine + fieldLines
    }

    private static let okStatusLine = Array("HTTP/1.1 200 OK\r\n".utf8)

    private static func render(_ seconds: Int) -> [UInt8] {
        Array("Date: \(HTTPDate.format(epochSeconds: seconds))\r\nServer: trips\r\nX-Content-Type-Options: nosniff\r\n".utf8)
    }
}

@available(*, unavailable)
extension DateCache: Sendable {}
