import Testing

@testable import FiledropCore

/// One tus upload's state machine driven directly: events in, decisions out, time as plain
/// numbers (like `ConnectionStateMachineTests`). No storage: the caller's I/O is what the
/// returned values ask for.
@Suite struct TusUploadMachineTests {
    static let record = TusRecord(length: 10, name: "a.bin", directory: [], metadata: "", client: "c", created: 0)
    static let noLimit = StoragePolicy(configuration: Configuration()).sizeLimit
    static let staleAfter: Int64 = 10

    static func machine(length: UInt64? = 10, offset: UInt64 = 0) -> TusUploadMachine {
        var record = Self.record
        record.length = length
        return TusUploadMachine(record: record, offset: offset, lastActivity: 0)
    }

    static func request(_ token: UInt64, offset: UInt64 = 0, newLength: UInt64? = nil, body: UInt64? = nil)
        -> TusUploadMachine.WriteRequest
    {
        .init(token: token, offset: offset, newLength: newLength, bodyLength: body)
    }

    /// Acquires for `token` and reports the open work done.
    @discardableResult
    static func receive(
        _ machine: inout TusUploadMachine, _ token: UInt64, offset: UInt64 = 0, now: Int64 = 0,
        maxPending: UInt64? = nil, others: UInt64 = 0, body: UInt64? = nil
    ) throws -> TusUploadMachine.WriteGrant {
        let grant = try machine.acquire(
            request(token, offset: offset, body: body), now: now, staleAfter: staleAfter, sizeLimit: noLimit,
            maxPending: maxPending, reservedByOthers: others)
        #expect(machine.phase == .working(token: token), "the partial file opens on a worker first")
        _ = machine.prepared(token: token, succeeded: true, previousRecord: grant.previousRecord, now: now)
        return grant
    }

    @Test func aWholeUploadAcquireAppendFinishPublish() throws {
        var machine = Self.machine()
        let grant = try Self.receive(&machine, 1)
        #expect(grant.limit.bytes == 10)
        #expect(machine.mayWrite(1))
        machine.wrote(1, through: 10, counts: true, now: 5)
        #expect(machine.offset == 10)
        let finished = machine.finish(1)
        #expect(finished)
        #expect(!machine.isFree(now: 1000, staleAfter: Self.staleAfter), "held while its work runs, however long")
        let next = machine.chunkStored(1, through: 10, now: 6)
        #expect(next == .publish)
        _ = machine.remove()
        #expect(machine.isRemoved)
        #expect(throws: TusError.notFound) { try Self.receive(&machine, 2) }
    }

    @Test func aPartialChunkFreesTheLockForTheNext() throws {
        var machine = Self.machine()
        try Self.receive(&machine, 1)
        machine.wrote(1, through: 4, counts: true, now: 1)
        let finished = machine.finish(1)
        #expect(finished)
        let next = machine.chunkStored(1, through: 4, now: 2)
        #expect(next == .answer)
        #expect(machine.phase == .idle)
        #expect(throws: TusError.offsetMismatch(current: 4)) { try Self.receive(&machine, 2, offset: 3) }
        try Self.receive(&machine, 2, offset: 4)
    }

    @Test func aSecondWriterIsLockedUntilTheFirstGoesQuietThenTheFirstMayNotWrite() throws {
        var machine = Self.machine()
        try Self.receive(&machine, 1, now: 100)
        machine.wrote(1, through: 3, counts: true, now: 105)
        #expect(throws: TusError.locked) { try Self.receive(&machine, 2, offset: 3, now: 114) }
        try Self.receive(&machine, 2, offset: 3, now: 115)
        #expect(!machine.mayWrite(1))
        let oldFinished = machine.finish(1)
        #expect(!oldFinished, "the old writer's finish is refused")
        let oldCut = machine.abort(1, checksummed: true, startOffset: 0)
        #expect(oldCut == nil, "and its abort changes nothing")
        #expect(machine.mayWrite(2))
    }

    @Test func aChecksummedChunkCountsOnlyOnceVerified() throws {
        var machine = Self.machine()
        try Self.receive(&machine, 1)
        machine.wrote(1, through: 4, counts: false, now: 1)
        #expect(machine.offset == 0)
        let cut = machine.abort(1, checksummed: true, startOffset: 0)
        #expect(cut == 0, "cut the file back to 0")
        #expect(machine.phase == .idle)
    }

    @Test func terminationWaitsForWorkAndEndsEverything() throws {
        var machine = Self.machine()
        try Self.receive(&machine, 1)
        let finished = machine.finish(1)
        #expect(finished)
        #expect(throws: TusError.locked) { try machine.terminate() }
        let next = machine.chunkStored(1, through: 0, now: 1)
        #expect(next == .answer)
        try machine.terminate()
        #expect(throws: TusError.notFound) { try machine.terminate() }
    }

    @Test func expiryCountsFromTheLastWriteAndSparesAReceivingWriter() throws {
        var machine = Self.machine()
        let expiredEarly = machine.expire(now: 99, after: 100)
        #expect(!expiredEarly)
        try Self.receive(&machine, 1, now: 50)
        machine.wrote(1, through: 1, counts: true, now: 60)
        let expiredWhileReceiving = machine.expire(now: 159, after: 100)
        #expect(!expiredWhileReceiving, "still receiving")
        let expired = machine.expire(now: 160, after: 100)
        #expect(expired, "quiet for the expiration")
        #expect(machine.isRemoved)
    }

    @Test func onlyACompleteFreeUploadIsClaimedForPublishingAndAFailureThatMayPassFreesIt() throws {
        var machine = Self.machine(offset: 4)
        let claimedIncomplete = machine.claimForPublishing(1, now: 0, staleAfter: Self.staleAfter)
        #expect(!claimedIncomplete)
        var complete = Self.machine(offset: 10)
        let claimed = complete.claimForPublishing(1, now: 0, staleAfter: Self.staleAfter)
        #expect(claimed)
        let claimedTwice = complete.claimForPublishing(2, now: 0, staleAfter: Self.staleAfter)
        #expect(!claimedTwice)
        complete.publishDeferred(1, now: 7)
        #expect(complete.phase == .idle)
        #expect(complete.lastActivity == 7)
        let claimedAgain = complete.claimForPublishing(2, now: 8, staleAfter: Self.staleAfter)
        #expect(claimedAgain)
    }

    @Test func aDeferredLengthIsSetOnceAndUndoneWhenItsRecordCannotBeSaved() throws {
        var machine = Self.machine(length: nil, offset: 5)
        let grant = try machine.acquire(
            Self.request(1, offset: 5, newLength: 11), now: 0, staleAfter: Self.staleAfter,
            sizeLimit: Self.noLimit, maxPending: nil, reservedByOthers: 0)
        #expect(grant.recordToSave?.length == 11)
        #expect(machine.record.length == 11)
        _ = machine.prepared(token: 1, succeeded: false, previousRecord: grant.previousRecord, now: 1)
        #expect(machine.record.length == nil, "the record could not be saved: as it was")
        #expect(machine.phase == .idle)
        #expect(throws: TusError.badRequest("Upload-Length is smaller than what was already uploaded.")) {
            try machine.acquire(
                Self.request(2, offset: 5, newLength: 4), now: 0, staleAfter: Self.staleAfter,
                sizeLimit: Self.noLimit, maxPending: nil, reservedByOthers: 0)
        }
    }

    /// The pending-space rule: what a deferred PATCH may bring is reserved while it writes,
    /// and given back when it ends.
    @Test func aDeferredWriteReservesItsRoomUntilItEnds() throws {
        var machine = Self.machine(length: nil)
        let refusal = #expect(throws: TusError.self) { try Self.receive(&machine, 1, maxPending: 1000, others: 700, body: 301) }
        #expect(refusal?.status == .insufficientStorage)
        let grant = try Self.receive(&machine, 1, maxPending: 1000, others: 700, body: 300)
        #expect(grant.limit.bytes == 300)
        #expect(machine.reserved == 300, "held while it writes")
        machine.wrote(1, through: 100, counts: true, now: 1)
        _ = machine.abort(1, checksummed: false, startOffset: 0)
        #expect(machine.reserved == 100, "back to what it holds")
        let chunked = try Self.receive(&machine, 2, offset: 100, maxPending: 1000, others: 700)
        #expect(machine.reserved == chunked.limit.bytes, "a chunked body holds all the room it may use")
    }
}
