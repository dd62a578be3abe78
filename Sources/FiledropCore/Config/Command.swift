/// What the command line asks the executable to do.
public enum Command: Sendable, Equatable {
    /// Serve with this configuration.
    case run(Configuration)
    /// Print this text (from `-h`/`--help`) and exit 0.
    case help(String)
    /// Print this text (from `-V`/`--version`) and exit 0.
    case version(String)
    /// `filedrop passwd`: read a password and print its hash for `password-hash`.
    case passwd
    /// `filedrop reload`: ask the daemon listening on this control socket to reload.
    case reload(controlSocket: String)
}
