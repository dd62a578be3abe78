import Testing

@testable import FiledropCore
@testable import FiledropHTTP
@testable import FiledropTesting

/// The storage policy's decisions on their own: free space, the size limit, where the
/// mid-body checks fall, the one durability switch, collisions.
@Suite struct StoragePolicyTests {
    static func policy(_ configure: (inout Configuration) -> Void = { _ in }) -> StoragePolicy {
        var configuration = Configuration()
        configure(&configuration)
        return StoragePolicy(configuration: configuration)
    }

    @Test func roomMeansTheBytesFitAndTheMinimumStaysFree() {
        let policy = Self.policy { $0.minFreeSpace = 100 }
        #expect(policy.hasRoom(for: 50, available: 150))
        #expect(!policy.hasRoom(for: 51, available: 150), "one byte over")
        #expect(policy.hasRoom(for: 0, available: 100))
        #expect(!policy.hasRoom(for: 0, available: 99))
        #expect(!policy.hasRoom(for: .max, available: .max), "no overflow into a yes")
        #expect(policy.hasRoom(for: 1 << 40, available: nil), "unknown free space is no refusal")
    }

    @Test func theSizeLimitIsTheConfiguredMaximumOneByteOver() {
        let policy = Self.policy { $0.maxUploadSize = 10 }
        #expect(throws: Never.self) { try policy.checkSize(10) }
        #expect(throws: HTTPError.contentTooLarge(limit: 10)) { try policy.checkSize(11) }
        #expect(throws: Never.self) { try Self.policy().checkSize(.max) }
    }

    @Test func midBodyChecksFallEveryIntervalAndNotAtAllWithoutAMinimum() {
        let policy = Self.policy { $0.minFreeSpace = 1 }
        #expect(policy.spaceCheckInterval == 8 << 20, "the interval of the write-back chunk, as before")
        #expect(policy.nextSpaceCheck(after: 0) == 8 << 20)
        #expect(policy.nextSpaceCheck(after: 5) == 5 + (8 << 20))
        #expect(policy.nextSpaceCheck(after: .max - 1) == .max)
        #expect(Self.policy { $0.minFreeSpace = 0 }.nextSpaceCheck(after: 0) == .max)
    }

    @Test(arguments: [true, false])
    func theFsyncSettingIsTheOneDurabilitySwitch(fsync: Bool) {
        #expect(Self.policy { $0.fsync = fsync }.durable == fsync)
    }

    @Test(arguments: [(CollisionPolicy.rename, "a (1).txt"), (.overwrite, "a.txt")])
    func collisionsFollowThePolicy(collision: CollisionPolicy, stored: String) throws {
        let storage = InMemoryStorage()
        let taken = StoragePath(checkedComponents: ["a.txt"])
        storage.state.withLock { $0.files[taken] = [1] }
        let file = try storage.createUpload(in: .root)
        try [UInt8]([2]).withUnsafeBytes { try file.write($0) }
        #expect(try Self.policy { $0.onCollision = collision }.publish(file, directory: .root, name: "a.txt") == stored)
        #expect(storage.files[StoragePath(checkedComponents: [stored])] == [2])
    }

    @Test func rejectRefusesATakenName() throws {
        let storage = InMemoryStorage()
        storage.state.withLock { $0.files[StoragePath(checkedComponents: ["a.txt"])] = [1] }
        let file = try storage.createUpload(in: .root)
        #expect(throws: StorageError.exists) {
            try Self.policy { $0.onCollision = .reject }.publish(file, directory: .root, name: "a.txt")
        }
    }
}
