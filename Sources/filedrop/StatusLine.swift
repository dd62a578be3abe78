import FiledropCore
import FiledropHTTP

/// The daemon's STATUS= line for systemd (`systemctl status` shows it): where it listens,
/// the uploads under way, what arrived since the start, a LocalSend session, free space, the
/// CA's fingerprint and a note of the last reload. Each part only when there is something to say.
struct StatusLine {
    var listening: [String] = []
    var monitor: UploadMonitor?
    var localSend: LocalSendReceiver?
    var freeBytes: UInt64?
    /// What a person compares with the fingerprint their device shows when installing the CA.
    var caFingerprint: String?
    var note: String?

    var text: String {
        var parts: [String] = []
        if !listening.isEmpty {
            parts.append("listening on " + listening.joined(separator: ", "))
        }
        if let monitor {
            let uploads = monitor.snapshot()
            if !uploads.isEmpty {
                let shown = uploads.prefix(3).map { upload in
                    let percent =
                        upload.expected.map { $0 > 0 ? " \(upload.received * 100 / $0)%" : "" }
                        ?? " \(ByteCount.format(upload.received))"
                    return "\(upload.name.logEscaped)\(percent) \(ByteCount.format(upload.rate))/s"
                }
                parts.append("\(uploads.count) upload(s): " + shown.joined(separator: ", "))
            }
            parts.append("\(monitor.filesStored) file(s) received since start")
        }
        if let session = localSend?.activeSession {
            parts.append(
                "LocalSend session from \(session.sender.logEscaped): \(session.saved) of \(session.files.count) file(s)")
        }
        if let freeBytes {
            parts.append("\(ByteCount.format(freeBytes)) free")
        }
        if let caFingerprint {
            parts.append("CA SHA-256 \(caFingerprint)")
        }
        if let note { parts.append(note) }
        return parts.joined(separator: "; ")
    }
}
