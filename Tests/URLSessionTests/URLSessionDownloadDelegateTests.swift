import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A download task driven by a `URLSessionDownloadDelegate`, as apps that show progress use
/// it: every `didWriteData` knows the total (the daemon sends Content-Length), the bytes
/// written add up, and `didFinishDownloadingTo` hands over a file with exactly the stored bytes.
@Suite(.serialized) struct URLSessionDownloadDelegateTests {
    @Test(arguments: [0, 1, 9 << 20 + 7])
    func delegateSeesTheLengthAndGetsTheExactBytes(size: Int) async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let body = URLSessionUploadTests.payload(size)
        try body.write(to: daemon.saveDirectory.appendingPathComponent("holiday é.mov"))
        let delegate = DownloadRecorder()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let url = URL(string: "\(daemon.baseURL)/files/holiday%20%C3%A9.mov")!

        let result = try await delegate.run(session.downloadTask(with: url))

        #expect(result.status == 200)
        #expect(result.downloaded == body)
        #expect(result.expectedTotals.allSatisfy { $0 == Int64(size) })
        if size > 0 {
            #expect(!result.expectedTotals.isEmpty)
            #expect(result.lastTotalWritten == Int64(size))
            #expect(result.writtenSum == Int64(size))
        }
    }
}

/// Records what a download task's delegate is told; `run` resolves once the task completes.
final class DownloadRecorder: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    struct Result {
        var status = 0
        var downloaded: Data?
        var expectedTotals: [Int64] = []
        var writtenSum: Int64 = 0
        var lastTotalWritten: Int64 = 0
    }

    private let lock = NSLock()
    private var result = Result()
    private var continuation: CheckedContinuation<Result, Error>?

    func run(_ task: URLSessionDownloadTask) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            lock.withLock { self.continuation = continuation }
            task.resume()
        }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        lock.withLock {
            result.expectedTotals.append(totalBytesExpectedToWrite)
            result.writtenSum += bytesWritten
            result.lastTotalWritten = totalBytesWritten
        }
    }

    /// The file at `location` is deleted when this returns, so it is read here.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let data = try? Data(contentsOf: location)
        lock.withLock { result.downloaded = data }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let (continuation, result) = lock.withLock { () -> (CheckedContinuation<Result, Error>?, Result) in
            defer { self.continuation = nil }
            self.result.status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
            return (self.continuation, self.result)
        }
        if let error {
            continuation?.resume(throwing: error)
        } else {
            continuation?.resume(returning: result)
        }
    }
}
