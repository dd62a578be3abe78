import FiledropHTTP

extension ConfigKey {
    /// The page, the logs, the events it sends and how it is controlled.
    static let service: [ConfigKey] = [
        ConfigKey(
            name: "title", kind: .value(placeholder: "TEXT"), defaultText: "filedrop",
            meaning: "Name shown on the upload page.",
            expected: "1 to 200 characters without control characters"
        ) { configuration, value in
            guard isPlainText(value), value.count <= 200 else { return false }
            configuration.title = value
            return true
        },
        ConfigKey(
            name: "log-level", kind: .value(placeholder: "LEVEL"), defaultText: "info",
            meaning: "Least severe messages logged: error, warning, notice, info or debug.",
            expected: "error, warning, notice, info or debug"
        ) { configuration, value in
            guard let level = LogLevel(name: value) else { return false }
            configuration.logLevel = level
            return true
        },
        booleanKey(
            "access-log", default: true,
            meaning: "Log each request (method, path, status, bytes, duration, client) at info level.", \.accessLog),
        ConfigKey(
            name: "access-log-rate", kind: .value(placeholder: "N/DURATION"), defaultText: AccessLogRate.default.text,
            meaning:
                "Access-log lines written per interval; requests beyond are counted in one summary line per interval. Uploads are always logged.",
            expected: "lines per interval such as 1000/10s (interval from 1s to 1h), or unlimited"
        ) { configuration, value in
            guard let rate = AccessLogRate(parsing: value) else { return false }
            configuration.accessLogRate = rate
            return true
        },
        ConfigKey(
            name: "on-upload", kind: .value(placeholder: "PROGRAM"), defaultText: "none",
            meaning:
                "Program run for every finished file, with FILEDROP_* variables and JSON on stdin; never through a shell, with the service's sandbox.",
            expected: "an absolute path to an executable"
        ) { configuration, value in
            guard value.hasPrefix("/"), isPlainText(value) else { return false }
            configuration.onUpload = value
            return true
        },
        ConfigKey(
            name: "on-upload-concurrency", kind: .value(placeholder: "N"), defaultText: "2",
            meaning:
                "on-upload runs at once; more finished files wait on disk in the save directory (.filedrop-hooks), none skipped.",
            expected: "a whole number from 1 to 64"
        ) { configuration, value in
            guard let number = parseInteger(value, in: 1...64) else { return false }
            configuration.onUploadConcurrency = number
            return true
        },
        durationKey(
            "on-upload-timeout", default: .seconds(60),
            meaning: "An on-upload run still going after this gets SIGTERM, then SIGKILL of its process group.", \.onUploadTimeout
        ),
        ConfigKey(
            name: "notify-url", kind: .value(placeholder: "URL"), defaultText: "none",
            meaning:
                "http:// or https:// URL that gets a POST per finished file (JSON, or ntfy's format for an ntfy topic), retried with backoff.",
            expected: "an http:// or https:// URL without user name or password"
        ) { configuration, value in
            guard let target = NotifyTarget(parsing: value) else { return false }
            configuration.notifyURL = target
            return true
        },
        ConfigKey(
            name: "notify-format", kind: .value(placeholder: "FORMAT"), defaultText: "auto",
            meaning: "What notify-url gets: json, ntfy (a title and message for a phone), or auto (ntfy for ntfy.sh, else json).",
            expected: "auto, json or ntfy"
        ) { configuration, value in
            guard let format = NotifyTarget.Format(rawValue: value) else { return false }
            configuration.notifyFormat = format
            return true
        },
        ConfigKey(
            name: "password-hash", kind: .value(placeholder: "HASH"), defaultText: "none",
            meaning: "Password hash printed by `filedrop passwd`; drop and private access need one.",
            expected: "a hash printed by filedrop passwd"
        ) { configuration, value in
            guard isPlainText(value), !value.contains(" ") else { return false }
            configuration.passwordHash = value
            return true
        },
        ConfigKey(
            name: "control-socket", kind: .value(placeholder: "PATH"),
            defaultText: "$RUNTIME_DIRECTORY/control.sock if set, else none",
            meaning:
                "Unix socket where `filedrop reload` asks the running daemon to reload and hears the outcome (mode 0660: its user and group).",
            expected: "a socket path", reload: .restartOnly(\.controlSocket)
        ) { configuration, value in
            guard isPlainText(value), value.utf8.count < 108 else { return false }
            configuration.controlSocket = value
            return true
        },
    ]
}
