import FiledropHTTP

/// A responder that gives each event loop an instance of its own. What such an instance
/// keeps between requests (the current configuration, caches) is then touched by one thread
/// only, and the loops share no lock, nor the cache line it sits on, on every request.
public protocol PerLoopResponder: HTTPResponder {
    /// The responder for the connections of loop `index`; called once per loop, when the
    /// server is made, and used only on that loop's thread afterwards.
    func responder(forLoop index: Int) -> any HTTPResponder
}
