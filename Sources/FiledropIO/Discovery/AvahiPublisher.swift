import CAvahi
import CLinux
import FiledropCore
import FiledropHTTP
import Glibc
import Synchronization

/// Announces a `ServiceAdvertisement` through avahi-daemon (D-Bus, libavahi-client).
///
/// libavahi-client's calls wait for D-Bus answers, so none of them runs on our event loops:
/// Avahi's own threaded poll owns a thread, and every Avahi call happens there (or before it
/// starts and after it stops). The loops only store what they want announced behind a lock
/// and write to an eventfd the poll watches, which never blocks.
///
/// The client is made with AVAHI_CLIENT_NO_FAIL: while avahi-daemon is absent it waits for
/// it (one log line says so), registers when it appears, and starts waiting again when the
/// daemon goes away (`systemctl restart avahi-daemon`).
public final class AvahiPublisher: @unchecked Sendable {
    // @unchecked: `client`, `group`, `registered`, `name` and `saidWaiting` are touched only
    // on Avahi's poll thread, or before `start`/after `stop` when that thread is not running;
    // `wanted` is behind its Mutex.
    private let poll: OpaquePointer
    private let wakeup: Int32
    private var watch: OpaquePointer?
    private var client: OpaquePointer?
    private var group: OpaquePointer?
    /// What the current entry group holds; nil when nothing is registered.
    private var registered: ServiceAdvertisement?
    /// The planned instance name, and the one in use after collisions ("filedrop on nas #2").
    private var name: (planned: String, inUse: String)?
    private var saidWaiting = false
    private let wanted = Mutex<ServiceAdvertisement?>(nil)
    private let log: any LogSink

    /// Nil, after one log line, when Avahi cannot be used at all (no D-Bus system bus).
    public init?(log: any LogSink) {
        self.log = log
        guard let poll = avahi_threaded_poll_new() else {
            log.log(LogEvent(level: .warning, message: "mdns: cannot start Avahi's event loop: not advertised on the LAN"))
            return nil
        }
        self.poll = poll
        wakeup = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wakeup >= 0 else {
            avahi_threaded_poll_free(poll)
            log.log(LogEvent(level: .warning, message: "mdns: eventfd failed (errno \(errno)): not advertised on the LAN"))
            return nil
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        watch = filedrop_avahi_watch_readable(
            poll, wakeup,
            { _, _, _, context in
                AvahiPublisher.from(context).wokenUp()
            }, context)
        var error: Int32 = 0
        // The state callback runs inside avahi_client_new already (RUNNING or CONNECTING).
        guard avahi_client_new(avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, Self.clientCallback, context, &error) != nil
        else {
            if let watch { filedrop_avahi_watch_free(poll, watch) }
            avahi_threaded_poll_free(poll)
            close(wakeup)
            // Debian 12's dbus-daemon drops DynamicUser= clients (systemd issue 22737); dbus-broker
            // serves them. The packaged unit runs as the system user filedrop, which both serve.
            let hint =
                error == AVAHI_ERR_DBUS_ERROR
                ? " (if the service runs with DynamicUser=, Debian 12's dbus-daemon refuses it: "
                    + "use a system user as the packaged unit does, or dbus-broker; see README.systemd)" : ""
            log.log(
                LogEvent(
                    level: .notice,
                    message:
                        "mdns: cannot reach avahi-daemon over D-Bus (\(Self.describe(error))): not advertised on the LAN\(hint)"))
            return nil
        }
        guard avahi_threaded_poll_start(poll) == 0 else {
            freeAvahi()
            log.log(LogEvent(level: .warning, message: "mdns: cannot start Avahi's thread: not advertised on the LAN"))
            return nil
        }
    }

    /// Announces `advertisement` (nil withdraws it). Never blocks: safe on an event loop.
    public func publish(_ advertisement: ServiceAdvertisement?) {
        wanted.withLock { $0 = advertisement }
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
    }

    /// Stops Avahi's thread, withdraws what was announced (goodbye packets go out) and
    /// disconnects. Blocks on D-Bus: call it off the loops, after they stopped.
    public func stop() {
        avahi_threaded_poll_stop(poll)
        freeAvahi()
    }

    private func freeAvahi() {
        if let group { avahi_entry_group_free(group) }
        group = nil
        if let client { avahi_client_free(client) }
        client = nil
        if let watch { filedrop_avahi_watch_free(poll, watch) }
        watch = nil
        avahi_threaded_poll_free(poll)
        close(wakeup)
    }

    // MARK: - On Avahi's thread

    private static func from(_ context: UnsafeMutableRawPointer?) -> AvahiPublisher {
        Unmanaged<AvahiPublisher>.fromOpaque(context!).takeUnretainedValue()
    }

    private static let clientCallback: AvahiClientCallback = { client, state, context in
        from(context).clientChanged(client, state)
    }

    private static let groupCallback: AvahiEntryGroupCallback = { group, state, context in
        from(context).groupChanged(group, state)
    }

    private func wokenUp() {
        var count: UInt64 = 0
        _ = read(wakeup, &count, 8)
        synchronize()
    }

    private func clientChanged(_ changed: OpaquePointer?, _ state: AvahiClientState) {
        client = changed
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            if saidWaiting {
                log.log(LogEvent(level: .notice, message: "mdns: avahi-daemon is running now"))
                saidWaiting = false
            }
            synchronize()
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The host name is being (re)chosen: records under the old one are void.
            // RUNNING follows, and registers again.
            if let group { avahi_entry_group_reset(group) }
            registered = nil
        case AVAHI_CLIENT_CONNECTING:
            if !saidWaiting {
                log.log(
                    LogEvent(
                        level: .notice, message: "mdns: avahi-daemon is not running: not advertised on the LAN until it starts"))
                saidWaiting = true
            }
        case AVAHI_CLIENT_FAILURE:
            let error = changed.map(avahi_client_errno) ?? 0
            // Freeing the client frees its entry group too.
            if let changed { avahi_client_free(changed) }
            client = nil
            group = nil
            registered = nil
            guard error == AVAHI_ERR_DISCONNECTED else {
                log.log(
                    LogEvent(
                        level: .warning,
                        message: "mdns: the Avahi client failed (\(Self.describe(error))): not advertised on the LAN"))
                return
            }
            // avahi-daemon stopped or restarted: wait for it again, as at start.
            var newError: Int32 = 0
            if avahi_client_new(
                avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, Self.clientCallback,
                Unmanaged.passUnretained(self).toOpaque(), &newError) == nil
            {
                log.log(
                    LogEvent(
                        level: .warning, message: "mdns: lost avahi-daemon and cannot wait for it (\(Self.describe(newError)))"))
            }
        default:
            break
        }
    }

    private func groupChanged(_ changed: OpaquePointer?, _ state: AvahiEntryGroupState) {
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            guard let registered, let name else { return }
            let services = registered.services.map { "\($0.type) port \($0.port)" }.joined(separator: ", ")
            log.log(
                LogEvent(
                    level: .notice, message: "mdns: announced on the LAN as \"\(name.inUse)\" (\(services))",
                    fields: [("mdns_name", name.inUse)]))
        case AVAHI_ENTRY_GROUP_COLLISION:
            // Another machine has the name: RFC 6762 §9, pick "NAME #2" and announce again.
            guard let current = name else { return }
            name = (current.planned, nameTaken(current.inUse))
            registered = nil
            synchronize()
        case AVAHI_ENTRY_GROUP_FAILURE:
            let error = changed.flatMap { avahi_entry_group_get_client($0) }.map(avahi_client_errno) ?? 0
            log.log(LogEvent(level: .warning, message: "mdns: the announcement failed (\(Self.describe(error)))"))
        default:
            break
        }
    }

    /// Makes avahi-daemon hold what `wanted` says: withdraws the old records and registers
    /// the new ones when they differ; nothing while the daemon is absent (RUNNING comes back here).
    private func synchronize() {
        guard let client, avahi_client_get_state(client) == AVAHI_CLIENT_S_RUNNING else { return }
        let desired = wanted.withLock { $0 }
        guard desired != registered || (desired != nil && group == nil) else { return }
        if let group, registered != nil || desired == nil {
            avahi_entry_group_reset(group)
            if desired == nil { log.log(LogEvent(level: .notice, message: "mdns: announcement withdrawn")) }
        }
        registered = nil
        guard let desired else { return }
        if name?.planned != desired.instanceName { name = (desired.instanceName, desired.instanceName) }
        if group == nil { group = avahi_entry_group_new(client, Self.groupCallback, Unmanaged.passUnretained(self).toOpaque()) }
        guard let group, var current = name else {
            log.log(
                LogEvent(
                    level: .warning, message: "mdns: cannot make an entry group (\(Self.describe(avahi_client_errno(client))))"))
            return
        }
        // A local collision (this machine already announces the name, e.g. a second filedrop)
        // is known at once: try alternatives a bounded number of times.
        for _ in 0..<12 {
            let result = add(desired, named: current.inUse, to: group)
            if result == Int32(AVAHI_OK) {
                let committed = avahi_entry_group_commit(group)
                if committed < 0 {
                    log.log(LogEvent(level: .warning, message: "mdns: cannot announce (\(Self.describe(committed)))"))
                    return
                }
                name = current
                registered = desired
                return
            }
            avahi_entry_group_reset(group)
            guard result == AVAHI_ERR_COLLISION else {
                log.log(LogEvent(level: .warning, message: "mdns: cannot add the service (\(Self.describe(result)))"))
                return
            }
            current.inUse = nameTaken(current.inUse)
        }
        log.log(LogEvent(level: .warning, message: "mdns: every alternative name is taken; not advertised"))
    }

    private func add(_ advertisement: ServiceAdvertisement, named name: String, to group: OpaquePointer) -> Int32 {
        var txt: UnsafeMutablePointer<AvahiStringList>?
        for entry in advertisement.txt.reversed() { txt = avahi_string_list_add(txt, entry) }
        defer { avahi_string_list_free(txt) }
        for service in advertisement.services {
            let protocolFamily: AvahiProtocol =
                switch service.family {
                case .any: AvahiProtocol(AVAHI_PROTO_UNSPEC)
                case .ipv4: AvahiProtocol(AVAHI_PROTO_INET)
                case .ipv6: AvahiProtocol(AVAHI_PROTO_INET6)
                }
            let result = avahi_entry_group_add_service_strlst(
                group, AvahiIfIndex(service.interfaceIndex ?? Int32(AVAHI_IF_UNSPEC)),
                protocolFamily, AvahiPublishFlags(0), name, service.type,
                nil, nil, service.port, txt)
            if result < 0 { return result }
        }
        return Int32(AVAHI_OK)
    }

    /// The next name to try after `taken` collided, with the log line that says so: a
    /// collision on the LAN and one with this machine (a second filedrop) read the same.
    private func nameTaken(_ taken: String) -> String {
        let alternative = Self.alternativeName(taken)
        log.log(
            LogEvent(
                level: .notice, message: "mdns: the name \"\(taken)\" is taken on the LAN, trying \"\(alternative)\"",
                fields: [("mdns_name", alternative)]))
        return alternative
    }

    private static func alternativeName(_ name: String) -> String {
        guard let next = avahi_alternative_service_name(name) else { return name + " #2" }
        defer { avahi_free(next) }
        return String(cString: next)
    }

    private static func describe(_ error: Int32) -> String {
        String(cString: avahi_strerror(error))
    }
}
