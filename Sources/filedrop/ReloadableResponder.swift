import FiledropCore
import Synchronization

/// The application the server calls, swappable on SIGHUP: requests already running keep
/// the app they started with, new ones get the new configuration.
final class ReloadableResponder: HTTPResponder {
    /// One reference to the current app: taking it per request costs one retain, where
    /// copying the app struct out of the lock would retain each of its many fields.
    private final class Box: Sendable {
        let app: FiledropApp

        init(_ app: FiledropApp) {
            self.app = app
        }

        func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
            app.route(head, context: context)
        }
    }

    private let current: Mutex<Box>

    init(_ app: FiledropApp) {
        current = Mutex(Box(app))
    }

    var app: FiledropApp {
        get { current.withLock { $0 }.app }
        set { current.withLock { $0 = Box(newValue) } }
    }

    /// Through the box's `let`: reading `app` out first would copy the struct (a retain per field).
    func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
        current.withLock { $0 }.route(head, context: context)
    }
}
