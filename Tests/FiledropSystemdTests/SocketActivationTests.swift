import Glibc
import Testing

@testable import FiledropSystemd

extension ProcessStateTests {
    /// sd_listen_fds(3) always starts at descriptor 3, so these tests move real sockets
    /// there, saving whatever the test process had open at 3...5 and restoring it after.
    @Suite struct SocketActivationTests {
        @Test func nothingWithoutListenFds() {
            withEnvironment(["LISTEN_FDS": nil, "LISTEN_PID": nil, "LISTEN_FDNAMES": nil]) {
                #expect(SocketActivation.listenFileDescriptors().isEmpty)
            }
        }

        @Test func nothingWhenListenPidIsAnotherProcess() throws {
            try withSocketsAtDescriptorThree { _ in
                withEnvironment(["LISTEN_FDS": "3", "LISTEN_PID": "\(getpid() + 1)", "LISTEN_FDNAMES": "web:dgram:admin"]) {
                    #expect(SocketActivation.listenFileDescriptors().isEmpty)
                }
            }
        }

        @Test func adoptsListeningStreamSocketsWithTheirNames() throws {
            try withSocketsAtDescriptorThree { ports in
                withEnvironment(["LISTEN_FDS": "3", "LISTEN_PID": "\(getpid())", "LISTEN_FDNAMES": "web:dgram:admin"]) {
                    let sockets = SocketActivation.listenFileDescriptors()
                    #expect(sockets == [ActivatedSocket(fd: 3, name: "web"), ActivatedSocket(fd: 5, name: "admin")])
                    for socket in sockets {
                        #expect(fcntl(socket.fd, F_GETFL) & O_NONBLOCK != 0)
                        #expect(fcntl(socket.fd, F_GETFD) & FD_CLOEXEC != 0)
                    }
                    #expect(Self.localPort(3) == ports[0])
                    #expect(Self.localPort(5) == ports[2])
                    // Unset so that a child process does not adopt them too.
                    #expect(getenv("LISTEN_FDS") == nil)
                    #expect(getenv("LISTEN_PID") == nil)
                    #expect(getenv("LISTEN_FDNAMES") == nil)
                }
            }
        }

        @Test func namesDefaultToUnknown() throws {
            try withSocketsAtDescriptorThree { _ in
                withEnvironment(["LISTEN_FDS": "1", "LISTEN_PID": "\(getpid())", "LISTEN_FDNAMES": nil]) {
                    #expect(SocketActivation.listenFileDescriptors() == [ActivatedSocket(fd: 3, name: "unknown")])
                }
            }
        }

        /// Puts a listening TCP socket at 3, a UDP socket at 4 and another listening TCP
        /// socket at 5, all blocking, and passes `body` their ports.
        func withSocketsAtDescriptorThree(_ body: ([UInt16]) throws -> Void) throws {
            let targets: [Int32] = [3, 4, 5]
            let saved = targets.map { fd in fcntl(fd, F_GETFD) >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 100) : -1 }
            defer {
                for (fd, copy) in zip(targets, saved) {
                    if copy >= 0 {
                        dup2(copy, fd)
                        close(copy)
                    } else {
                        close(fd)
                    }
                }
            }
            let fresh = [
                Self.loopbackSocket(type: SOCK_STREAM), Self.loopbackSocket(type: SOCK_DGRAM),
                Self.loopbackSocket(type: SOCK_STREAM),
            ]
            var ports: [UInt16] = []
            for (fd, socket) in zip(targets, fresh) {
                try #require(socket >= 0)
                try #require(dup2(socket, fd) == fd)
                close(socket)
                ports.append(Self.localPort(fd))
            }
            try body(ports)
        }

        static func loopbackSocket(type: __socket_type) -> Int32 {
            let fd = socket(AF_INET, Int32(type.rawValue), 0)
            guard fd >= 0 else { return -1 }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, type == SOCK_DGRAM || listen(fd, 8) == 0 else {
                close(fd)
                return -1
            }
            return fd
        }

        static func localPort(_ fd: Int32) -> UInt16 {
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            return UInt16(bigEndian: address.sin_port)
        }
    }
}
