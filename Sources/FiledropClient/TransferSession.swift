import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP exchange on its own URLSession with a delegate: the body streamed through
/// `needNewBodyStream`, progress from `didSendBodyData` / received bytes, a response body
/// either kept in memory (small answers, errors) or written to a file as it arrives, and
/// Swift task cancellation mapped to `URLSessionTask.cancel()`.
final class TransferSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// Where a successful response's body goes.
    enum Destination {
        /// Kept in memory, up to a limit (listings, JSON reports).
        case memory
        /// Asked once the response head is in: a file handle to append to, the offset in
        /// the file where the body starts and the file's size (for progress), or nil to keep the body in memory
        /// (an error answer).
        case file((HTTPURLResponse) throws(FiledropClientError) -> (FileHandle, startOffset: Int64, total: Int64?)?)
    }

    /// How sent or received bytes map to bytes of the file, for progress.
    struct ProgressMapping {
        var meter: ProgressMeter
        /// File bytes done before this request (a resume offset).
        var base: Int64
        /// Body bytes before the file's first byte (a multipart preamble).
        var leading: Int64 = 0
        /// File bytes this request carries at most.
        var fileLength: Int64 = .max
    }

    struct Result {
        var response: HTTPURLResponse
        /// The body when it was kept in memory (empty when written to a file).
        var body: Data
    }

    private static let memoryLimit = 1 << 20
    private let body: StreamedBody?
    private let destination: Destination
    private let progress: ProgressMapping?
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Result, Error>?
    private var received = Data()
    private var receivedBytes: Int64 = 0
    private var fileHandle: FileHandle?
    private var fileStartOffset: Int64 = 0
    private var failure: FiledropClientError?
    private let serverTrust: ServerTrust

    private init(body: StreamedBody?, destination: Destination, progress: ProgressMapping?, serverTrust: ServerTrust) {
        self.body = body
        self.destination = destination
        self.progress = progress
        self.serverTrust = serverTrust
    }

    /// Sends `request` (with `body` streamed, when given) and waits for the whole answer.
    static func perform(
        _ request: URLRequest, body: StreamedBody? = nil, destination: Destination = .memory,
        progress: ProgressMapping? = nil, configuration: URLSessionConfiguration,
        serverTrust: ServerTrust = .system
    ) async throws(FiledropClientError) -> Result {
        let transfer = TransferSession(body: body, destination: destination, progress: progress, serverTrust: serverTrust)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: transfer, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        var request = request
        let task: URLSessionTask
        if let body {
            request.setValue(body.contentType, forHTTPHeaderField: "Content-Type")
            #if !canImport(FoundationNetworking)
                // Apple's URLSession sends a streamed body with this exact length. On Linux,
                // libcurl would add `Transfer-Encoding: chunked` next to it (a request RFC 9112
                // §6.3 lets servers reject), so there the body goes chunked, without it.
                request.setValue(String(body.contentLength), forHTTPHeaderField: "Content-Length")
            #endif
            task = session.uploadTask(withStreamedRequest: request)
        } else {
            task = session.dataTask(with: request)
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    transfer.lock.withLock { transfer.continuation = continuation }
                    if Task.isCancelled {
                        task.cancel()
                    }
                    task.resume()
                }
            } onCancel: {
                task.cancel()
            }
        } catch {
            throw FiledropClientError.from(error)
        }
    }

    // MARK: - URLSessionDelegate

    #if canImport(Security)
        /// Apple platforms: the server's certificate against `serverTrust` (Linux's URLSession
        /// never calls this; see `ServerTrust`). Session-level, so server trust never reaches the
        /// task-level handler below, which answers 401s.
        func urlSession(
            _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
                let trust = challenge.protectionSpace.serverTrust
            else {
                completionHandler(.performDefaultHandling, nil)
                return
            }
            guard let reason = ServerTrustEvaluation.failure(of: trust, against: serverTrust) else {
                completionHandler(.useCredential, URLCredential(trust: trust))
                return
            }
            lock.withLock { if failure == nil { failure = .untrustedServer(reason) } }
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    #endif

    // MARK: - URLSessionTaskDelegate

    /// Linux's URLSession asks here even for `uploadTask(withStreamedRequest:)`; answering
    /// nil would send an empty body and still report success, so a body is always handed out.
    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        completionHandler(body?.makeInputStream() ?? InputStream(data: Data()))
    }

    /// A 401 is an answer to report, not a prompt: the credentials (if any) went with the
    /// request. swift-corelibs-foundation asks here only after the whole 401 arrived, and
    /// never completes the task on `.performDefaultHandling` without a stored credential,
    /// so the challenge is cancelled and the server's sentence kept as the failure.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let status = (challenge.failureResponse as? HTTPURLResponse)?.statusCode ?? 401
        lock.withLock {
            if failure == nil { failure = FiledropClientError.from(status: status, body: received) }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        guard let progress else { return }
        let fileBytes = min(progress.fileLength, max(0, totalBytesSent - progress.leading))
        progress.meter.update(progress.base + fileBytes)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let (continuation, outcome): (CheckedContinuation<Result, Error>?, Swift.Result<Result, Error>) = lock.withLock {
            let continuation = self.continuation
            self.continuation = nil
            try? fileHandle?.close()
            if let failure {
                return (continuation, .failure(failure))
            }
            if let error {
                return (continuation, .failure(error))
            }
            guard let response = task.response as? HTTPURLResponse else {
                return (continuation, .failure(FiledropClientError.invalidResponse("no HTTP response")))
            }
            return (continuation, .success(Result(response: response, body: received)))
        }
        continuation?.resume(with: outcome)
    }

    // MARK: - URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if case .file(let open) = destination, let http = response as? HTTPURLResponse {
            do throws(FiledropClientError) {
                if let (handle, startOffset, total) = try open(http) {
                    lock.withLock {
                        fileHandle = handle
                        fileStartOffset = startOffset
                    }
                    progress?.meter.setTotal(total)
                }
            } catch {
                fail(error, task: dataTask)
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let handle: FileHandle? = lock.withLock { failure == nil ? fileHandle : nil }
        if let handle {
            do {
                try handle.write(contentsOf: data)
            } catch {
                fail(.localFile(path: "download", reason: "cannot write: \(error.localizedDescription)"), task: dataTask)
                return
            }
            let done = lock.withLock {
                receivedBytes += Int64(data.count)
                return fileStartOffset + receivedBytes
            }
            progress?.meter.update(done)
            return
        }
        lock.withLock {
            if received.count + data.count <= Self.memoryLimit { received.append(data) }
        }
    }

    private func fail(_ error: FiledropClientError, task: URLSessionTask) {
        lock.withLock { if failure == nil { failure = error } }
        task.cancel()
    }
}
