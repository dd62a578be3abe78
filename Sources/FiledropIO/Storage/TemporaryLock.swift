import Glibc

/// An open-file-description write lock on a named upload temporary (`.filedrop-tmp-*`, made
/// where the file system has no O_TMPFILE, as on NFS), held for as long as the upload's
/// descriptor is open. It tells a crash's leftover, which nobody holds, from an upload in
/// flight on another daemon sharing the directory: `removeStaleTemporaries` at start used to
/// delete both, and the other daemon's upload then failed at publish.
///
/// OFD locks (fcntl(2) `F_OFD_SETLK`) belong to the open file, not to the process, and the
/// kernel drops them when the descriptor closes, also when the process is killed; NFSv4
/// carries them to the server. Best effort: where a file system has no such locks (EINVAL,
/// ENOLCK on an NFS mount without locking) the upload goes on unlocked, and the start-up
/// sweep treats its temporary as it did before.
enum TemporaryLock {
    enum Outcome {
        case taken
        case heldElsewhere
        case unsupported
    }

    /// include/uapi/asm-generic/fcntl.h; Swift's Glibc module is imported without _GNU_SOURCE.
    private static let F_OFD_SETLK: Int32 = 37

    /// A write lock on the whole file, without waiting. `descriptor` must be open for writing.
    static func take(_ descriptor: Int32) -> Outcome {
        // OFD locks require l_pid 0.
        var request = flock(l_type: Int16(F_WRLCK), l_whence: Int16(SEEK_SET), l_start: 0, l_len: 0, l_pid: 0)
        while true {
            if fcntl(descriptor, F_OFD_SETLK, &request) == 0 { return .taken }
            switch errno {
            case EINTR: continue
            case EAGAIN, EACCES: return .heldElsewhere
            default: return .unsupported
            }
        }
    }
}
