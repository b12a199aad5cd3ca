import ChakraSystem
import Glibc

/// Writes one file of node_exporter's textfile collector so that a scrape
/// never reads half of it: the text goes to `.chakra.prom.tmp` in the same
/// directory (a rename is atomic only within a file system; the collector
/// reads only names ending in `.prom`), then is renamed over `chakra.prom`.
///
/// No fsync: the file is rewritten every interval and at start, so a crash
/// can at worst leave a stale or empty file until chakrad runs again, and
/// an fsync every few seconds would wear a kiosk's SD card for nothing.
public struct TextfileWriter: Sendable {
    public static let fileName = "chakra.prom"
    public static let temporaryName = ".chakra.prom.tmp"

    public let directory: String
    public var path: String { directory + "/" + Self.fileName }
    var temporaryPath: String { directory + "/" + Self.temporaryName }

    public init(directory: String) {
        // "/dir/" and "/dir" name the same file.
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// Replaces the file with `text`.
    public func write(_ text: String) throws(TextfileError) {
        do throws(SystemError) {
            // 0644: the unit's UMask=0077 would make it 0600, and
            // node_exporter (another user) must read it.
            try FileSystem.replace(path, with: text, temporary: temporaryPath, mode: 0o644)
        } catch {
            throw TextfileError(path: path, directory: directory, cause: error)
        }
    }
}

/// Why the metrics file could not be written, with what to do about the
/// usual causes.
public struct TextfileError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let directory: String
    public let cause: SystemError

    public var description: String {
        var text = "cannot write \(path): \(cause)"
        switch cause.errno {
        case ENOENT, ENOTDIR: text += " (the directory \(directory) does not exist)"
        case EACCES, EPERM, EROFS:
            text += " (\(directory) is not writable by chakrad: give its user write access, and under systemd "
                + "list the directory in ReadWritePaths= of a drop-in)"
        default: break
        }
        return text
    }
}
