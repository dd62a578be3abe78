import FiledropHTTP

/// The daemon's own kinds of event, each with its fixed MESSAGE_ID (generated once).
extension LogEventKind {
    public static let started = LogEventKind(name: "started", messageID: "35c6d7a76943405cbbdbc8dd6c3d481f")
    public static let stopping = LogEventKind(name: "stopping", messageID: "dc7644fa89ec4ac28566fedcf564a5f6")
    public static let reloaded = LogEventKind(name: "reloaded", messageID: "06f6529d2d444ccaaa7a497d2670042a")
    public static let uploadStarted = LogEventKind(name: "upload-started", messageID: "a4eb3933a80a433e8bcb6c31e19465ad")
    public static let uploadFinished = LogEventKind(name: "upload-finished", messageID: "2a513c64b70849ae9cba2de06aeadce0")
    public static let uploadFailed = LogEventKind(name: "upload-failed", messageID: "82e77480c00442998efbc80ddce130f3")
    public static let uploadRefused = LogEventKind(name: "upload-refused", messageID: "5d0f6e2b9c3a4e71b8a64f1d2c7e9a03")
    public static let configInvalid = LogEventKind(name: "config-invalid", messageID: "9bd794280b8d489f82743a8e8ce8f51c")
}
