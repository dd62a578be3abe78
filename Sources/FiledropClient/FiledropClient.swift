import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client for a filedrop server (or any server with the same routes): upload a file as a
/// form, a raw PUT or resumably with tus; download with resume; list the drop. Files are
/// streamed from and to disk, never held in memory whole.
///
/// ```swift
/// let client = FiledropClient(baseURL: URL(string: "http://192.168.1.20:8080")!)
/// let stored = try await client.upload(URL(fileURLWithPath: "photo.jpg")) { print($0.bytes) }
/// try await client.download("photo.jpg", to: URL(fileURLWithPath: "copy.jpg"))
/// ```
public struct FiledropClient: Sendable {
    /// How a file goes up.
    public enum UploadMethod: String, Sendable, CaseIterable {
        /// tus for files of `tusThreshold` and more, a form below (what the page does).
        case automatic
        /// `POST /upload.html` as `multipart/form-data`, like a browser form or `curl -F`.
        case multipart
        /// `PUT /files/NAME` with the file as the body, like `curl -T`.
        case put
        /// tus 1.0 (`POST /files/`, `PATCH`, `HEAD`): resumes after a failure or a restart.
        case tus
    }

    /// What the server stored.
    public struct UploadResult: Sendable, Equatable {
        /// The name the server chose (it may differ from the one sent, on a collision).
        public var name: String
        public var size: Int64
        /// Bytes the server already had from an earlier, interrupted attempt (tus only).
        public var resumedFrom: Int64
        /// The SHA-256 the server computed of what it stored (lowercase hex); nil when it
        /// computes none (`sha256 = off`, or an older server).
        public var sha256: String? = nil
    }

    public var baseURL: URL
    /// Sent as HTTP Basic credentials (RFC 7617) when set; filedrop ignores the user name.
    public var password: String?
    public var userName: String
    /// Seconds without progress before a request fails.
    public var timeout: TimeInterval
    /// Files at least this big go up with tus when the method is `.automatic`.
    public var tusThreshold: Int64 = 8 << 20
    /// Bytes per tus PATCH: what a failure can cost at most.
    public var tusChunkSize: Int64 = 64 << 20
    /// Bytes per download request (see `download`): the most received data that can wait
    /// in memory for the disk. 2 MiB keeps `filedrop get` of 1 GiB under 32 MiB of RSS
    /// (4 MiB peaked 2 MiB higher) at the same speed; 1 MiB saves 1 MiB more but is slower.
    public var downloadChunkSize: Int64 = 2 << 20
    /// Where unfinished tus uploads are remembered; nil resumes only within one call.
    public var resumeStore: TusResumeStore?
    /// Whom to trust for an `https://` server (see `ServerTrust` for what each platform can do).
    public var serverTrust: ServerTrust
    #if canImport(FoundationNetworking)
        /// Linux: a plain-HTTP address on this machine (`http://127.0.0.1:PORT`) that carries
        /// every request for `baseURL` to the server over a TLS connection its owner verifies,
        /// for the `ServerTrust` choices URLSession cannot apply here. Requests keep the server's
        /// `Host`. The bytes cross the loopback interface in the clear: only this machine (and
        /// its root) sees them.
        public var tlsRelay: URL?
    #endif

    public init(
        baseURL: URL, password: String? = nil, userName: String = "filedrop", timeout: TimeInterval = 60,
        resumeStore: TusResumeStore? = TusResumeStore.userCache(), serverTrust: ServerTrust = .system
    ) {
        self.baseURL = baseURL
        self.password = password
        self.userName = userName
        self.timeout = timeout
        self.resumeStore = resumeStore
        self.serverTrust = serverTrust
    }

    // MARK: - Uploads

    /// Uploads `file` under `name` (default: its own name) and returns what was stored.
    public func upload(
        _ file: URL, as name: String? = nil, method: UploadMethod = .automatic,
        progress: ProgressHandler? = nil
    ) async throws(FiledropClientError) -> UploadResult {
        let size = try Self.fileSize(file)
        let name = name ?? file.lastPathComponent
        let meter = ProgressMeter(handler: progress)
        switch method {
        case .tus:
            return try await TusUploader(client: self, file: file, size: size, name: name, meter: meter).run()
        case .automatic where size >= tusThreshold:
            return try await TusUploader(client: self, file: file, size: size, name: name, meter: meter).run()
        case .automatic, .multipart:
            meter.start(at: 0, total: size)
            let body = StreamedBody.multipartForm(file: file, size: size, fileName: name)
            let leading = body.segments.first?.length ?? 0
            var request = makeRequest(path: "/upload.html", method: "POST")
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            let result = try await send(
                request, body: body, progress: .init(meter: meter, base: 0, leading: leading, fileLength: size),
                refusingErrors: false)
            meter.update(size, force: true)
            return try Self.formAnswer(status: result.response.statusCode, body: result.body, size: size, fallbackName: name)
        case .put:
            meter.start(at: 0, total: size)
            let body = StreamedBody.fileRange(file, offset: 0, length: size, contentType: "application/octet-stream")
            var request = makeRequest(path: "/files/" + Self.percentEncodedPath(name), method: "PUT")
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            let result = try await send(request, body: body, progress: .init(meter: meter, base: 0, fileLength: size))
            meter.update(size, force: true)
            return try Self.storedFile(in: result.body, size: size, fallbackName: name)
        }
    }

    /// The upload report `{"files":[{"name","size","crc32","sha256","url"}],"errors":[...]}`; the wire
    /// format is declared by `Tests/Fixtures/json/upload.json`.
    static func storedFile(in body: Data, size: Int64, fallbackName: String) throws(FiledropClientError) -> UploadResult {
        struct Report: Decodable {
            struct File: Decodable {
                var name: String
                var size: Int64
                var sha256: String?
            }
            var files: [File]
        }
        guard let report = try? JSONDecoder().decode(Report.self, from: body), let file = report.files.first else {
            return UploadResult(name: fallbackName, size: size, resumedFrom: 0)
        }
        guard file.size == size else {
            throw .invalidResponse("the server stored \(file.size) bytes of \(size)")
        }
        return UploadResult(name: file.name, size: file.size, resumedFrom: 0, sha256: file.sha256?.lowercased())
    }

    /// What a form's answer says was stored. A form refused after its file part answers with
    /// an error status and still lists the file (`Tests/Fixtures/json/upload-stopped.json`):
    /// the file is saved, and sending it again would only make a copy.
    static func formAnswer(status: Int, body: Data, size: Int64, fallbackName: String) throws(FiledropClientError) -> UploadResult
    {
        if status >= 400 {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                let files = object["files"] as? [Any], !files.isEmpty
            else {
                throw FiledropClientError.from(status: status, body: body)
            }
        }
        return try storedFile(in: body, size: size, fallbackName: fallbackName)
    }

    /// The sha-256 member of an RFC 9530 `Repr-Digest` (`sha-256=:BASE64:`) as lowercase hex.
    static func sha256(reprDigest field: String) -> String? {
        for member in field.split(separator: ",") {
            let trimmed = member.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix("sha-256=:"), trimmed.hasSuffix(":") else { continue }
            let base64 = trimmed.dropFirst("sha-256=:".count).dropLast()
            guard let bytes = Data(base64Encoded: String(base64)), bytes.count == 32 else { return nil }
            return bytes.map { String(format: "%02x", $0) }.joined()
        }
        return nil
    }

    // MARK: - Requests

    /// A request for `path` (already percent-encoded) with the credentials attached.
    func makeRequest(path: String, method: String = "GET") -> URLRequest {
        makeRequest(url: URL(string: path, relativeTo: baseURL)?.absoluteURL ?? baseURL, method: method)
    }

    func makeRequest(url: URL, method: String = "GET") -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        if let password {
            let credentials = Data("\(userName):\(password)".utf8).base64EncodedString()
            request.setValue("Basic \(credentials)", forHTTPHeaderField: "Authorization")
        }
        return request
    }

    /// Performs `request` and, with `refusingErrors`, turns a status of 400 or more into the
    /// server's error.
    func send(
        _ request: URLRequest, body: StreamedBody? = nil, destination: TransferSession.Destination = .memory,
        progress: TransferSession.ProgressMapping? = nil,
        refusingErrors: Bool = true
    ) async throws(FiledropClientError) -> TransferSession.Result {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        let result = try await TransferSession.perform(
            try routed(request), body: body, destination: destination,
            progress: progress, configuration: configuration,
            serverTrust: serverTrust)
        if refusingErrors, result.response.statusCode >= 400 {
            throw FiledropClientError.from(status: result.response.statusCode, body: result.body)
        }
        return result
    }

    /// The request as it leaves: on Linux, an `https://` request for `baseURL` goes to
    /// `tlsRelay` when there is one, and fails when `serverTrust` needs one and there is none.
    func routed(_ request: URLRequest) throws(FiledropClientError) -> URLRequest {
        #if canImport(FoundationNetworking)
            guard let url = request.url, url.scheme?.lowercased() == "https" else { return request }
            guard let relay = tlsRelay else {
                guard serverTrust == .system else {
                    throw .untrustedServer(
                        "URLSession on Linux trusts only the system store; a CA file or a pinned certificate needs a tlsRelay")
                }
                return request
            }
            guard url.host?.lowercased() == baseURL.host?.lowercased(), url.port == baseURL.port,
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            else {
                throw .untrustedServer("\(url.host ?? "?") is not the server the TLS relay carries")
            }
            components.scheme = relay.scheme
            components.host = relay.host
            components.port = relay.port
            guard let relayed = components.url, let host = url.host else {
                throw .untrustedServer("cannot send \(url.absoluteString) through the TLS relay")
            }
            var request = request
            request.url = relayed
            // RFC 9110 §7.2: the server's own authority, so its Host check and URLs still hold.
            let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            request.setValue(bracketed + (url.port.map { ":\($0)" } ?? ""), forHTTPHeaderField: "Host")
            return request
        #else
            return request
        #endif
    }

    /// `a b/c.txt` -> `a%20b/c.txt`: every byte but the unreserved ones (RFC 3986 §2.3)
    /// escaped in each component, so names with `?`, `#` or `%` reach the server intact.
    static func percentEncodedPath(_ path: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        allowed.insert("/")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }

    static func fileSize(_ file: URL) throws(FiledropClientError) -> Int64 {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else {
                throw FiledropClientError.localFile(path: file.path, reason: "not a regular file")
            }
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        } catch let error as FiledropClientError {
            throw error
        } catch {
            throw .localFile(path: file.path, reason: "cannot read: no such file or no permission")
        }
    }
}
