/// Limits and timeouts of one connection. Times are nanoseconds of a monotonic clock that the
/// I/O layer passes in, so tests drive time without sleeping.
public struct ConnectionConfiguration: Sendable {
    public var limits = HTTPLimits()
    /// From the first byte of a request head until the head is complete.
    public var headTimeout: UInt64 = 10_000_000_000
    /// Longest silence while a request body is arriving.
    public var bodyTimeout: UInt64 = 60_000_000_000
    /// Longest silence between requests on a kept-alive connection.
    public var idleTimeout: UInt64 = 60_000_000_000
    /// Longest time a response write may make no progress (a client that stopped reading).
    public var writeTimeout: UInt64 = 60_000_000_000
    /// A response read slower than this (bytes per second, averaged over `sendRateWindow`)
    /// closes the connection; 0 switches the check off.
    public var minSendRate: UInt64 = 0
    public var sendRateWindow: UInt64 = 30_000_000_000
    /// After an error response on a connection whose request body was not read, how long we
    /// keep reading and discarding, so the client sees our answer instead of a reset.
    public var lingerTimeout: UInt64 = 5_000_000_000
    /// False for a connection that answers one request and closes (`Connection: close`):
    /// plain HTTP that reached the HTTPS port.
    public var keepAlive = true

    public init() {}
}
