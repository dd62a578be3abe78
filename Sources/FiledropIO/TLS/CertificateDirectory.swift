import FiledropServer
import Glibc

/// The `tls-dir` of `tls = auto` and its files: `ca.key` (0600, never served), `ca.crt`
/// (0644, what people install) and `server.crt` (0644, the current leaf and chain, for
/// operators only; the daemon serves it from memory). Files are published whole: written to
/// a temporary name, fsynced, renamed, then the directory fsynced, so a crash leaves either
/// no file or a complete one.
struct CertificateDirectory {
    let path: String

    /// `path` with trailing slashes dropped (`/` stays).
    init(path: String) {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        self.path = String(trimmed)
    }

    var keyPath: String { file("ca.key") }
    var certificatePath: String { file("ca.crt") }
    var serverCertificatePath: String { file("server.crt") }

    /// Larger than any PEM certificate or key made here, small enough to refuse a runaway file.
    static let fileSizeLimit = 1 << 20

    private func file(_ name: String) -> String {
        path == "/" ? "/" + name : path + "/" + name
    }

    /// The whole file and its mode bits, or nil when it does not exist.
    func read(_ file: String) throws(CertificateError) -> (bytes: [UInt8], mode: UInt32)? {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw .fileUnreadable(path: file, errno: errno)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .fileUnreadable(path: file, errno: errno) }
        guard status.isRegularFile else { throw .fileUnreadable(path: file, errno: status.isDirectory ? EISDIR : EINVAL) }
        guard status.st_size <= Self.fileSizeLimit else { throw .fileUnreadable(path: file, errno: EFBIG) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count: Int
            do {
                count = try syscall("read") { Glibc.read(descriptor, &chunk, chunk.count) }
            } catch {
                throw .fileUnreadable(path: file, errno: error.errno)
            }
            if count == 0 { break }
            bytes += chunk.prefix(count)
            guard bytes.count <= Self.fileSizeLimit else { throw .fileUnreadable(path: file, errno: EFBIG) }
        }
        return (bytes, UInt32(status.st_mode) & 0o7777)
    }

    /// Makes the directory (mode 0700; missing parents 0755, as `mkdir -p` would), or
    /// accepts it when it exists, taking away what its group and others may do: the
    /// packaged service's `StateDirectoryMode=` opens both its directories to the group
    /// `filedrop` (for the saved files), and this one holds the CA key.
    func create() throws(CertificateError) {
        try Self.makeDirectory(path, mode: 0o700)
        var status = stat()
        guard stat(path, &status) == 0 else { throw .directoryUnusable(path: path, errno: errno) }
        // Best effort (a read-only file system keeps its mode): what protects the key is its
        // own mode, which loading checks.
        if status.st_mode & 0o7077 != 0, status.st_uid == geteuid() {
            _ = chmod(path, 0o700)
        }
    }

    private static func makeDirectory(_ directory: String, mode: mode_t) throws(CertificateError) {
        if mkdir(directory, mode) == 0 { return }
        switch errno {
        case EEXIST:
            var status = stat()
            guard stat(directory, &status) == 0, status.isDirectory else {
                throw .directoryUnusable(path: directory, errno: ENOTDIR)
            }
        case ENOENT:
            let parent = parentOf(directory)
            guard parent != directory else { throw .directoryUnusable(path: directory, errno: ENOENT) }
            try makeDirectory(parent, mode: 0o755)
            guard mkdir(directory, mode) == 0 || errno == EEXIST else { throw .directoryUnusable(path: directory, errno: errno) }
        default:
            throw .directoryUnusable(path: directory, errno: errno)
        }
    }

    private static func parentOf(_ directory: String) -> String {
        guard let slash = directory.lastIndex(of: "/") else { return "." }
        return slash == directory.startIndex ? "/" : String(directory[..<slash])
    }

    /// Publishes `bytes` as `file` with exactly `mode` (umask aside). The temporary file is
    /// created with O_EXCL and `mode` from the start, so a key is never readable by others,
    /// not even for a moment. Without `replacing`, an existing `file` is an error (EEXIST):
    /// two daemons starting at once cannot each make a CA and mix the halves.
    func publish(_ bytes: [UInt8], as file: String, mode: mode_t, replacing: Bool) throws(CertificateError) {
        let temporary = "\(path)/.\(file.split(separator: "/").last ?? "file").tmp-\(getpid())-\(Clock.monotonicNanoseconds())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw .fileUnwritable(path: file, errno: errno) }
        var published = false
        defer { if !published { unlink(temporary) } }
        do throws(SystemError) {
            defer { close(descriptor) }
            try syscall("fchmod") { fchmod(descriptor, mode) }
            var offset = 0
            while offset < bytes.count {
                offset += try syscall("write") {
                    bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
                }
            }
            try syscall("fsync") { fsync(descriptor) }
            if replacing {
                try syscall("rename") { rename(temporary, file) }
            } else {
                try syscall("renameat2") {
                    LinuxFileCalls.renameat2(AT_FDCWD, temporary, AT_FDCWD, file, LinuxFileCalls.RENAME_NOREPLACE)
                }
            }
            published = true
        } catch {
            throw .fileUnwritable(path: file, errno: error.errno)
        }
        syncDirectory()
    }

    /// Makes the renames durable. A failure here is not reported: the files are complete
    /// either way, and the worst a crash can then do is undo a rename.
    private func syncDirectory() {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
