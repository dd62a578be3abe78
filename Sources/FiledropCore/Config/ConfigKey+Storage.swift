extension ConfigKey {
    /// What it saves and where, and what clients may do with it.
    static let storage: [ConfigKey] = [
        ConfigKey(
            name: "save-dir", kind: .value(placeholder: "DIR"), defaultText: "$STATE_DIRECTORY if set, else ./uploads",
            meaning: "Directory uploads are saved to and downloaded from.",
            expected: "a directory path"
        ) { configuration, value in
            guard isPlainText(value) else { return false }
            configuration.saveDirectory = value
            return true
        },
        ConfigKey(
            name: "save-mode", kind: .value(placeholder: "MODE"), defaultText: "group",
            meaning: "Who reads saved files: group (files 0640, folders 0750: the service's group too) or owner (0600, 0700).",
            expected: "group or owner"
        ) { configuration, value in
            guard let mode = SaveMode(rawValue: value) else { return false }
            configuration.saveMode = mode
            return true
        },
        ConfigKey(
            name: "web-root", kind: .value(placeholder: "DIR"), defaultText: "the page built into filedrop",
            meaning:
                "Serve the upload page (index.html, scripts, styles, catalogues) from this directory instead, e.g. to work on it.",
            expected: "a directory path"
        ) { configuration, value in
            guard isPlainText(value) else { return false }
            configuration.webRoot = value
            return true
        },
        ConfigKey(
            name: "max-upload-size", kind: .value(placeholder: "SIZE"), defaultText: "unlimited",
            meaning: "Largest single file accepted; K/M/G/T are powers of 1024, 0 or unlimited for no limit.",
            expected: "a size such as 64M, or unlimited"
        ) { configuration, value in
            guard let size = parseOptionalSize(value) else { return false }
            configuration.maxUploadSize = size
            return true
        },
        ConfigKey(
            name: "max-request-size", kind: .value(placeholder: "SIZE"), defaultText: "unlimited",
            meaning: "Largest upload request (the whole multipart body); 0 or unlimited for no limit.",
            expected: "a size such as 1G, or unlimited"
        ) { configuration, value in
            guard let size = parseOptionalSize(value) else { return false }
            configuration.maxRequestSize = size
            return true
        },
        sizeKey(
            "min-free-space", default: "64M", meaning: "Refuse uploads that would leave less free space than this in save-dir.",
            expected: "a size such as 64M", \.minFreeSpace),
        ConfigKey(
            name: "on-collision", kind: .value(placeholder: "POLICY"), defaultText: "rename",
            meaning: "When an upload's name is taken: rename (name (1).ext), overwrite, or reject (409).",
            expected: "rename, overwrite or reject"
        ) { configuration, value in
            guard let policy = CollisionPolicy(rawValue: value) else { return false }
            configuration.onCollision = policy
            return true
        },
        ConfigKey(
            name: "access", kind: .value(placeholder: "MODE"), defaultText: "open",
            meaning: "open (anyone lists, downloads, uploads), drop (upload only), private (password for all), read-only.",
            expected: "open, drop, private or read-only"
        ) { configuration, value in
            guard let mode = AccessMode(rawValue: value) else { return false }
            configuration.access = mode
            return true
        },
        ConfigKey(
            name: "metrics-access", kind: .value(placeholder: "MODE"), defaultText: "loopback",
            meaning:
                "Who may read GET /metrics: off (404), loopback (this machine only), password (the access password, from anywhere) or open.",
            expected: "off, loopback, password or open"
        ) { configuration, value in
            guard let mode = MetricsAccess(rawValue: value) else { return false }
            configuration.metricsAccess = mode
            return true
        },
        ConfigKey(
            name: "tus-max-pending", kind: .value(placeholder: "SIZE"), defaultText: "10G",
            meaning: "Space all unfinished resumable (tus) uploads may hold together; 0 or unlimited for no limit.",
            expected: "a size such as 10G, or unlimited"
        ) { configuration, value in
            guard let size = parseOptionalSize(value) else { return false }
            configuration.tusMaxPending = size
            return true
        },
        ConfigKey(
            name: "tus-max-per-client", kind: .value(placeholder: "N"), defaultText: "20",
            meaning: "Unfinished resumable (tus) uploads one client address may have at once.",
            expected: "a whole number from 1 to 100000"
        ) { configuration, value in
            guard let number = parseInteger(value, in: 1...100_000) else { return false }
            configuration.tusMaxPerClient = number
            return true
        },
        durationKey(
            "tus-expiration", default: .seconds(24 * 3600),
            meaning: "An unfinished resumable (tus) upload idle this long is deleted.", \.tusExpiration),
        booleanKey("fsync", default: true, meaning: "Flush each upload to disk before it becomes visible.", \.fsync),
        booleanKey(
            "sha256", default: true,
            meaning:
                "Compute each upload's SHA-256 while it streams: in the answer, the JSON listing, ?sha256 and the xattr user.filedrop.sha256; checks a client's Repr-Digest.",
            \.sha256),
        booleanKey("allow-hidden", default: false, meaning: "List, serve and accept names starting with a dot.", \.allowHidden),
        booleanKey(
            "allow-delete", default: false,
            meaning: "Let clients delete and rename (MOVE) files and folders (subject to access).", \.allowDelete),
    ]
}
