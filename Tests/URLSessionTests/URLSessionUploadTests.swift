import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The three ways Foundation's URLSession sends a body (in-memory Data, a file, a stream),
/// plus a hand-built multipart form as iOS apps send it, against the real daemon.
@Suite(.serialized) struct URLSessionUploadTests {
    static func payload(_ size: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    @Test func uploadTaskFromData() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let body = Self.payload(3 << 20)
        var request = URLRequest(url: daemon.baseURL.appendingPathComponent("files/from-data.bin"))
        request.httpMethod = "PUT"
        let (_, response) = try await URLSession.shared.upload(for: request, from: body)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(try Data(contentsOf: daemon.saveDirectory.appendingPathComponent("from-data.bin")) == body)
    }

    @Test func uploadTaskFromFileWithAnyContentType() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let body = Self.payload(5 << 20)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("urlsession-\(UUID().uuidString).txt")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var request = URLRequest(url: URL(string: "\(daemon.baseURL)/upload.html?name=notes%20%C3%A9t%C3%A9.txt")!)
        request.httpMethod = "POST"
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await URLSession.shared.upload(for: request, fromFile: file)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let stored = (json?["files"] as? [[String: Any]])?.first
        #expect(stored?["name"] as? String == "notes été.txt")
        #expect(try Data(contentsOf: daemon.saveDirectory.appendingPathComponent("notes été.txt")) == body)
    }

    @Test(arguments: [false, true])
    func streamedChunkedUpload(withExpectContinue: Bool) async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let body = Self.payload(2 << 20)
        var request = URLRequest(url: daemon.baseURL.appendingPathComponent("files/streamed.bin"))
        request.httpMethod = "PUT"
        if withExpectContinue { request.setValue("100-continue", forHTTPHeaderField: "Expect") }
        let delegate = StreamingBodyDelegate(body: body)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let status = try await delegate.run(session.uploadTask(withStreamedRequest: request))
        #expect(status == 201)
        #expect(delegate.streamsHandedOut >= 1)
        #expect(try Data(contentsOf: daemon.saveDirectory.appendingPathComponent("streamed.bin")) == body)
    }

    @Test func handBuiltMultipartForm() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let files = [("photo 1.jpg", Self.payload(700_000)), ("😀.bin", Self.payload(1234)), ("empty.txt", Data())]
        let boundary = "Boundary-\(UUID().uuidString)"
        var body = Data()
        for (name, content) in files {
            body.append(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\n".data(using: .utf8)!)
            body.append("Content-Type: application/octet-stream\r\n\r\n".data(using: .utf8)!)
            body.append(content)
            body.append("\r\n".data(using: .utf8)!)
        }
        body.append("--\(boundary)--\r\n".data(using: .utf8)!)
        var request = URLRequest(url: daemon.baseURL.appendingPathComponent("upload.html"))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.upload(for: request, from: body)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(String(decoding: data, as: UTF8.self).components(separatedBy: "\n").filter { $0.hasPrefix("stored ") }.count == 3)
        for (name, content) in files {
            #expect(try Data(contentsOf: daemon.saveDirectory.appendingPathComponent(name)) == content)
        }
        #expect(try daemon.storedNames() == files.map(\.0).sorted())
    }

    @Test func downloadTaskGetsTheExactBytesAndLength() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let body = Self.payload(4 << 20)
        try body.write(to: daemon.saveDirectory.appendingPathComponent("download me.bin"))
        let url = daemon.baseURL.appendingPathComponent("files/download me.bin")
        let (location, response) = try await URLSession.shared.download(from: url)
        let http = response as? HTTPURLResponse
        #expect(http?.statusCode == 200)
        #expect(http?.expectedContentLength == Int64(body.count))
        #expect(try Data(contentsOf: location) == body)
    }
}

/// Feeds a streamed upload through `needNewBodyStream`: on Linux, URLSession ignores
/// `httpBodyStream` for streamed tasks and asks the delegate; answering nil would send an
/// empty body and still report success.
final class StreamingBodyDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let body: Data
    private var continuation: CheckedContinuation<Int, Error>?
    private(set) var streamsHandedOut = 0

    init(body: Data) {
        self.body = body
    }

    func run(_ task: URLSessionUploadTask) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
            task.resume()
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping (InputStream?) -> Void
    ) {
        streamsHandedOut += 1
        completionHandler(InputStream(data: body))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let error {
            continuation?.resume(throwing: error)
        } else {
            continuation?.resume(returning: (task.response as? HTTPURLResponse)?.statusCode ?? 0)
        }
        continuation = nil
    }
}
