/// Which names in a watched folder are files to send: not hidden ones (`.name`, which
/// editors and sync tools use for their own state), and not the temporary names programs
/// write under before they rename the finished file into place.
public enum WatchedName {
    /// Endings of names still being written: browsers (`.part`, `.crdownload`), editors
    /// (`~`, `.swp`), rsync-like tools (`.tmp`), and `filedrop get` itself (`.filedrop-part`).
    public static let temporaryEndings = ["~", ".part", ".partial", ".crdownload", ".tmp", ".swp", ".filedrop-part"]

    public static func isSent(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !temporaryEndings.contains { name.hasSuffix($0) }
    }
}
