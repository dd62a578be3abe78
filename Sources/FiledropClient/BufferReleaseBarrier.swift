#if canImport(FoundationNetworking)
    import Dispatch

    /// Keeps swift-corelibs-foundation's upload buffers from piling up while a body streams.
    ///
    /// For every read of a streamed body, corelibs' URLSession allocates a fresh buffer of
    /// libcurl's upload size (64 KiB), wraps it in `DispatchData` and hands the free to the
    /// default global queue, asynchronously. libcurl's thread reads again at once, so when that
    /// queue runs late (two busy cores are enough), freed-to-be buffers accumulate: a 1 GiB
    /// send peaked 5-15 MiB above its working set. Every `interval` reads, `pass()` enqueues a
    /// marker on the same queue and waits for it: the queue runs its blocks in order, so the
    /// frees queued before it have started by then and at most `interval` buffers are pending.
    final class BufferReleaseBarrier {
        /// Reads between waits: 16 x 64 KiB bounds the pending buffers to 1 MiB.
        static let interval = 16
        /// A wait never blocks the transfer longer than this, whatever the queue does.
        static let timeout: DispatchTimeInterval = .seconds(1)

        private let marker = DispatchSemaphore(value: 0)
        private var reads = 0

        /// Called after each read, on libcurl's thread; returns when few buffers are pending.
        func pass() {
            reads += 1
            guard reads >= Self.interval else { return }
            reads = 0
            let marker = self.marker
            // The queue `DispatchData`'s deallocator runs on when it was given none.
            DispatchQueue.global().async { marker.signal() }
            _ = marker.wait(timeout: .now() + Self.timeout)
        }
    }
#endif
