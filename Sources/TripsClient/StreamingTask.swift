import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An answer read as it arrives: its head, then its body chunk by chunk, for a stream that
/// never ends by itself (server-sent events). A data task with a delegate, since
/// swift-corelibs-foundation has no `URLSession.bytes(for:)`.
enum StreamingTask {
    /// What arrives, in order: the head once, then the body's chunks.
    enum Part: Sendable {
        case head(HTTPURLResponse)
        case bytes(Data)
    }

    /// Starts `request` on a session of its own; ending the iteration (or dropping the
    /// stream) cancels the task and lets the session go.
    static func start(_ request: URLRequest) -> AsyncThrowingStream<Part, any Error> {
        AsyncThrowingStream { continuation in
            let delegate = Delegate(continuation)
            let session = URLSession(configuration: URLSessionTransport.configuration(), delegate: delegate, delegateQueue: nil)
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        }
    }

    /// Hands what the session reports to the stream.
    private final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        private let continuation: AsyncThrowingStream<Part, any Error>.Continuation

        init(_ continuation: AsyncThrowingStream<Part, any Error>.Continuation) {
            self.continuation = continuation
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            guard let http = response as? HTTPURLResponse else {
                continuation.finish(throwing: URLError(.badServerResponse))
                completionHandler(.cancel)
                return
            }
            continuation.yield(.head(http))
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            continuation.yield(.bytes(data))
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            continuation.finish(throwing: error)
        }
    }
}
