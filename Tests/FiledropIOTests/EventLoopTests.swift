import CLinux
import Glibc
import Testing

@testable import FiledropIO
@testable import FiledropServer

/// Events reach their handler through the registration's address in epoll_event.data; a
/// handler unregistered while a batch is dispatched gets none of the batch's remaining events,
/// and neither does a new handler that took its descriptor number.
@Suite struct EventLoopTests {
    /// An eventfd made readable at once; records each event it is handed.
    final class ReadyHandler: EventHandler {
        let descriptor: Int32
        var handled = 0
        var onEvent: (ReadyHandler, EventLoop) -> Void = { _, _ in }

        init() {
            descriptor = eventfd(1, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
            precondition(descriptor >= 0, "eventfd failed")
        }

        /// A new eventfd put on `number` with dup2, which closes what was there and reuses the
        /// number in one step. Closing first and counting on the kernel to hand out the lowest
        /// free number again was a race: other tests run in this process at the same time and
        /// close descriptors below it (a change watch's thread closes its own when it ends).
        init(takingOver number: Int32) {
            let made = eventfd(1, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
            precondition(made >= 0, "eventfd failed")
            descriptor = dup2(made, number)
            precondition(descriptor == number, "dup2 failed")
            close(made)
        }

        func handle(events: UInt32, loop: EventLoop) {
            handled += 1
            onEvent(self, loop)
        }
    }

    @Test func eventsReachTheirHandlers() throws {
        let loop = try EventLoop(index: 0)
        let handlers = (0..<3).map { _ in ReadyHandler() }
        for handler in handlers {
            try loop.register(handler, events: EPOLLIN.rawValue)
            handler.onEvent = { _, loop in loop.stop() }
        }
        loop.run()
        #expect(handlers.map(\.handled) == [1, 1, 1])
        for handler in handlers {
            loop.unregister(handler)
            close(handler.descriptor)
        }
    }

    /// Two handlers ready in one batch: whichever runs first closes the other and registers a
    /// third on the same descriptor number. The closed one's pending event must be dropped.
    @Test func aHandlerClosedEarlierInTheBatchGetsNoEvent() throws {
        let loop = try EventLoop(index: 0)
        let first = ReadyHandler()
        let second = ReadyHandler()
        var newcomer: ReadyHandler?
        for (handler, other) in [(first, second), (second, first)] {
            handler.onEvent = { _, loop in
                loop.stop()
                guard newcomer == nil else { return }
                loop.unregister(other)
                let fresh = ReadyHandler(takingOver: other.descriptor)  // closes the other's
                #expect(fresh.descriptor == other.descriptor)
                try? loop.register(fresh, events: EPOLLIN.rawValue)
                newcomer = fresh
            }
        }
        try loop.register(first, events: EPOLLIN.rawValue)
        try loop.register(second, events: EPOLLIN.rawValue)
        loop.run()
        #expect(first.handled + second.handled == 1)
        #expect(newcomer?.handled == 0)
        let survivor = first.handled == 1 ? first : second
        for handler in [survivor, newcomer].compactMap({ $0 }) {
            loop.unregister(handler)
            close(handler.descriptor)
        }
    }
}
