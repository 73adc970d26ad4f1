import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers read as they arrive: each one's head, then its body chunk by chunk, so a reader
/// can stop (and cancel) as soon as an answer is too large, and a stream that never ends by
/// itself (server-sent events) can be read at all. One `URLSession` for many requests, its
/// delegate routing each task's parts to that task's stream (swift-corelibs-foundation has
/// no `URLSession.bytes(for:)`).
final class StreamingSession: Sendable {
    /// What arrives, in order: the head once, then the body's chunks.
    enum Part: Sendable {
        case head(HTTPURLResponse)
        case bytes(Data)
    }

    /// A stream that stayed silent for a whole `silence` wait.
    struct Silence: Error {}

    /// A stream whose reader left more than its `maxBuffered` bytes unread: the request was
    /// cancelled (the parts read before it still come first).
    struct Overflow: Error {}

    /// One request under way: its parts, and how to stop it; letting go of it stops it too.
    final class Answer: Sendable {
        private let stream: AsyncThrowingStream<Part, any Error>
        private let flow: Flow

        fileprivate init(_ stream: AsyncThrowingStream<Part, any Error>, _ flow: Flow) {
            self.stream = stream
            self.flow = flow
        }

        deinit {
            cancel()
        }

        /// The parts, in order; each one read no longer counts as unread.
        var parts: Parts { Parts(stream: stream, flow: flow) }

        /// Cancels the request (ending `parts`); harmless once it ended.
        func cancel() {
            flow.continuation.finish()
        }
    }

    /// An answer's parts, as its reader takes them.
    struct Parts: AsyncSequence {
        typealias Element = Part
        fileprivate let stream: AsyncThrowingStream<Part, any Error>
        fileprivate let flow: Flow

        func makeAsyncIterator() -> Iterator {
            Iterator(parts: stream.makeAsyncIterator(), flow: flow)
        }

        struct Iterator: AsyncIteratorProtocol {
            fileprivate var parts: AsyncThrowingStream<Part, any Error>.AsyncIterator
            fileprivate let flow: Flow

            mutating func next() async throws -> Part? {
                let part = try await parts.next()
                if case .bytes(let data)? = part { flow.unread.subtract(data.count, ordering: .relaxed) }
                return part
            }
        }
    }

    private let session: URLSession
    private let router = Router()

    init(configuration: URLSessionConfiguration = URLSessionTransport.configuration()) {
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Starts `request`. With `maxBytes`, the parts end with `TripsClientError.answerTooLarge`
    /// as soon as the body passes it (at the head when its `Content-Length` does), and the
    /// request is cancelled: no more than `maxBytes` is ever held. With `maxBuffered`, they
    /// end with `Overflow` (and the request is cancelled) once more than that many bytes
    /// arrived that the reader has not taken: the session does not read ahead of a reader
    /// without bound. With `silence`, they end with `Silence` once nothing arrived for a whole
    /// wait of `silence` (waited with `sleep`).
    func start(
        _ request: URLRequest, maxBytes: Int? = nil, maxBuffered: Int? = nil,
        silence: (duration: Duration, sleep: @Sendable (Duration) async throws -> Void)? = nil
    ) -> Answer {
        let (parts, continuation) = AsyncThrowingStream.makeStream(of: Part.self)
        // A HEAD answer's Content-Length is that of the GET's body, which it does not carry.
        let announcedLimit = request.httpMethod == "HEAD" ? nil : maxBytes
        let flow = Flow(continuation, maxBytes: maxBytes, announcedLimit: announcedLimit, maxUnread: maxBuffered)
        let task = session.dataTask(with: request)
        router.add(flow, for: task.taskIdentifier)
        let watchdog = silence.map { silence in
            Task {
                var seen = 0  // counted from before the request starts, whenever this task does
                while !Task.isCancelled {
                    try await silence.sleep(silence.duration)
                    let received = flow.received.load(ordering: .acquiring)
                    if received == seen {
                        continuation.finish(throwing: Silence())
                        return
                    }
                    seen = received
                }
            }
        }
        // Keeps this session alive while the stream lasts.
        continuation.onTermination = { [self] _ in
            watchdog?.cancel()
            task.cancel()
            router.remove(task.taskIdentifier)
        }
        task.resume()
        return Answer(parts, flow)
    }

    /// One task's stream, how many times something arrived on it, its body's size so far, and
    /// how much of it the reader has not taken yet.
    fileprivate final class Flow: Sendable {
        let continuation: AsyncThrowingStream<Part, any Error>.Continuation
        let received = Atomic(0)
        let bodyBytes = Atomic(0)
        let unread = Atomic(0)
        let maxBytes: Int?
        /// The largest `Content-Length` accepted, when the head's is checked.
        let announcedLimit: Int?
        /// The most bytes held for the reader, when that is bounded.
        let maxUnread: Int?

        init(_ continuation: AsyncThrowingStream<Part, any Error>.Continuation, maxBytes: Int?, announcedLimit: Int?, maxUnread: Int?) {
            self.continuation = continuation
            self.maxBytes = maxBytes
            self.announcedLimit = announcedLimit
            self.maxUnread = maxUnread
        }
    }

    /// Hands what the session reports to the stream of its task.
    private final class Router: NSObject, URLSessionDataDelegate, Sendable {
        private let flows = Mutex<[Int: Flow]>([:])

        func add(_ flow: Flow, for task: Int) {
            flows.withLock { $0[task] = flow }
        }

        func remove(_ task: Int) {
            _ = flows.withLock { $0.removeValue(forKey: task) }
        }

        private func flow(_ task: URLSessionTask) -> Flow? {
            flows.withLock { $0[task.taskIdentifier] }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            guard let flow = flow(dataTask), let http = response as? HTTPURLResponse else {
                flow(dataTask)?.continuation.finish(throwing: URLError(.badServerResponse))
                completionHandler(.cancel)
                return
            }
            flow.received.add(1, ordering: .releasing)
            if let limit = flow.announcedLimit, http.expectedContentLength > Int64(limit) {
                flow.continuation.finish(throwing: TripsClientError.answerTooLarge(limit: limit))
                completionHandler(.cancel)
                return
            }
            flow.continuation.yield(.head(http))
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard let flow = flow(dataTask) else { return }
            flow.received.add(1, ordering: .releasing)
            let total = flow.bodyBytes.add(data.count, ordering: .relaxed).newValue
            let unread = flow.unread.add(data.count, ordering: .relaxed).newValue
            let failure: (any Error)? =
                if let limit = flow.maxBytes, total > limit {
                    TripsClientError.answerTooLarge(limit: limit)
                } else if let limit = flow.maxUnread, unread > limit {
                    Overflow()
                } else {
                    nil
                }
            guard let failure else {
                flow.continuation.yield(.bytes(data))
                return
            }
            remove(dataTask.taskIdentifier)  // what still arrives before the cancel is dropped
            flow.continuation.finish(throwing: failure)
            dataTask.cancel()
        }

        /// Follows no redirect: this API answers none, and one to another origin would carry
        /// the token and the idempotency key there (a POST's body left behind). The 3xx is
        /// the answer, which the client refuses as one it did not expect.
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            flow(task)?.continuation.finish(throwing: error)
        }
    }
}
