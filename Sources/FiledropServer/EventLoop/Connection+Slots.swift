import FiledropHTTP

/// How far a connection got, told to the server's connection table (`ConnectionSlots`): a
/// newcomer may take the slot of one that has not finished its handshake or first head.
extension Connection {
    /// Tells the table once the first request's head has arrived whole: from then on the
    /// connection is never evicted for a newcomer. Cheap enough for every read and action.
    func noteProgress() {
        guard reportedStage != .committed, !handshaking, !machine.isIdle, !machine.isReadingHead else { return }
        advance(to: .committed)
    }

    func advance(to stage: ConnectionSlots.Stage) {
        guard stage > reportedStage else { return }
        reportedStage = stage
        onAdvance(self)
    }

    /// How far the connection got, as last told to the table.
    var stage: ConnectionSlots.Stage { reportedStage }

    /// Closes the connection to make room for a newcomer while every slot is taken, unless
    /// its first head has arrived meanwhile (then it is served, and the table told so). Nothing
    /// of a request has arrived whole, so there is nothing to answer.
    func evict(loop: EventLoop) {
        guard isOpen else { return }
        noteProgress()
        guard reportedStage != .committed else { return }
        log.log(
            LogEvent(
                level: .debug, message: "closed a connection from \(peer) to make room: every slot was taken",
                fields: [("client", peer)]))
        machine.connectionFailed()
        close(loop: loop)
    }
}
