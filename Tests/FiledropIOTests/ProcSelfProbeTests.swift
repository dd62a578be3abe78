import Glibc
import Testing

@testable import FiledropIO

/// The process facts /metrics reports, read from this test process's /proc/self. Other
/// tests run in the same process at the same time, so only lower bounds are certain: what
/// this test itself holds while it reads.
@Suite struct ProcSelfProbeTests {
    @Test func openDescriptorsCountWhatIsHeldOpen() throws {
        let held = (0..<100).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        defer { for descriptor in held where descriptor >= 0 { close(descriptor) } }
        #expect(held.allSatisfy { $0 >= 0 })
        // Standard input, output and error, and the hundred.
        let count = try #require(ProcSelfProbe().openFileDescriptors())
        #expect(count >= 103)
    }

    @Test func residentMemoryCountsTouchedPages() throws {
        let size = 64 << 20
        let block = try #require(malloc(size))
        defer { free(block) }
        memset(block, 1, size)
        let resident = try #require(ProcSelfProbe().residentBytes())
        #expect(resident >= UInt64(size))
    }
}
