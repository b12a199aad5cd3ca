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
            bytes = try readBytes(path)
        } catch where error.errno == ENOENT {
            return .missing
        } catch {
            return .unusable(error.reason)
        }
        guard bytes.count <= maximumBytes else { return .unusable("larger than 1 MiB; not a catalog") }
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

    private static func readBytes(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = try Descriptor.open(path, O_RDONLY)
        defer { _ = Descriptor.close(fd) }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 16384, alignment: 1)
        defer { chunk.deallocate() }
        var bytes: [UInt8] = []
        while bytes.count <= maximumBytes {
            let count = try Descriptor.read(fd, into: chunk.baseAddress!, count: chunk.count)
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}
