import Foundation
import Glibc
import Testing

@testable import FiledropCore
@testable import FiledropIO
@testable import FiledropServer

/// A fresh save directory under /tmp for one test, removed (and unmounted, if a tmpfs was
/// mounted on it) when the fixture goes away.
final class SaveDirectoryFixture {
    let path: String
    let storage: PosixStorage
    private var mounted = false

    /// `seeingOnlyOwnChanges`: the storage's watch counts only the changes the storage makes,
    /// none that inotify reports.
    init(options: StorageOptions = StorageOptions(), tmpfsSize: String? = nil, seeingOnlyOwnChanges: Bool = false) throws {
        var template = Array("/tmp/filedrop-storage-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw SystemError(call: "mkdtemp", errno: errno) }
        path = String(cString: created)
        if let tmpfsSize {
            try Self.run("/bin/mount", "-t", "tmpfs", "-o", "size=\(tmpfsSize)", "tmpfs", path)
            mounted = true
        }
        storage = try PosixStorage(
            root: path, options: options,
            watch: { directory in
                seeingOnlyOwnChanges
                    ? DirectoryChangeWatch(seeingOnlyNotedChanges: ()) : DirectoryChangeWatch(directory: directory)
            })
    }

    deinit {
        if mounted {
            // Lazy: the storage still holds the root open until this object is gone.
            try? Self.run("/bin/umount", "--lazy", path)
        }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Every entry on disk, hidden ones included, relative to the save directory.
    func entriesOnDisk(_ relative: String = "") throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: path + "/" + relative))
    }

    func contents(_ relative: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path + "/" + relative).map(Array.init)
    }

    func remountReadOnly() throws {
        try Self.run("/bin/mount", "-o", "remount,ro", path)
    }

    /// Writes `bytes` as a new upload in `directory` and publishes it as `name`.
    @discardableResult
    func upload(_ bytes: [UInt8], as name: String, in directory: StoragePath = .root, replacing: Bool = false) throws
        -> any UploadFile
    {
        let upload = try storage.createUpload(in: directory)
        try bytes.withUnsafeBytes { try upload.write($0) }
        try upload.publish(as: name, replacing: replacing, durable: true)
        return upload
    }

    static func run(_ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            throw SystemError(call: arguments.joined(separator: " "), errno: process.terminationStatus)
        }
    }

    /// Whether this test run may mount a tmpfs (root, and not in a container that forbids it).
    static let canMountTmpfs: Bool = {
        guard let probe = try? SaveDirectoryFixture(tmpfsSize: "64k") else { return false }
        return probe.mounted
    }()
}

/// A path below the save directory from plain components (tests skip `FileNamePolicy`).
func storagePath(_ components: String...) -> StoragePath {
    StoragePath(checkedComponents: components)
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Reads a whole opened file with pread, the way a response would.
func readAll(_ opened: OpenedFile) throws -> [UInt8] {
    if let contents = opened.handle as? FileContents { return contents.bytes }
    var result = [UInt8](repeating: 0, count: Int(opened.metadata.size))
    var offset = 0
    while offset < result.count {
        let count = result.withUnsafeMutableBytes { buffer in
            pread(opened.handle.descriptor, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset))
        }
        guard count > 0 else { throw SystemError(call: "pread", errno: errno) }
        offset += count
    }
    return result
}

/// Both ways an upload can be held: O_TMPFILE and the named fallback.
let temporaryModes = [
    StorageOptions(anonymousTemporaries: true),
    StorageOptions(anonymousTemporaries: false),
]

extension StoragePolicy {
    /// The daemon's policy with the free-space rule under test.
    static func testing(minFreeSpace: UInt64, spaceCheckInterval: UInt64 = StoragePolicy.defaultSpaceCheckInterval)
        -> StoragePolicy
    {
        StoragePolicy(
            names: FileNamePolicy(allowHidden: false), collision: .rename, maxFileSize: nil, minFreeSpace: minFreeSpace,
            durable: true, spaceCheckInterval: spaceCheckInterval)
    }
}
