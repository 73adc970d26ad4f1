/// The mailbox of an event loop that serves HTTP.
typealias HTTPLoopMailbox = LoopMailbox<HTTPConnection>

/// A deferred response reaches its connection through its loop's mailbox.
extension LoopMailbox: HTTPResponseSink where Connection == HTTPConnection {}
