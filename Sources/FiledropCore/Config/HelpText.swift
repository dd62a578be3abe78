/// The `--help` text, generated from `ConfigKey.all` so every key is documented with its
/// flag, environment variable and default.
enum HelpText {
    static func render() -> String {
        var text = """
            Usage: filedrop [OPTION...]
                   filedrop passwd
                   filedrop reload [--control-socket PATH]
                   filedrop send FILE... [--to URL]
                   filedrop get NAME [--from URL] [-o PATH]
                   filedrop ls [DIR] [--from URL]

            A file drop for the local network: people upload from a browser or with
            `curl -F file=@NAME http://HOST:PORT/upload` (or `curl -T NAME http://HOST:PORT/files/NAME`), files appear in the save directory.

            Settings come from options, then FILEDROP_* environment variables, then the
            configuration file (`key = value` lines), then the defaults shown. Boolean
            options also take the forms --KEY and --no-KEY. A reload (SIGHUP or
            `filedrop reload`) applies every key but those marked "Restart to change".

            Options:

            """
        for key in ConfigKey.all {
            let usage =
                switch key.kind {
                case .value(let placeholder), .list(let placeholder): "\(key.flag) \(placeholder)"
                case .boolean: "\(key.flag), --no-\(key.name)"
                }
            text += "  \(usage)\n"
            text += "      \(key.meaning)\n"
            text += "      Environment: \(key.environmentVariable). Default: \(key.defaultText)."
            text += key.appliesOnReload ? "\n" : " Restart to change.\n"
        }
        text += """
              -h, --help
                  Show this text.
              -V, --version
                  Show the version.

            Commands:
              passwd    Ask for a password and print its hash, for password-hash.
              reload    Ask the running daemon (control-socket) to re-read its configuration;
                        prints the outcome, exits 0 if it was applied, 1 if not.
              send      Upload files to a filedrop server (resumable; --watch DIR sends a folder's new files).
              get       Download a file from a filedrop server (resumes an interrupted download).
              ls        List a folder of a filedrop server.
                        `filedrop send --help` shows their options: --to/--from URL (default
                        $FILEDROP_URL, else http://127.0.0.1:8080), --ca FILE and --fingerprint
                        SHA256 for https://. Exit codes: 0 done, 1 transfer failed, 2 usage,
                        3 refused or certificate not trusted, 4 password missing or wrong.

            """
        return text
    }
}
