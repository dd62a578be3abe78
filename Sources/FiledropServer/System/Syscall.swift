import Glibc

/// A failed system call: which call, and errno. Thrown by `syscall(_:_:)`.
public struct SystemError: Error, Equatable, CustomStringConvertible {
    public var call: String
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// The result of a call on a non-blocking descriptor.
public enum IOResult<Value> {
    case done(Value)
    case wouldBlock
}

/// The one wrapper every system call goes through (swift-nio `System.swift`): retries on
/// EINTR, throws `SystemError` naming the call, and traps on EBADF/EFAULT, which are
/// programming errors rather than conditions to handle.
@inline(__always)
@discardableResult
public func syscall<T: FixedWidthInteger>(_ name: @autoclosure () -> String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let err = Glibc.errno
        switch err {
        case EINTR: continue
        case EBADF, EFAULT: preconditionFailure("\(name()) returned \(err): a descriptor or pointer bug")
        default: throw SystemError(call: name(), errno: err)
        }
    }
}

/// The same for calls on non-blocking descriptors: EAGAIN becomes `.wouldBlock`.
@inline(__always)
public func nonBlockingSyscall<T: FixedWidthInteger>(_ name: @autoclosure () -> String, _ body: () -> T) throws(SystemError)
    -> IOResult<T>
{
    do {
        return .done(try syscall(name(), body))
    } catch  where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
        return .wouldBlock
    }
}
