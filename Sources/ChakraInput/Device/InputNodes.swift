import ChakraDisplay
import ChakraSystem
import Glibc

/// The evdev nodes of a directory, and what each one is.
public enum InputNodes {
    /// /dev/input/event* in number order (event2 before event10).
    public static func list(directory: String = "/dev/input") -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var numbers: [(Int, String)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("event"), let number = Int(name.dropFirst(5)) else { continue }
            numbers.append((number, name))
        }
        return numbers.sorted { $0.0 < $1.0 }.map { directory + "/" + $0.1 }
    }

    /// The file a path names once its symbolic links are followed
    /// (/dev/input/by-path/...-event → /dev/input/event3), or the path.
    static func resolve(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func deviceNumber(_ path: String) -> UInt64? {
        var status = stat()
        return stat(path, &status) == 0 ? UInt64(status.st_rdev) : nil
    }

    /// One node, as `chakrad input` lists it.
    public struct Report: Sendable {
        public var path: String
        public var name: String?
        public var capabilities: DeviceCapabilities?
        /// nil when the node could not be opened.
        public var classification: DeviceClassification?
        public var error: String?
    }

    /// Opens each node read-only (no grab) and says what it is.
    public static func survey(directory: String = "/dev/input", choice: DeviceChoice = .automatic) -> [Report] {
        list(directory: directory).map { path in
            do throws(SystemError) {
                let device = try EvdevDevice(path: path)
                let capabilities = device.capabilities
                let configured = choice.accepts(path: path, name: capabilities.name)
                return Report(path: path, name: capabilities.name, capabilities: capabilities,
                              classification: DeviceClassification(capabilities, configured: configured && choice != .automatic))
            } catch {
                return Report(path: path, error: "\(error)")
            }
        }
    }
}

extension DeviceChoice {
    /// Whether this choice takes the node at `path` named `name`.
    func accepts(path: String, name: String) -> Bool {
        switch self {
        case .automatic: true
        case .path(let wanted): InputNodes.resolve(wanted) == InputNodes.resolve(path)
        case .name: matchesName(name)
        }
    }
}
