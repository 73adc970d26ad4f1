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

    /// One request under way: its parts, and how to stop it; letting go of it stops it too.
    final class Answer: Sendable {
        let parts: AsyncThrowingStream<Part, any Error>
        private let continuation: AsyncThrowingStream<Part, any Error>.Continuation

        fileprivate init(_ parts: AsyncThrowingStream<Part, any Error>, _ continuation: AsyncThrowingStream<Part, any Error>.Continuation) {
            self.parts = parts
            self.continuation = continuation
        }

        deinit {
            cancel()
        }

        /// Cancels the request (ending `parts`); harmless once it ended.
        func cancel() {
            continuation.finish()
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
    /// request is cancelled: no more than `maxBytes` is ever held. With `silence`, they end
    /// with `Silence` once nothing arrived for a whole wait of `silence` (waited with `sleep`).
    func start(
        _ request: URLRequest, maxBytes: Int? = nil,
        silence: (duration: Duration, sleep: @Sendable (Duration) async throws -> Void)? = nil
    ) -> Answer {
        let (parts, continuation) = AsyncThrowingStream.makeStream(of: Part.self)
        // A HEAD answer's Content-Length is that of the GET's body, which it does not carry.
        let announcedLimit = request.httpMethod == "HEAD" ? nil : maxBytes
        let flow = Flow(continuation, maxBytes: maxBytes, announcedLimit: announcedLimit)
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
        return Answer(parts, continuation)
    }

    /// One task's stream, how many times something arrived on it, and its body's size so far.
    private final class Flow: Sendable {
        let continuation: AsyncThrowingStream<Part, any Error>.Continuation
        let received = Atomic(0)
        let bodyBytes = Atomic(0)
        let maxBytes: Int?
        /// The largest `Content-Length` accepted, when the head's is checked.
        let announcedLimit: Int?

        init(_ continuation: AsyncThrowingStream<Part, any Error>.Continuation, maxBytes: Int?, announcedLimit: Int?) {
            self.continuation = continuation
            self.maxBytes = maxBytes
            self.announcedLimit = announcedLimit
        }

        /// Ends the stream: the answer is larger than the reader takes.
        func refuseAsTooLarge() {
            continuation.finish(throwing: TripsClientError.answerTooLarge(limit: maxBytes ?? 0))
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
                flow.refuseAsTooLarge()
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
            if let limit = flow.maxBytes, total > limit {
                remove(dataTask.taskIdentifier)  // what still arrives before the cancel is dropped
                flow.refuseAsTooLarge()
                dataTask.cancel()
                return
            }
            flow.continuation.yield(.bytes(data))
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            flow(task)?.continuation.finish(throwing: error)
        }
    }
}
