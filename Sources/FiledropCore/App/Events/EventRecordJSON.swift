import FiledropHTTP

/// The JSON of a finished upload, the same for the on-upload hook's stdin and the webhook
/// (README "Events"): `{"event":"upload.finished","name":...,"size":...,"sha256":...,
/// "client":...,"method":...,"url":...,"time":...}`; the hook's copy adds `path` (the file
/// on disk). `sha256` is null when the store hashes nothing (`sha256 = off`).
extension UploadEvent {
    /// `baseURL`: how people reach this server (`http://192.168.1.20:8080`), for an absolute
    /// `url`; nil gives the path alone. `localPath`: the file on disk, for the hook only.
    public func json(baseURL: String?, localPath: String? = nil) -> [UInt8] {
        JSONWriter.document { json in
            json.object { json in
                json.member("event", eventName)
                json.member("name", name)
                if let localPath { json.member("path", localPath) }
                json.member("size", size)
                json.member("sha256", sha256)
                json.member("client", client)
                json.member("method", method?.rawValue)
                json.member("url", url(baseURL: baseURL))
                json.member("time", HTTPDate.iso8601(time))
                if let reason { json.member("reason", reason) }
            }
        }
    }

    /// The file's URL: absolute when `baseURL` is known.
    public func url(baseURL: String?) -> String {
        guard let baseURL else { return urlPath }
        return (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + urlPath
    }

    /// The `FILEDROP_*` variables the hook gets (beside `PATH` and the locale, see
    /// `HookEnvironment`). `localPath` is the file on disk.
    public func hookVariables(baseURL: String?, localPath: String) -> [(name: String, value: String)] {
        var variables: [(name: String, value: String)] = [
            ("FILEDROP_EVENT", eventName),
            ("FILEDROP_PATH", localPath),
            ("FILEDROP_NAME", name),
            ("FILEDROP_RELATIVE_PATH", path),
            ("FILEDROP_SIZE", String(size)),
            ("FILEDROP_CLIENT", client),
            ("FILEDROP_URL", url(baseURL: baseURL)),
            ("FILEDROP_TIME", HTTPDate.iso8601(time)),
        ]
        if let method { variables.append(("FILEDROP_METHOD", method.rawValue)) }
        if let sha256 { variables.append(("FILEDROP_SHA256", sha256)) }
        return variables
    }
}

/// The whole environment of an on-upload hook: a clean, small set, never the daemon's own
/// (which may hold FILEDROP_PASSWORD_HASH and whatever systemd passed): `PATH`, the locale
/// and time zone when the daemon has them, and the event's `FILEDROP_*` variables.
public enum HookEnvironment {
    public static let path = "/usr/local/bin:/usr/bin:/bin"
    /// Passed on from the daemon's environment when set: how text and times are shown.
    public static let inherited = ["LANG", "LC_ALL", "TZ"]

    /// `NAME=value` strings for execve(2), in a stable order.
    public static func entries(
        for event: UploadEvent, baseURL: String?, localPath: String,
        daemonEnvironment: [String: String]
    ) -> [String] {
        var entries = ["PATH=\(path)"]
        for name in inherited {
            if let value = daemonEnvironment[name] { entries.append("\(name)=\(value)") }
        }
        for variable in event.hookVariables(baseURL: baseURL, localPath: localPath) {
            entries.append("\(variable.name)=\(variable.value)")
        }
        // No value can hold a NUL (execve(2) would cut it short): file names and addresses never do.
        return entries
    }
}
