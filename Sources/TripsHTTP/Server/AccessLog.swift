import Glibc
import TripsPlatform

/// One logfmt line per request, buffered per loop and written once per loop turn, as nginx
/// buffers its access log: a line per `write` would cost more than the request.
///
///     time=2026-11-29T18:33:02.123Z id=3f9a1c2e-0-1f method=GET path=/trips/2 status=200 bytes=228 duration_ms=0.041
///
/// Confined to its loop.
package final class AccessLog {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// `time=YYYY-MM-DDTHH:MM:SS` for the second last rendered.
    private var secondPrefix: [UInt8] = []
    private var renderedSecond = -1
    /// Lines are written when the buffer passes this, or at the end of the loop turn.
    private static let flushThreshold = 32 * 1024

    /// Writes to `descriptor` (1 for standard output).
    init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer.reserveCapacity(Self.flushThreshold * 2)
    }

    /// Records one answered request. `method` and `target` are nil for bytes that never
    /// became a request (a parse error).
    func record(
        id: RequestID, idPrefix: [UInt8], method: HTTPMethod?, target: String?, status: Int, bytes: Int,
        duration: UInt64, user: String? = nil
    ) {
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        appendTime(clock)
        buffer.append(contentsOf: " id=".utf8)
        id.append(to: &buffer, prefix: idPrefix)
        buffer.append(contentsOf: " method=".utf8)
        appendValue(method?.rawValue ?? "-")
        buffer.append(contentsOf: " path=".utf8)
        appendValue(target ?? "-")
        if let user {
            buffer.append(contentsOf: " user=".utf8)
            appendValue(user)
        }
        buffer.append(contentsOf: " status=".utf8)
        HTTPResponse.appendDecimal(status, to: &buffer)
        buffer.append(contentsOf: " bytes=".utf8)
        HTTPResponse.appendDecimal(bytes, to: &buffer)
        buffer.append(contentsOf: " duration_ms=".utf8)
        HTTPResponse.appendDecimal(Int(duration / 1_000_000), to: &buffer)
        buffer.append(UInt8(ascii: "."))
        let micros = Int(duration / 1000 % 1000)
        if micros < 100 { buffer.append(UInt8(ascii: "0")) }
        if micros < 10 { buffer.append(UInt8(ascii: "0")) }
        HTTPResponse.appendDecimal(micros, to: &buffer)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= Self.flushThreshold { flush() }
    }

    /// Writes what is buffered; a full or closed log loses lines, never blocks the loop for long.
    func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { bytes in _ = try? writeAll(descriptor, bytes) }  // a closed log loses lines
        buffer.removeAll(keepingCapacity: true)
    }

    private func appendTime(_ clock: timespec) {
        if clock.tv_sec != renderedSecond {
            renderedSecond = clock.tv_sec
            var parts = tm()
            var seconds = clock.tv_sec
            gmtime_r(&seconds, &parts)
            secondPrefix = Array("time=".utf8)
            appendPadded(Int(parts.tm_year) + 1900, width: 4, to: &secondPrefix)
            secondPrefix.append(UInt8(ascii: "-"))
            appendPadded(Int(parts.tm_mon) + 1, width: 2, to: &secondPrefix)
            secondPrefix.append(UInt8(ascii: "-"))
            appendPadded(Int(parts.tm_mday), width: 2, to: &secondPrefix)
            secondPrefix.append(UInt8(ascii: "T"))
            appendPadded(Int(parts.tm_hour), width: 2, to: &secondPrefix)
            secondPrefix.append(UInt8(ascii: ":"))
            appendPadded(Int(parts.tm_min), width: 2, to: &secondPrefix)
            secondPrefix.append(UInt8(ascii: ":"))
            appendPadded(Int(parts.tm_sec), width: 2, to: &secondPrefix)
        }
        buffer.append(contentsOf: secondPrefix)
        buffer.append(UInt8(ascii: "."))
        appendPadded(clock.tv_nsec / 1_000_000, width: 3, to: &buffer)
        buffer.append(UInt8(ascii: "Z"))
    }

    private func appendPadded(_ value: Int, width: Int, to output: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 1 && value < divisor {
            output.append(UInt8(ascii: "0"))
            divisor /= 10
        }
        HTTPResponse.appendDecimal(value, to: &output)
    }

    /// A logfmt value, quoted when it holds a space, a quote, `=` or a control byte.
    private func appendValue(_ value: String) {
        let needsQuotes = value.utf8.contains { $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") || $0 == 0x7F }
        guard needsQuotes else {
            buffer.append(contentsOf: value.utf8)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { buffer.append(UInt8(ascii: "\\")) }
            buffer.append(byte < 0x20 || byte == 0x7F ? UInt8(ascii: "?") : byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }
}

@available(*, unavailable)
extension AccessLog: Sendable {}
