import FiledropCore
import Synchronization

/// The application the server calls, swappable on SIGHUP: requests already running keep
/// the app they started with, new ones get the new configuration.
final class ReloadableResponder: HTTPResponder {
    private let current: Mutex<FiledropApp>

    init(_ app: FiledropApp) {
        current = Mutex(app)
    }

    var app: FiledropApp {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
        app.route(head, context: context)
    }
}
