import FiledropCore
import FiledropHTTP
import Glibc

/// Picks where log events go, following systemd.exec(5): if JOURNAL_STREAM names the
/// device and inode of our stderr, stderr is the journal and entries are sent natively
/// (as `<N>`-prefixed lines on stderr when journald's socket is missing, because
/// sd_journal_sendv then drops entries without an error, or when a send fails);
/// otherwise readable text, coloured when stderr is a terminal.
///
/// - Parameters:
///   - environment: the process environment (for JOURNAL_STREAM).
///   - isTerminal: whether `fileDescriptor` is a terminal (isatty(3)).
///   - minimumLevel: events less severe than this are dropped.
///   - fileDescriptor: where lines go; stderr except in tests.
///   - journalSocketPath: journald's native socket, whose presence is checked.
public func makeLogSink(
    environment: [String: String],
    isTerminal: Bool,
    minimumLevel: LogLevel = .info,
    fileDescriptor: Int32 = STDERR_FILENO,
    journalSocketPath: String = JournalLogSink.socketPath
) -> any LogSink {
    let writer = LogLineWriter(fileDescriptor: fileDescriptor)
    if let stream = environment["JOURNAL_STREAM"], isJournalStream(stream, fileDescriptor: fileDescriptor) {
        let lines = PriorityPrefixLogSink(writer: writer, minimumLevel: minimumLevel)
        guard access(journalSocketPath, F_OK) == 0 else { return lines }
        return JournalLogSink(minimumLevel: minimumLevel, fallback: lines)
    }
    return TextLogSink(writer: writer, minimumLevel: minimumLevel, colored: isTerminal)
}

/// Whether JOURNAL_STREAM's `DEVICE:INODE` (decimal) matches `fileDescriptor`. A mismatch
/// means stderr was redirected after systemd started us, so it is not the journal.
func isJournalStream(_ value: String, fileDescriptor: Int32) -> Bool {
    let parts = value.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
    var status = stat()
    guard fstat(fileDescriptor, &status) == 0 else { return false }
    return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
}
