import FiledropHTTP

/// Whether a `prepare-upload` may start a session, before its body is read:
///
/// ```
///             no localsend-pin                     localsend-pin set
/// open        every session                        only with ?pin= matching
/// drop        refused (403): a PIN is needed       only with ?pin= matching
/// private     refused (403): a PIN is needed       only with ?pin= matching
/// read-only   refused (403): uploads are off       refused (403)
/// ```
///
/// A missing or wrong PIN is 401 (LocalSend protocol v2.1 §4.1 "PIN required / Invalid PIN").
/// Wrong PINs count per address in the same `LoginThrottle` as wrong passwords, so a PIN of a
/// few digits cannot be walked through: past the free tries the address waits, answered 429
/// (§4.1 "Too many requests") without the PIN being looked at. `info` and `register` are
/// discovery and answer in every mode.
struct LocalSendAcceptPolicy {
    let mode: AccessMode
    let pin: String?

    func check(pin given: String?, client: String, throttle: LoginThrottle, now: UInt64) throws(HTTPError) {
        if mode == .readOnly { throw .readOnlyServer }
        guard let pin else {
            guard mode == .open else {
                throw .forbidden(
                    "LocalSend is refused: access is \(mode.rawValue), and that needs localsend-pin to be set "
                        + "so that only senders who know the PIN can send.")
            }
            return
        }
        let wait = throttle.remainingLockout(client: client, now: now)
        guard wait == 0 else {
            throw .tooManyRequests(
                "Too many wrong PINs from your address; try again later.",
                retryAfterSeconds: (wait + 999_999_999) / 1_000_000_000)
        }
        guard let given else { throw .unauthorized("PIN required: this receiver accepts only senders who give its PIN.") }
        guard ConstantTime.equals(given.utf8, pin.utf8) else {
            throttle.recordFailure(client: client, now: now)
            throw .unauthorized("Invalid PIN.")
        }
        throttle.recordSuccess(client: client)
    }
}
