import CLinux
import FiledropHTTP
import Glibc

/// How a connection reads: into the loop's scratch for a new request (so an idle keep-alive
/// connection holds no buffer), into `inbound` for the rest of a head or a body, bounded per
/// wakeup, with SO_RCVLOWAT raised while a body streams in.
extension Connection {
    func readAvailable(loop: EventLoop) {
        var budget = Self.readBudget
        while budget > 0, isOpen, machine.wantsInput {
            // A head may grow up to the head limit; a body streams through a buffer sized to
            // what is certain to come, up to one read's worth (a small form post stays small).
            let limit = max(limits.maxHeadSize + 1, Self.bodyReadSize)
            // A new request is read into the loop's scratch, not a buffer of the connection's
            // own: most arrive whole and are consumed at once, so an idle keep-alive connection
            // holds no buffer, and 1,000 of them leave no 4 KiB holes behind in the heap.
            let fresh = machine.isIdle && inbound.readableCount == 0
            let scratch = loop.scratch
            let free =
                fresh
                ? min(scratch.count, limit)
                : inbound.reserveWritable(minimum: machine.isIdle ? 4096 : max(16 * 1024, bodyBytesToRead), limit: limit)
            guard free > 0 else {
                // Only a head can fill the buffer, and the parser rejects it before that.
                fail(loop: loop)
                return
            }
            let result: IOResult<Int>
            do {
                if fresh {
                    result = try receive(into: UnsafeMutableRawBufferPointer(rebasing: scratch[..<free]))
                } else {
                    result = try inbound.writeWithUnsafeMutableBytes { (space) throws(SystemError) in try receive(into: space) }
                }
            } catch {
                fail(loop: loop)
                return
            }
            guard case .done(let count) = result else {
                if let tls { want(loop, EPOLLIN.rawValue | (tls.readWantsWrite ? EPOLLOUT.rawValue : 0)) }
                break
            }
            if count == 0 {
                inputEnded(loop: loop)
                return
            }
            budget -= count
            if fresh {
                processFresh(UnsafeRawBufferPointer(rebasing: scratch[..<count]), limit: limit, loop: loop)
            } else if machine.wantsLinger {
                inbound.consume(count)
            } else {
                process(loop: loop)
            }
            // A short read drained the socket; epoll (level-triggered) reports the next bytes.
            // Not so for what OpenSSL has already read: that must be asked for.
            if count < free && tls?.hasPendingInput != true { break }
        }
        noteProgress()
        updateReceiveLowWatermark()
        if budget <= 0, isOpen, machine.wantsInput, tls?.hasPendingInput == true {
            // The budget ran out with records OpenSSL holds: epoll will not report them.
            // Runs later on this same loop, the connection's own thread.
            let connection = UnsafeTransfer(self)
            loop.execute {
                let connection = connection.wrappedValue
                if connection.isOpen && connection.machine.wantsInput { connection.readAvailable(loop: loop) }
            }
        }
    }

    /// What a body read may ask for: the bytes certain to follow, up to one read's worth.
    private var bodyBytesToRead: Int {
        Int(clamping: min(machine.bodyBytesCertainToFollow, UInt64(Self.bodyReadSize)))
    }

    /// One read from the socket (through TLS on the HTTPS port) into `space`.
    private func receive(into space: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        if let tls { return try tls.read(into: space) }
        return try nonBlockingSyscall("read") { read(descriptor, space.baseAddress, space.count) }
    }

    /// Feeds a new request's first bytes, read into the loop's scratch, to the machine, as
    /// `process` feeds `inbound`. What the machine leaves (a head cut short, the next pipelined
    /// request, body bytes behind blocking work) moves to `inbound` before any action is
    /// carried out: the scratch is the loop's, and an action may read or write through it.
    private func processFresh(_ bytes: UnsafeRawBufferPointer, limit: Int, loop: EventLoop) {
        requestStart = loop.now
        var offset = 0
        var action = ConnectionStateMachine.Action.readMore
        while offset < bytes.count, isOpen, machine.wantsInput, !machine.wantsLinger {
            let consumed: Int
            (consumed, action) = machine.process(
                UnsafeRawBufferPointer(rebasing: bytes[offset...]),
                now: loop.now, wallClock: loop.wallClockSeconds)
            offset += consumed
            guard case .readMore = action, consumed > 0 else { break }
        }
        if offset < bytes.count { inbound.append(UnsafeRawBufferPointer(rebasing: bytes[offset...]), limit: limit) }
        // Waiting for more (a head cut short waits in `inbound`), or done: nothing to carry out.
        if case .readMore = action { return }
        carryOut(action, loop: loop)
        if inbound.readableCount > 0 { process(loop: loop) }
    }

    func updateReceiveLowWatermark() {
        // Only bytes the framing promises: waiting for more than the client will send would stall.
        var certain = machine.wantsInput && inbound.readableCount == 0 ? machine.bodyBytesCertainToFollow : 0
        if let tls {
            // Part of what is promised may already sit in OpenSSL's buffer, or in the record
            // the next read completes: wait only for what is surely still on the wire.
            certain = tls.hasPendingInput || certain <= Self.tlsReadSlack ? 0 : certain - Self.tlsReadSlack
        }
        setReceiveLowWatermark(Int32(min(certain, UInt64(Self.bodyReadSize))))
    }

    /// More than OpenSSL's read buffer holds (a record and its header): what of a promised
    /// body may already have left the socket.
    private static let tlsReadSlack: UInt64 = 40 * 1024

    func setReceiveLowWatermark(_ bytes: Int32) {
        var wanted = max(bytes, 1)
        guard wanted != receiveLowWatermark, isOpen else { return }
        if setsockopt(descriptor, SOL_SOCKET, SO_RCVLOWAT, &wanted, socklen_t(MemoryLayout<Int32>.size)) == 0 {
            receiveLowWatermark = wanted
        }
    }

    func inputEnded(loop: EventLoop) {
        if machine.wantsLinger {
            close(loop: loop)
            return
        }
        switch machine.inputEnded(now: loop.now, wallClock: loop.wallClockSeconds) {
        case .close:
            // RFC 8446 §6.1: answer the client's close with ours; without it OpenSSL drops the
            // session from its cache on SSL_free, and the client's next connection cannot resume.
            tls?.sendCloseNotify()
            close(loop: loop)
        default: want(loop, 0)
        }
    }

    /// Feeds buffered input to the machine until it needs more bytes, starts writing or
    /// hands out blocking work.
    func process(loop: EventLoop) {
        while isOpen, machine.wantsInput, !machine.wantsLinger {
            // The loop's time of this wakeup, read once for all its connections (EventLoop.now).
            let now = loop.now
            let wallClock = loop.wallClockSeconds
            if machine.isIdle && inbound.readableCount > 0 { requestStart = now }
            let (consumed, action) = inbound.withReadableBytes { machine.process($0, now: now, wallClock: wallClock) }
            inbound.consume(consumed)
            if case .readMore = action {
                if consumed == 0 || inbound.readableCount == 0 { return }
            } else {
                carryOut(action, loop: loop)
            }
        }
    }
}
