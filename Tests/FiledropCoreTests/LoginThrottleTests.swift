import Testing

@testable import FiledropCore

/// Brute-force slowing with an injected clock: no test sleeps.
@Suite struct LoginThrottleTests {
    static let second: UInt64 = 1_000_000_000

    @Test func freeFailuresThenDoublingLockouts() {
        let throttle = LoginThrottle()
        var now: UInt64 = 1000 * Self.second
        for _ in 0..<5 {
            #expect(throttle.remainingLockout(client: "a", now: now) == 0)
            throttle.recordFailure(client: "a", now: now)
        }
        #expect(throttle.remainingLockout(client: "a", now: now) == 0)
        // The sixth failure locks for 1 s, the seventh for 2 s, the eighth for 4 s.
        for lockout: UInt64 in [1, 2, 4, 8] {
            throttle.recordFailure(client: "a", now: now)
            #expect(throttle.remainingLockout(client: "a", now: now) == lockout * Self.second)
            #expect(throttle.remainingLockout(client: "a", now: now + lockout * Self.second - 1) == 1)
            now += lockout * Self.second
            #expect(throttle.remainingLockout(client: "a", now: now) == 0)
        }
        #expect(throttle.remainingLockout(client: "b", now: now) == 0)
    }

    @Test func lockoutIsCapped() {
        let throttle = LoginThrottle()
        for _ in 0..<200 { throttle.recordFailure(client: "a", now: Self.second) }
        #expect(throttle.remainingLockout(client: "a", now: Self.second) == throttle.settings.maxLockout)
    }

    @Test func successClearsTheRecord() {
        let throttle = LoginThrottle()
        for _ in 0..<6 { throttle.recordFailure(client: "a", now: Self.second) }
        #expect(throttle.remainingLockout(client: "a", now: Self.second) > 0)
        throttle.recordSuccess(client: "a")
        #expect(throttle.remainingLockout(client: "a", now: Self.second) == 0)
        #expect(throttle.rememberedClients == 0)
    }

    @Test func oldFailuresAreForgotten() {
        let throttle = LoginThrottle()
        for _ in 0..<5 { throttle.recordFailure(client: "a", now: Self.second) }
        let later = Self.second + throttle.settings.forgetAfter
        throttle.recordFailure(client: "a", now: later)
        #expect(throttle.remainingLockout(client: "a", now: later) == 0)
    }

    @Test func memoryIsBoundedAndTheOldestGoesFirst() {
        var settings = LoginThrottle.Settings()
        settings.capacity = 3
        let throttle = LoginThrottle(settings: settings)
        for (index, client) in ["a", "b", "c"].enumerated() {
            for _ in 0..<6 { throttle.recordFailure(client: client, now: UInt64(index + 1) * Self.second) }
        }
        #expect(throttle.rememberedClients == 3)
        throttle.recordFailure(client: "d", now: 10 * Self.second)
        #expect(throttle.rememberedClients == 3)
        #expect(throttle.remainingLockout(client: "a", now: 10 * Self.second) == 0)
        #expect(throttle.remainingLockout(client: "b", now: 2 * Self.second) > 0)
    }
}
