import Glibc
import Testing

@testable import FiledropIO
@testable import FiledropServer

@Suite("FileDescriptor")
struct FileDescriptorTests {
    @Test("close is idempotent and the number reads -1 afterwards")
    func closeTwice() throws {
        let descriptor = FileDescriptor(owning: try syscall("open") { open("/dev/null", O_RDONLY | O_CLOEXEC) })
        #expect(descriptor.isOpen)
        #expect(try descriptor.status().st_mode & S_IFMT == S_IFCHR)
        descriptor.close()
        #expect(!descriptor.isOpen)
        #expect(descriptor.descriptor == -1)
        descriptor.close()
    }

    @Test("status reports a regular file's size")
    func status() throws {
        let descriptor = FileDescriptor(owning: try syscall("open") { open("/proc/self/exe", O_RDONLY | O_CLOEXEC) })
        let status = try descriptor.status()
        #expect(status.isRegularFile)
        #expect(status.st_size > 0)
        #expect(status.fileMetadata(name: "exe")?.size == UInt64(status.st_size))
    }
}
