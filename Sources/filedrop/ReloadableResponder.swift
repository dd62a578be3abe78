import FiledropCore
import FiledropHTTP
import FiledropIO
import FiledropServer
import Synchronization

/// The application the server calls, swappable on SIGHUP: requests already running keep
/// the app they started with, new ones get the new configuration.
///
/// Each event loop reads the current app through its own `LoopResponder`, which keeps the
/// app it last saw and takes the lock only when the generation number says a reload
/// happened: one atomic load per request, where a shared lock made the loops
/// contend for one cache line on every request.
final class ReloadableResponder: PerLoopResponder {
    /// One reference to an app and the reload it came with: taking it costs one retain,
    /// where copying the app struct out of the lock would retain each of its many fields.
    private final class Box: Sendable {
        let app: FiledropApp
        let generation: Int

        init(_ app: FiledropApp, generation: Int) {
            self.app = app
            self.generation = generation
        }

        func route(_ head: RequestHead, context: RequestContext, label: inout RequestLabel) -> RouteDecision {
            app.route(head, context: context, label: &label)
        }
    }

    private let current: Mutex<Box>
    /// The generation of `current`'s box, readable without the lock. Stored under the lock
    /// after the box, so a loop that sees a new number finds at least that box.
    private let generation = Atomic<Int>(0)

    init(_ app: FiledropApp) {
        current = Mutex(Box(app, generation: 0))
    }

    var app: FiledropApp {
        get { current.withLock { $0 }.app }
        set {
            current.withLock { box in
                box = Box(newValue, generation: box.generation + 1)
                generation.store(box.generation, ordering: .releasing)
            }
        }
    }

    /// Through the box's `let`: reading `app` out first would copy the struct (a retain per field).
    func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
        var label = RequestLabel.unlabelled
        return current.withLock { $0 }.route(head, context: context, label: &label)
    }

    func response(for error: HTTPError, format: ResponseFormat) -> Response {
        current.withLock { $0 }.app.response(for: error, format: format)
    }

    func plainRequestOnTLSPort(port: UInt16) -> any HTTPResponder {
        current.withLock { $0 }.app.plainRequestOnTLSPort(port: port)
    }

    func responder(forLoop index: Int) -> any HTTPResponder {
        LoopResponder(self)
    }

    /// The current app as one event loop sees it: a copy of its own (`forEventLoop`, with the
    /// loop's own caches), replaced when a reload is noticed. Used on that loop's thread only.
    private final class LoopResponder: HTTPResponder, @unchecked Sendable {
        private let source: ReloadableResponder
        private var box: Box

        init(_ source: ReloadableResponder) {
            self.source = source
            box = Self.ownCopy(of: source.current.withLock { $0 })
        }

        func route(_ head: RequestHead, context: RequestContext) -> RouteDecision {
            var label = RequestLabel.unlabelled
            return route(head, context: context, label: &label)
        }

        func route(_ head: RequestHead, context: RequestContext, label: inout RequestLabel) -> RouteDecision {
            if source.generation.load(ordering: .acquiring) != box.generation {
                box = Self.ownCopy(of: source.current.withLock { $0 })
            }
            return box.route(head, context: context, label: &label)
        }

        func response(for error: HTTPError, format: ResponseFormat) -> Response {
            box.app.response(for: error, format: format)
        }

        func plainRequestOnTLSPort(port: UInt16) -> any HTTPResponder {
            source.plainRequestOnTLSPort(port: port)
        }

        private static func ownCopy(of shared: Box) -> Box {
            Box(shared.app.forEventLoop(), generation: shared.generation)
        }
    }
}
