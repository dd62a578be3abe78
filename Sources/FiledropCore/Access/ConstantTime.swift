/// Comparison whose time does not depend on where two byte strings first differ, so a
/// client timing answers cannot learn a stored hash byte by byte.
public enum ConstantTime {
    /// Equal length and equal bytes. The length is not secret (a hash's length is public),
    /// so unequal lengths return at once; equal lengths always look at every byte.
    public static func equals<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
