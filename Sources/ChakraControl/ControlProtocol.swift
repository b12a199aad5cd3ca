/// Protocol constants shared by chakrad and chakractl.
public enum ControlProtocol {
    /// docs/protocol.md describes this version. It grows by one when a
    /// change would break a client written for the previous one (a removed
    /// or renamed command, argument, field or code); new commands, fields,
    /// events and error codes do not change it, and clients ignore what
    /// they do not know.
    public static let version = 1

    /// Where chakrad listens unless configured otherwise.
    public static let defaultSocket = "/run/chakra/control.sock"

    /// The default longest request line, in bytes ([control] max_line).
    public static let defaultMaxLine = 16384
}

/// The release of chakrad and chakractl. This line is the one place the
/// version is written: scripts/version.sh reads it for the Debian package,
/// its changelog and the man pages.
public enum ChakraVersion {
    public static let current = "0.4.0"
}
