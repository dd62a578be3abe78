import FiledropCore

/// Something the event stream delivers to (the on-upload hook, the webhook). `deliver` runs
/// on the dispatcher's thread: it queues and returns, it never runs the work itself.
public protocol UploadEventConsumer: AnyObject, Sendable {
    func deliver(_ event: UploadEvent)
    /// No more events come: finish what is queued, then let the threads end.
    func finish()
}
