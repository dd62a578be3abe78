import FiledropHTTP

/// The body of one PATCH (or of a creation-with-upload POST) streaming into an upload's
/// partial file. Holds the upload's write lock (a token) from the head to the end of the
/// body; every write checks the token under the upload's lock, so a PATCH that lost the lock
/// to a newer one (or whose upload was terminated) stops without touching the file again.
///
/// tus.io protocol.md: without `Upload-Checksum` every byte received is kept, even when the
/// request breaks off ("store as much of the received data as possible"); with it the chunk
/// counts only once verified, and is cut off again on mismatch or abort ("Checksum").
///
/// The PATCH that brings the last byte publishes the upload before it answers: its 204
/// means the file is there under its name, and any other answer says what became of it.
final class TusPatch: RequestBodyConsumer {
    /// What the response looks like once the body is in.
    enum Reply {
        case patched
        case created(location: String)
    }

    private let upload: TusUpload
    private let uploads: TusUploads
    private let store: UploadStore
    private let token: UInt64
    private let file: any PartialUploadFile
    /// The one guarded writer every upload kind writes through; its limit is the offset the
    /// body may not go past (Upload-Length, the size limit, the pending limit).
    private var writer: GuardedWriter
    private let startOffset: UInt64
    private let checksum: (expected: UploadChecksum, digest: any IncrementalDigest)?
    private let expiration: Duration
    private let reply: Reply
    private var ended = false

    init(upload: TusUpload, uploads: TusUploads, store: UploadStore, lease: TusWriteLease, expiration: Duration, reply: Reply) {
        self.upload = upload
        self.uploads = uploads
        self.store = store
        self.token = lease.token
        self.file = lease.file
        self.writer = store.writer(
            for: lease.file, startingAt: lease.offset, limit: lease.limit,
            digest: Self.runningDigest(of: upload, at: lease.offset, store: store))
        self.startOffset = lease.offset
        self.checksum = lease.checksum
        self.expiration = expiration
        self.reply = reply
    }

    deinit {
        if !ended { abort() }
    }

    /// The upload's running SHA-256 if it reached exactly `offset` (a new one for the first
    /// byte); nil when it is off or was lost, and publishing reads the file once instead.
    private static func runningDigest(of upload: TusUpload, at offset: UInt64, store: UploadStore) -> (any UploadDigestStream)? {
        guard let hashing = store.hashing else { return nil }
        return upload.contentDigest.withLock { slot in
            if let running = slot, running.bytesFed == offset { return running }
            slot = offset == 0 ? hashing.makeStream() : nil
            return slot
        }
    }

    static let takenOver = TusError.http(.conflict("This upload was taken over by a newer request or terminated."))

    /// Where the upload stays when this request fails now: without a checksum what arrived
    /// stays (protocol.md); with one the chunk goes.
    private var keptOffset: UInt64 { checksum == nil ? writer.size : startOffset }

    /// Writes under the upload's lock, so a request that lost the lock never touches the
    /// file again; the writer's pause (write-back, the free-space check) runs after, on a
    /// worker, with no lock held.
    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) -> BodyIntake {
        let now = uploads.clock()
        try upload.machine.withLock { (machine: inout TusUploadMachine) throws(HTTPError) in
            guard machine.mayWrite(token) else { throw Self.takenOver.httpError }
            do throws(GuardedWriter.Refusal) {
                try writer.write(bytes)
            } catch {
                switch error {
                case .overLimit(let refusal): throw refusal
                case .storage(let failure):
                    // A write cut short (a full disk) may have put the first part of these
                    // bytes in the file before it failed. Without a checksum they stay, so
                    // they count: the offset the message names is the one HEAD reports and
                    // the next PATCH starts from, the file's size.
                    guard checksum == nil else { throw TusError.notStored(failure, keptOffset: startOffset).httpError }
                    let kept = max(file.size, writer.size)
                    machine.wrote(token, through: kept, counts: true, now: now)
                    throw TusError.notStored(failure, keptOffset: kept).httpError
                }
            }
            checksum?.digest.update(bytes)
            machine.wrote(token, through: writer.size, counts: checksum == nil, now: now)
        }
        guard let pause = writer.pause() else { return .accepted }
        return .paused(
            accepted: bytes.count, work: pause.work,
            then: { [self] () throws(HTTPError) in
                do throws(StorageError) {
                    try pause.then()
                } catch {
                    throw TusError.notStored(error, keptOffset: keptOffset).httpError
                }
            })
    }

    /// The fsync of the chunk and, for the last one, publishing run on a worker thread. The
    /// machine is `working` meanwhile, so the mutex is never held while it blocks: a HEAD on
    /// an event loop answers from the machine.
    func finish(trailers: HTTPHeaders) -> Deferred<Response> {
        ended = true
        guard upload.machine.withLock({ $0.finish(token) }) else {
            uploads.unlockOnDisk(upload, token: token)
            return .ready(Self.takenOver.response)
        }
        return .blocking(
            "tus finish",
            {
                let response = self.finishHeld()
                // Before the answer goes out: the client's next PATCH may go to another daemon.
                self.uploads.unlockOnDisk(self.upload, token: self.token)
                return response
            }, then: { .ready($0) })
    }

    /// On a worker, holding the upload's write lock and its lock on disk.
    private func finishHeld() -> Response {
        // The running hash waits for the next PATCH as hash state alone.
        writer.digest?.settle()
        let now = uploads.clock()
        if let checksum, checksum.digest.finish() != checksum.expected.digest {
            try? file.truncate(to: startOffset)
            upload.machine.withLock { $0.chunkDropped(back: startOffset, now: now) }
            return TusError.checksumMismatch.response
        }
        do throws(StorageError) {
            if store.policy.durable { try file.synchronize() }
        } catch {
            // Not known to be on disk, so not acknowledged: the chunk goes, the rest stays.
            try? file.truncate(to: startOffset)
            upload.machine.withLock { $0.chunkDropped(back: startOffset, now: now) }
            return TusError.notStored(error, keptOffset: startOffset).response
        }
        let offset = writer.size
        let next = upload.machine.withLock { $0.chunkStored(token, through: offset, now: now) }
        var savedAs: String?
        var sha256: [UInt8]?
        if next == .publish {
            let synchronized = store.policy.durable ? offset : nil
            switch uploads.publish(upload, token: token, store: store, synchronizedSize: synchronized) {
            case .failure(let error): return error.response
            case .success(let stored):
                savedAs = store.withholdsStoredNames ? nil : stored.url
                sha256 = stored.sha256.flatMap(SHA256Text.bytes(hex:))
            }
        }
        var headers = TusResponses.baseHeaders()
        if let savedAs { headers.add(.filedropSavedAs, savedAs) }
        // RFC 9530 §3: the digest of the stored file, on the PATCH that completed it.
        if let sha256 { headers.add(.reprDigest, SHA256Text.reprDigest(sha256)) }
        headers.add(.uploadOffset, String(offset))
        if next == .answer {
            headers.add(.uploadExpires, HTTPDate.format(now + expiration.components.seconds))
        }
        switch reply {
        case .patched:
            return Response(status: .noContent, headers: headers)
        case .created(let location):
            headers.add(.location, location)
            return Response(status: .created, headers: headers)
        }
    }

    func abort() {
        ended = true
        upload.machine.withLock { machine in
            // Cut back before the lock goes: the next writer must find the file at the offset.
            if let cut = machine.abort(token, checksummed: checksum != nil, startOffset: startOffset) {
                try? file.truncate(to: cut)
            }
        }
        uploads.unlockOnDisk(upload, token: token)
    }
}

/// The right to write one upload for one request, granted by the upload's machine after the
/// offset, length and limits were checked, with its partial file opened on a worker.
struct TusWriteLease {
    var token: UInt64
    var file: any PartialUploadFile
    var offset: UInt64
    var limit: SizeLimit
    var checksum: (expected: UploadChecksum, digest: any IncrementalDigest)?
}
