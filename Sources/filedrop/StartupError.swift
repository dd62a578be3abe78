/// Why the daemon cannot start (or a reload cannot apply): a sentence for the log, and the
/// exit code (`invalidConfiguration` for what only a changed configuration cures; 1 for the rest).
struct StartupError: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32

    var description: String { message }

    /// The exit status of an invalid configuration or command line, and of nothing else
    /// (LSB's "invalid or excess arguments"): filedrop.service's RestartPreventExitStatus=,
    /// since starting again cannot help until someone changes the configuration.
    static let invalidConfiguration: Int32 = 2
}
