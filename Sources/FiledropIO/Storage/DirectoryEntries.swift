import FiledropCore
import FiledropServer
import Glibc

/// Reads the names in a directory with readdir(3).
enum DirectoryEntries {
    /// Every name in `directory` except `.` and `..`. Names that are not valid UTF-8 are
    /// skipped: no `StoragePath` can name them, so they could be neither served nor removed.
    ///
    /// The directory is reopened through `"."` rather than dup'ed: a dup shares the file
    /// offset, and two threads listing the save directory at once would each see half.
    static func names(in directory: FileDescriptor) throws(StorageError) -> [String] {
        let descriptor = try storageCall("openat") { openat(directory.descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        var opened: OpaquePointer?
        do throws(SystemError) {
            try syscall("fdopendir") {
                opened = fdopendir(descriptor)
                return opened == nil ? -1 : 0
            }
        } catch {
            _ = close(descriptor)
            throw StorageError(error)
        }
        guard let stream = opened else { preconditionFailure("fdopendir succeeded without a stream") }
        // closedir also closes `descriptor`.
        defer { _ = closedir(stream) }
        var names: [String] = []
        while true {
            var entry: UnsafeMutablePointer<dirent>?
            try storageCall("readdir") {
                // readdir(3): NULL with errno unchanged means the end, with errno set an error.
                errno = 0
                entry = readdir(stream)
                return entry == nil && errno != 0 ? -1 : 0
            }
            guard let entry else { return names }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(validating: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let name, name != ".", name != ".." {
                names.append(name)
            }
        }
    }
}
