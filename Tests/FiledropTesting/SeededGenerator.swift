/// xorshift64* with a fixed seed, so every run checks (or times) the same "random" bytes.
/// Shared by the unit tests and `bench/delimiter-search` (`scripts/bench-core.sh` compiles
/// this file into it).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
