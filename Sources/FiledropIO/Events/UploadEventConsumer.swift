import FiledropCore

/// Something the event stream delivers to (the on-upload hook, the webhook). `deliver` runs
/// on the dispatcher's thread: it queues and returns, it never runs the work itself.
public protocol UploadEventConsumer: AnyObject, Sendable {
    /// `events`: what arrived since the last call, oldest first (one batch, so that the
    /// consumer saves them to disk with one sync).
    func deliver(_ events: [UploadEvent])
    /// No more events come: hand out no more work; what is queued stays for the next consumer.
    func finish()
}
