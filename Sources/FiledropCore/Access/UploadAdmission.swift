import FiledropHTTP

/// One request's claim on its client's upload slots and hourly quota (`UploadCounters`).
/// A route takes it with `admit()` right before the upload's first side effect - a temp
/// file, a tus record, an "upload started" line - so a 429 leaves nothing behind; `settle`
/// then hands the slot to the body (released when the body ends), or gives it back when
/// the request reads none. A refusal is logged here, once ("upload refused"): the upload
/// neither started nor failed.
///
/// A route that admitted hands out only work that is never skipped, so `settle`'s
/// continuation always runs and the slot always finds its way back.
final class UploadAdmission {
    private let access: AccessControl
    private let client: String
    /// The request's declared body (Content-Length), counted against the quota up front.
    private let bodyLength: UInt64?
    /// What a refusal names when the route does not say: the request-target.
    private let target: String
    private let monitor: UploadMonitor
    private var holdsSlot = false

    init(access: AccessControl, client: String, bodyLength: UInt64?, target: String, monitor: UploadMonitor) {
        self.access = access
        self.client = client
        self.bodyLength = bodyLength
        self.target = target
        self.monitor = monitor
    }

    /// Takes the slot (once), or logs the refusal of the upload `name` and throws 429.
    func admit(name: String? = nil) throws(HTTPError) {
        guard !holdsSlot else { return }
        do {
            try access.takeUploadSlot(client: client, bodyLength: bodyLength)
        } catch {
            monitor.refused(name: name ?? target, client: client, error: error)
            throw error
        }
        holdsSlot = true
    }

    /// The slot goes with the body that reads the upload; any other outcome frees it.
    func settle(_ decision: RouteDecision) -> RouteDecision {
        switch decision {
        case .readBody(let consumer):
            // Every body this app reads is an upload; a route that forgot to admit is
            // admitted here, late but still before any byte is read.
            do {
                try admit()
            } catch {
                consumer.abort()
                return .respond(.error(error, format: .text))
            }
            holdsSlot = false
            return .readBody(access.countedUpload(consumer, client: client))
        case .after(let work, let then):
            return .after(work) { self.settle(then()) }
        case .respond:
            giveBack()
            return decision
        }
    }

    /// Routing failed after `admit`: the slot is free again.
    func giveBack() {
        guard holdsSlot else { return }
        holdsSlot = false
        access.releaseUploadSlot(client: client)
    }
}
