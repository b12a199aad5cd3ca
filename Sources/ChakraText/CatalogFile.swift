import ChakraSystem
import Glibc

/// One string catalog file as read: its strings, or why there are none,
/// in words a log line can hold (not an error value's dump).
enum CatalogFile: Equatable {
    case strings([String: String])
    /// No such file.
    case missing
    /// There, but not usable: unreadable, not UTF-8, not TOML.
    case unusable(String)

    /// A catalog holds a dozen lines; anything larger is not one.
    static let maximumBytes = 1 << 20

    var strings: [String: String]? {
        if case .strings(let strings) = self { return strings }
        return nil
    }

    static func read(_ path: String) -> CatalogFile {
        let bytes: [UInt8]
        do {
            // A regular file only: a FIFO put in the catalog directory
            // would otherwise hold whoever reads it (a reload) for good.
            bytes = try InputFile.read(path, limit: maximumBytes)
        } catch {
            switch error.cause {
            case .system(let failure) where failure.errno == ENOENT: return .missing
            case .tooLarge, .overran: return .unusable("larger than 1 MiB; not a catalog")
            default: return .unusable(error.reason)
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .unusable("not UTF-8 text") }
        do {
            return .strings(try StringCatalog.parse(text))
        } catch {
            return .unusable("not TOML: \(error)")
        }
    }

    /// Whether `directory` is missing (so that one line can say so, not a
    /// line for each file that is not in it).
    static func isMissing(directory: String) -> Bool {
        do {
            _ = try FileSystem.stat(directory)
            return false
        } catch {
            return error.errno == ENOENT || error.errno == ENOTDIR
        }
    }
}
