import Glibc
import Synchronization

/// Writes whole lines to a file descriptor (normally stderr) from any thread: each line
/// goes out in one write(2) under a lock, so lines from different threads never interleave.
public final class LogLineWriter: Sendable {
    public let fileDescriptor: Int32
    private let lock = Mutex(())

    public init(fileDescriptor: Int32 = STDERR_FILENO) {
        self.fileDescriptor = fileDescriptor
    }

    /// Appends a newline and writes. A log line that cannot be written (stderr closed,
    /// a full non-blocking pipe) is dropped: logging must never stop the server.
    public func write(line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        write(lineBytes: bytes)
    }

    /// Writes one line already in bytes, its newline included.
    public func write(lineBytes bytes: [UInt8]) {
        lock.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else {
                        return
                    }
                }
            }
        }
    }
}
