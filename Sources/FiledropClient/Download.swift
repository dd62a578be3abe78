import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where an interrupted download stands: bytes in `<destination>.filedrop-part`, and a
/// sidecar with the validator of the version they came from, so the next attempt asks for
/// the rest only if the file did not change (RFC 9110 §13.1.5 If-Range).
struct PartialDownload {
    struct Validator: Codable, Equatable {
        var url: String
        var etag: String?
        var lastModified: String?

        init(response: HTTPURLResponse?, url: URL) {
            self.url = url.absoluteString
            etag = response?.value(forHTTPHeaderField: "ETag")
            lastModified = response?.value(forHTTPHeaderField: "Last-Modified")
        }

        /// RFC 9110 §13.1.5: a strong ETag, else the Last-Modified date.
        var ifRange: String? {
            if let etag, !etag.hasPrefix("W/") { return etag }
            return lastModified
        }
    }

    let destination: URL
    var partURL: URL { destination.appendingPathExtension("filedrop-part") }
    var validatorURL: URL { destination.appendingPathExtension("filedrop-part.json") }

    /// Bytes already there and how to ask for the rest; nil to start from zero.
    func resumePoint(for url: URL) -> (offset: Int64, ifRange: String)? {
        guard let data = try? Data(contentsOf: validatorURL),
            let validator = try? JSONDecoder().decode(Validator.self, from: data),
            validator.url == url.absoluteString, let ifRange = validator.ifRange,
            let attributes = try? FileManager.default.attributesOfItem(atPath: partURL.path),
            let size = (attributes[.size] as? NSNumber)?.int64Value, size > 0
        else { return nil }
        return (size, ifRange)
    }

    /// Starts the part file over for a full (200) response and records its validator.
    func restart(url: URL, response: HTTPURLResponse?) throws(FiledropClientError) -> FileHandle {
        let validator = Validator(response: response, url: url)
        do {
            try JSONEncoder().encode(validator).write(to: validatorURL, options: .atomic)
            guard FileManager.default.createFile(atPath: partURL.path, contents: nil) else {
                throw FiledropClientError.localFile(path: partURL.path, reason: "cannot create")
            }
            return try FileHandle(forWritingTo: partURL)
        } catch let error as FiledropClientError {
            throw error
        } catch {
            throw .localFile(path: partURL.path, reason: "cannot write: \(error.localizedDescription)")
        }
    }

    /// Opens the part file to append the rest (a 206 that starts at `offset`).
    func append(at offset: Int64) throws(FiledropClientError) -> FileHandle {
        do {
            let handle = try FileHandle(forWritingTo: partURL)
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seek(toOffset: UInt64(offset))
            return handle
        } catch {
            throw .localFile(path: partURL.path, reason: "cannot append: \(error.localizedDescription)")
        }
    }

    /// The part file becomes the destination (replacing it), once it has every byte.
    func finish() throws(FiledropClientError) {
        do {
            if FileManager.default.fileExists(atPath: destination.path) {
                _ = try FileManager.default.replaceItemAt(destination, withItemAt: partURL)
            } else {
                try FileManager.default.moveItem(at: partURL, to: destination)
            }
        } catch {
            throw .localFile(path: destination.path, reason: "cannot move the download into place: \(error.localizedDescription)")
        }
        discardValidator()
    }

    func discard() {
        try? FileManager.default.removeItem(at: partURL)
        discardValidator()
    }

    private func discardValidator() {
        try? FileManager.default.removeItem(at: validatorURL)
    }
}

extension FiledropClient {
    /// What a download brought.
    public struct DownloadResult: Sendable, Equatable {
        public var size: Int64
        /// Bytes that were already on disk from an interrupted attempt.
        public var resumedFrom: Int64
    }

    /// Downloads `name` (a path in the drop) to `destination`, resuming an interrupted
    /// attempt with `Range` + `If-Range`. The file appears at `destination` only complete.
    ///
    /// The file comes in ranges of `downloadChunkSize` bytes, one request each: URLSession
    /// hands received data to the delegate queue without waiting for it (no backpressure),
    /// so one request for a whole file could pile up hundreds of megabytes when the disk is
    /// slower than the network. A range bounds that, and is a resume point too.
    public func download(_ name: String, to destination: URL, progress: ProgressHandler? = nil) async throws(FiledropClientError)
        -> DownloadResult
    {
        let partial = PartialDownload(destination: destination)
        let url = makeRequest(path: "/files/" + Self.percentEncodedPath(name)).url ?? baseURL
        let resume = partial.resumePoint(for: url)
        if resume == nil { partial.discard() }
        var offset = resume?.offset ?? 0
        var validator = resume?.ifRange
        let meter = ProgressMeter(handler: progress)
        meter.start(at: offset, total: nil)
        var restarts = 0
        while true {
            let outcome = try await downloadRange(url: url, from: offset, validator: validator, partial: partial, meter: meter)
            switch outcome {
            case .appended(let end, let total, let newValidator):
                offset = end
                validator = newValidator ?? validator
                guard end < total else {
                    meter.update(end, force: true)
                    try partial.finish()
                    return DownloadResult(size: end, resumedFrom: resume?.offset ?? 0)
                }
            case .beyondEnd(let total):
                if total == offset {
                    // Every byte was already there (or the file is empty).
                    if offset == 0 { _ = try partial.restart(url: url, response: nil) }
                    try partial.finish()
                    return DownloadResult(size: offset, resumedFrom: resume?.offset ?? 0)
                }
                // The part file is longer than the file now is: start over, once.
                restarts += 1
                guard restarts == 1 else { throw .invalidResponse("the file keeps changing while it is downloaded") }
                partial.discard()
                offset = 0
                validator = nil
            }
        }
    }

    enum RangeOutcome {
        /// The part file now ends at `end` of `total`; the validator to ask with next time.
        case appended(end: Int64, total: Int64, validator: String?)
        /// 416: nothing at `offset`; the file has `total` bytes.
        case beyondEnd(total: Int64)
    }

    private func downloadRange(
        url: URL, from offset: Int64, validator: String?, partial: PartialDownload,
        meter: ProgressMeter
    ) async throws(FiledropClientError) -> RangeOutcome {
        var request = makeRequest(url: url)
        // Byte offsets must be those of the file itself, never of a compressed form.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        // RFC 9110 §14.2 and §13.1.5: this range, if the file is still the same version
        // (else the server sends all of it with 200, and the part file starts over).
        request.setValue("bytes=\(offset)-\(offset + downloadChunkSize - 1)", forHTTPHeaderField: "Range")
        if let validator { request.setValue(validator, forHTTPHeaderField: "If-Range") }
        let state = DownloadState()
        let destination = TransferSession.Destination.file { (response) throws(FiledropClientError) in
            switch response.statusCode {
            case 200:
                let total = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
                state.set(start: 0, total: total, validator: PartialDownload.Validator(response: response, url: url).ifRange)
                return (try partial.restart(url: url, response: response), 0, total)
            case 206:
                guard let range = ContentRange(response.value(forHTTPHeaderField: "Content-Range")), range.first == offset else {
                    throw .invalidResponse("a partial answer for a range that was not asked for")
                }
                let handle = offset == 0 ? try partial.restart(url: url, response: response) : try partial.append(at: offset)
                state.set(
                    start: offset, total: range.total, validator: PartialDownload.Validator(response: response, url: url).ifRange)
                return (handle, offset, range.total)
            case 416:
                // RFC 9110 §15.5.17: `Content-Range: bytes */LENGTH` says how long the file is.
                let value = response.value(forHTTPHeaderField: "Content-Range") ?? ""
                state.setUnsatisfied(total: value.hasPrefix("bytes */") ? Int64(value.dropFirst(8)) : nil)
                return nil
            default:
                return nil
            }
        }
        do throws(FiledropClientError) {
            _ = try await send(request, destination: destination, progress: .init(meter: meter, base: offset))
        } catch .refused(status: 416, _) {
            return .beyondEnd(total: state.unsatisfiedTotal ?? -1)
        }
        let end = (try? FileManager.default.attributesOfItem(atPath: partial.partURL.path)[.size] as? NSNumber)?.int64Value ?? 0
        let (_, total, newValidator) = state.value
        guard let total else { return .appended(end: end, total: end, validator: newValidator) }
        guard end > offset || end == total else {
            throw .network("the download stopped at \(end) of \(total) bytes; run it again to resume")
        }
        return .appended(end: end, total: total, validator: newValidator)
    }
}

/// What the response head said, handed from the delegate queue to the caller.
private final class DownloadState: @unchecked Sendable {
    private let lock = NSLock()
    private var start: Int64 = 0
    private var total: Int64?
    private var validator: String?

    func set(start: Int64, total: Int64?, validator: String?) {
        lock.withLock {
            self.start = start
            self.total = total
            self.validator = validator
        }
    }

    var value: (Int64, Int64?, String?) { lock.withLock { (start, total, validator) } }

    private var unsatisfied: Int64?

    /// The length a 416 named.
    func setUnsatisfied(total: Int64?) {
        lock.withLock { unsatisfied = total }
    }

    var unsatisfiedTotal: Int64? { lock.withLock { unsatisfied } }
}

/// RFC 9110 §14.4 `Content-Range: bytes FIRST-LAST/TOTAL` (TOTAL may be `*`).
struct ContentRange: Equatable {
    var first: Int64
    var last: Int64
    var total: Int64?

    init?(_ value: String?) {
        guard let value, value.hasPrefix("bytes ") else { return nil }
        let parts = value.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else { return nil }
        self.first = first
        self.last = last
        self.total = parts[1] == "*" ? nil : Int64(parts[1])
    }
}
