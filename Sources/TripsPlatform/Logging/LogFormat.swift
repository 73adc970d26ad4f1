/// How the server writes its log lines (`--log-format`): every line, requests and news alike.
package enum LogFormat: String, Sendable, CaseIterable {
    /// `key=value` pairs for requests (`time=… id=… method=GET …`), and news as plain sentences
    /// (`trips-server listening on …`), as the server always wrote them.
    case logfmt
    /// One JSON object per line, named as OpenTelemetry's semantic conventions name things
    /// (`http.request.method`, `url.path`, `trace_id`), with `timestamp`, `level` and
    /// `message` or `event`. https://opentelemetry.io/docs/specs/semconv/http/http-spans/
    case json
}

/// How much a log line matters; JSON lines say it as `level`.
package enum LogLevelName: String, Sendable {
    case info, warn, error
}
