/// The uploads as they are on disk, where every daemon on one save directory sees them. The
/// record and the partial file are the truth; a `TusUpload` in memory is a cache of them,
/// brought in line before each request reads it (`refresh`), and written only under the
/// upload's lock on disk (`PartialUploadFile.tryLock`), which every daemon takes the same way.
///
/// Over NFS a stat may answer from the client's attribute cache, so a HEAD can report an
/// offset a few seconds old; taking the lock revalidates the file, so the offset a PATCH is
/// checked against, and the size a publish is checked against, are read under it.
extension TusUploads {
    /// Brings upload `id` in line with its files before a request reads it: one another
    /// daemon created is taken in, what another one wrote (the offset, a length that arrived)
    /// is taken over, one another finished or removed is dropped, and one idle for
    /// `expiration` is removed here, under its lock. Returns whether this call removed it.
    /// Blocking (a stat and a small read; unlinks when it expired): on a worker.
    @discardableResult
    func refresh(_ id: String, expiration: Duration, monitor: UploadMonitor?) -> Bool {
        let found: RecoveredPartialUpload
        do throws(StorageError) {
            found = try area.load(id: id)
        } catch .notFound {
            dropRemovedElsewhere(id)
            return false
        } catch {
            // Unreadable right now (an I/O error, a record too large): answer from memory.
            return false
        }
        guard let record = TusRecord(decoding: found.record) else { return false }
        let upload = registry.withLock { all in
            if let known = all[id] { return known }
            let taken = TusUpload(id: id, record: record, offset: found.size, lastActivity: found.modified)
            taken.isOnDisk.store(true, ordering: .releasing)
            all[id] = taken
            return taken
        }
        let now = clock()
        let expired = upload.machine.withLock { machine in
            machine.synchronize(record: record, offset: found.size, modified: found.modified)
            return machine.isExpired(now: now, after: expiration.components.seconds)
        }
        return expired && removeExpired(upload, expiration: expiration, monitor: monitor)
    }

    /// Deletes an expired upload under its lock on disk, so never from under a writer of
    /// another daemon, and once: a daemon that finds the files gone (another swept first)
    /// passes over it quietly. One whose lock another daemon holds is expired all the same
    /// (nothing was written to it for `expiration`): this daemon forgets it and answers 404,
    /// and the files are left to the holder, most likely the daemon removing them right now.
    /// Returns whether this call removed it. Blocking: on a worker.
    private func removeExpired(_ upload: TusUpload, expiration: Duration, monitor: UploadMonitor?) -> Bool {
        let file: any PartialUploadFile
        do throws(StorageError) {
            file = try area.openForAppending(id: upload.id)
            guard try file.tryLock() else {
                dropRemovedElsewhere(upload.id)
                return false
            }
        } catch .notFound {
            dropRemovedElsewhere(upload.id)
            return false
        } catch {
            return false
        }
        defer { file.unlock() }
        // Under the lock nobody writes it: what the disk says now is final.
        guard let current = try? area.load(id: upload.id) else { return false }
        let now = clock()
        let expired = upload.machine.withLock { machine in
            machine.synchronize(record: nil, offset: current.size, modified: current.modified)
            return machine.expire(now: now, after: expiration.components.seconds)
        }
        guard expired else { return false }
        forget(upload, reason: "expired after \(DurationText.format(expiration)) without activity", monitor: monitor)
        return true
    }

    /// Upload `id`'s files are gone: another daemon published, terminated or expired it.
    /// Dropped here too, unless this daemon is working on it (its writer finds out itself)
    /// or has not written its files yet.
    func dropRemovedElsewhere(_ id: String) {
        guard let upload = upload(id), upload.isOnDisk.load(ordering: .acquiring) else { return }
        let dropped = upload.machine.withLock { machine -> (progress: UploadProgress?, removed: Bool) in
            guard machine.phase == .idle else { return (nil, false) }
            return (machine.remove(), true)
        }
        guard dropped.removed else { return }
        _ = registry.withLock { $0.removeValue(forKey: id) }
        dropped.progress?.failed(reason: "finished or removed by another daemon on the same save directory")
    }

    /// Bytes the unfinished uploads on disk hold against `tus-max-pending`, every daemon's:
    /// for each, its length or what it already holds if more (a deferred length). Blocking
    /// (a directory walk and a small read per upload): on a worker.
    func pendingOnDisk(excluding excluded: String) -> UInt64 {
        area.ids().filter { $0 != excluded }.reduce(0) { total, id in
            guard let found = try? area.load(id: id) else { return total }
            let length = TusRecord(decoding: found.record)?.length ?? 0
            return total + max(length, found.size)
        }
    }

    // MARK: The lock on disk

    /// Whether a writer of another daemon holds upload `id`'s lock on disk right now (one of
    /// this daemon is its machine's business): a look that takes and drops the lock at once.
    /// Blocking (an open and two fcntl calls): on a worker.
    func isLockedElsewhere(_ id: String) -> Bool {
        guard let upload = upload(id), upload.machine.withLock({ $0.phase == .idle }),
            let file = try? area.openForAppending(id: id), let locked = try? file.tryLock()
        else { return false }
        if locked { file.unlock() }
        return !locked
    }

    /// Takes the upload's lock on disk for `token` with `file`, without waiting. A writer of
    /// this daemon that lost the machine's write lock (it went quiet and this request took
    /// over) gives its file lock up first: it may not write any more anyway. Returns whether
    /// it took over from one, whose unverified bytes may lie past the offset. `.locked` when
    /// another daemon's writer holds it, `.notFound` when the upload left the area.
    func lockOnDisk(_ upload: TusUpload, token: UInt64, file: any PartialUploadFile) throws(TusError) -> Bool {
        let previous = upload.diskLock.withLock { held in
            defer { held = nil }
            return held
        }
        previous?.holder.file.unlock()
        let locked: Bool
        do throws(StorageError) {
            locked = try file.tryLock()
        } catch .notFound {
            throw .notFound
        } catch {
            throw .notStored(error, keptOffset: upload.machine.withLock { $0.offset })
        }
        guard locked else { throw .locked }
        let holder = DiskLockHolder(file)
        upload.diskLock.withLock { $0 = (token, holder) }
        return previous != nil
    }

    /// Lets go of the lock on disk `token` holds, if it still does: before the response goes
    /// out, so the client's next PATCH, through whichever daemon, finds it free.
    func unlockOnDisk(_ upload: TusUpload, token: UInt64) {
        let released = upload.diskLock.withLock { held -> DiskLockHolder? in
            guard let current = held, current.token == token else { return nil }
            held = nil
            return current.holder
        }
        released?.file.unlock()
    }

    /// The partial file's size under the upload's lock on disk: the lock `token`'s PATCH
    /// holds, or one taken here (`took`: the caller lets go of it). Blocking: on a worker.
    func lockedSize(_ upload: TusUpload, token: UInt64) throws(TusError) -> (size: UInt64, took: Bool) {
        if let held = upload.diskLock.withLock({ $0?.token == token ? $0?.holder : nil }) { return (held.file.size, false) }
        let file: any PartialUploadFile
        do throws(StorageError) {
            file = try area.openForAppending(id: upload.id)
        } catch .notFound {
            throw .notFound
        } catch {
            throw .completeNotSaved(error)
        }
        _ = try lockOnDisk(upload, token: token, file: file)
        return (file.size, true)
    }
}
