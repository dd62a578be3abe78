import CLinux
import Glibc

/// inotify on one folder (IN_CLOSE_WRITE, IN_MOVED_TO, IN_CREATE, IN_MODIFY: something
/// may be new or still changing there; IN_DELETE and IN_MOVED_FROM: it went). `wait`
/// blocks in poll(2) for at most the given time: the watcher is a command of its own, with
/// no event loop to keep free.
final class FolderEvents {
    enum Change {
        case touched(String)
        case gone(String)
    }

    private let descriptor: Int32

    init(folder: String) throws(FolderEventsError) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw FolderEventsError(call: "inotify_init1", errno: errno) }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY | IN_ATTRIB | IN_DELETE | IN_MOVED_FROM)
        guard inotify_add_watch(descriptor, folder, mask | UInt32(IN_ONLYDIR)) >= 0 else {
            let error = errno
            close(descriptor)
            throw FolderEventsError(call: "inotify_add_watch", errno: error)
        }
    }

    deinit {
        close(descriptor)
    }

    /// The changes that arrived within `milliseconds` (none when it timed out).
    func wait(milliseconds: Int32) -> [Change] {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, milliseconds) > 0 else { return [] }
        var changes: [Change] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            guard count > 0 else { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameBytes = UnsafeRawBufferPointer(rebasing: buffer[(offset + header)..<(offset + header + Int(event.len))])
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                if !name.isEmpty {
                    let gone = event.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0
                    changes.append(gone ? .gone(name) : .touched(name))
                }
                offset += header + Int(event.len)
            }
        }
        return changes
    }
}

struct FolderEventsError: Error, CustomStringConvertible {
    var call: String
    var errno: Int32

    var description: String { "\(call): \(String(cString: strerror(errno)))" }
}
