/// Why the daemon cannot start (or a reload cannot apply): a sentence for the log, and the
/// exit code (2 for configuration, as systemd's LSB convention; 1 for the rest).
struct StartupError: Error {
    var message: String
    var exitCode: Int32
}
