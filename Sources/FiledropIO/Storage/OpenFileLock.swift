import Glibc

/// An open-file-description write lock on a whole file (fcntl(2) `F_OFD_SETLK`), the one
/// lock daemons sharing a save directory use to tell each other apart:
/// - on a named upload temporary (`.filedrop-tmp-*`, made where the file system has no
///   O_TMPFILE, as on NFS), held while the upload's descriptor is open, so the start-up sweep
///   tells a crash's leftover, which nobody holds, from another daemon's upload in flight;
/// - on a tus partial file, held for a whole PATCH, so two daemons never write one upload.
///
/// OFD locks belong to the open file, not to the process: two descriptions in one process
/// exclude each other, and the kernel drops the lock when the descriptor closes, also when
/// the process is killed; NFSv4 carries them to the server as byte-range locks.
enum OpenFileLock {
    enum Outcome: Equatable {
        case taken
        case heldElsewhere
        /// The file system has no such locks (EINVAL; ENOLCK on an NFS mount without locking).
        case unsupported(errno: Int32)
    }

    /// Takes the lock without waiting. `descriptor` must be open for writing.
    static func take(_ descriptor: Int32) -> Outcome {
        var request = wholeFile(Int16(F_WRLCK))
        while true {
            if fcntl(descriptor, LinuxFileCalls.F_OFD_SETLK, &request) == 0 { return .taken }
            switch errno {
            case EINTR: continue
            case EAGAIN, EACCES: return .heldElsewhere
            case let other: return .unsupported(errno: other)
            }
        }
    }

    static func release(_ descriptor: Int32) {
        var request = wholeFile(Int16(F_UNLCK))
        _ = fcntl(descriptor, LinuxFileCalls.F_OFD_SETLK, &request)
    }

    /// OFD locks require l_pid 0.
    private static func wholeFile(_ type: Int16) -> flock {
        flock(l_type: type, l_whence: Int16(SEEK_SET), l_start: 0, l_len: 0, l_pid: 0)
    }
}
