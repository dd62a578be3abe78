import Testing

@testable import FiledropCore
@testable import FiledropTesting

/// `StoragePolicy.admission`, the one rule for whether an upload may start, and `/healthz`,
/// which asks the same rule: whenever an upload of one byte is refused for room, the health
/// check answers 503 with the upload's sentence, and 200 whenever that upload is taken.
@Suite struct SpaceAdmissionTests {
    static func policy(minFree: UInt64) -> StoragePolicy {
        StoragePolicy(
            names: FileNamePolicy(allowHidden: false), collision: .rename, maxFileSize: nil, minFreeSpace: minFree,
            durable: false)
    }

    @Test func admitsWhileBytesAboveTheMinimumAndAnInodeAreFree() {
        let policy = Self.policy(minFree: 100)
        #expect(policy.admission(for: nil, space: SpaceReading(availableBytes: 101, availableInodes: 1)) == nil)
        #expect(policy.admission(for: 10, space: SpaceReading(availableBytes: 110)) == nil)
        #expect(policy.admission(for: 1 << 40, space: nil) == nil)
    }

    /// Every limit one byte over: the declared size, or one byte when none is declared.
    @Test func refusesOneByteOverTheMinimum() {
        let policy = Self.policy(minFree: 100)
        #expect(policy.admission(for: nil, space: SpaceReading(availableBytes: 100)) == StoragePolicy.tooFullToStart)
        #expect(policy.admission(for: 11, space: SpaceReading(availableBytes: 110)) == StoragePolicy.tooFullToStart)
    }

    /// `min-free-space 0` keeps nothing free, yet a disk with nothing left takes no upload.
    @Test func refusesATrulyFullDiskWithoutAMinimum() {
        let policy = Self.policy(minFree: 0)
        #expect(policy.admission(for: nil, space: SpaceReading(availableBytes: 0)) == StoragePolicy.tooFullToStart)
        #expect(policy.admission(for: 0, space: SpaceReading(availableBytes: 0)) == StoragePolicy.tooFullToStart)
        #expect(policy.admission(for: nil, space: SpaceReading(availableBytes: 1)) == nil)
    }

    @Test func refusesWithoutAFreeInodeOrOnAReadOnlyMount() {
        let policy = Self.policy(minFree: 0)
        #expect(
            policy.admission(for: nil, space: SpaceReading(availableBytes: 1 << 30, availableInodes: 0))
                == StoragePolicy.noFreeInodes)
        // A file system with no inode table (btrfs reports none) is not out of inodes.
        #expect(policy.admission(for: nil, space: SpaceReading(availableBytes: 1 << 30, availableInodes: nil)) == nil)
        #expect(
            policy.admission(for: nil, space: SpaceReading(availableBytes: 1 << 30, readOnly: true))
                == StorageError.readOnly.httpError)
    }

    /// A one-byte PUT and `/healthz` on the same disk, for free space around `min-free-space`.
    @Test(arguments: [(UInt64(0), UInt64(0)), (0, 1), (64, 64), (64, 65), (64, 1 << 20)])
    func healthAgreesWithUploads(minFree: UInt64, free: UInt64) {
        let storage = InMemoryStorage()
        storage.state.withLock { $0.freeSpace = free }
        var configuration = Configuration()
        configuration.minFreeSpace = minFree
        let server = InMemoryServer(configuration: configuration, storage: storage)
        let upload = server.send(
            InMemoryServer.head(.put, "/files/one.txt", [.accept: "text/plain", .contentLength: "1"]), body: [0x41])
        let health = server.answer(InMemoryServer.head(.get, "/healthz", [.accept: "text/plain"]))
        if free > minFree {
            #expect(upload.status.code == 201)
            #expect(health?.status.code == 200)
        } else {
            #expect(upload.status.code == 507)
            #expect(health?.status.code == 503)
            let sentence = "The server's disk is too full for this upload."
            #expect(InMemoryServer.text(upload).contains(sentence))
            #expect(
                InMemoryServer.text(health) == "503 Service Unavailable: The save directory takes no uploads now: \(sentence)\n")
        }
    }

    /// A daemon that takes no uploads is healthy on a full disk: it only serves downloads.
    @Test func readOnlyModeIsHealthyOnAFullDisk() {
        let storage = InMemoryStorage()
        storage.state.withLock { $0.freeSpace = 0 }
        var configuration = Configuration()
        configuration.access = .readOnly
        let server = InMemoryServer(configuration: configuration, storage: storage)
        #expect(server.answer(InMemoryServer.head(.get, "/healthz"))?.status.code == 200)
    }
}
