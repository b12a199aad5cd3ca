import ChakraConfig
import ChakraSystem
import ChakraTestSupport
import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

/// Files that never end, or are not files: a FIFO, a device, a directory,
/// a socket, a file over 1 MiB, as the main file and as a drop-in. Each is
/// refused at once with an error naming it and what it is (a FIFO's open
/// used to block for good: start hung, `reload` stopped the control thread,
/// SIGHUP the frames). /dev/null stays the empty file it always was.
@Suite("Configuration files that are not regular files, or too large")
struct SpecialFileTests {
    /// Where the thing under test goes: the main file, or a drop-in beside a
    /// good main file.
    enum Place: String, CaseIterable, CustomTestStringConvertible {
        case main, dropIn
        var testDescription: String { rawValue }

        func path(in tree: ConfigTree) throws -> String {
            switch self {
            case .main:
                return tree.main
            case .dropIn:
                try tree.writeMain("reduce_motion = true\n")
                return tree.dropIns + "/50-site.toml"
            }
        }
    }

    /// `ConfigFiles.load` on a thread of its own, waited for at most
    /// `seconds`: a load that blocks (a FIFO's open, as before) fails the
    /// test instead of hanging it, and `release` then lets it go.
    private func load(_ tree: ConfigTree, within seconds: Double = 5, release: () -> Void = {}) -> Result<LoadedConfig, ConfigError>? {
        let outcome = Mutex<Result<LoadedConfig, ConfigError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let main = tree.main
        Thread {
            let result = Result { () throws(ConfigError) in try ConfigFiles.load(path: main, required: true) }
            outcome.withLock { $0 = result }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + seconds) == .success else {
            Issue.record("still reading after \(seconds) s")
            release()
            _ = done.wait(timeout: .now() + 5)
            return nil
        }
        return outcome.withLock { $0 }
    }

    /// The one issue of a refused load.
    private func refusal(_ tree: ConfigTree, release: () -> Void = {}) -> String? {
        switch load(tree, release: release) {
        case .failure(let error)?:
            return error.description
        case .success(let loaded)?:
            Issue.record("accepted: \(loaded.files)")
            return nil
        case nil:
            return nil
        }
    }

    /// Opening the write end lets a reader blocked in open(2) go (and
    /// closing it gives that reader the end of the file).
    private func unblock(_ fifo: String) {
        // Opening fails (ENXIO) until the reader is in its open(2).
        _ = eventually(within: 5) {
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
            return fd >= 0
        }
    }

    @Test("a FIFO is refused before it is opened, without waiting for a writer", arguments: Place.allCases)
    func fifo(place: Place) throws {
        let tree = try ConfigTree()
        let path = try place.path(in: tree)
        #expect(mkfifo(path, 0o644) == 0)
        let started = Date()
        #expect(refusal(tree, release: { unblock(path) }) == "\(path): cannot read the file: not a regular file (a FIFO)")
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test("a directory is refused, named", arguments: Place.allCases)
    func directory(place: Place) throws {
        let tree = try ConfigTree()
        let path = try place.path(in: tree)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(refusal(tree) == "\(path): cannot read the file: not a regular file (a directory)")
    }

    @Test("a link to /dev/zero (a file that never ends) is refused as the device it is", arguments: Place.allCases)
    func endlessDevice(place: Place) throws {
        let tree = try ConfigTree()
        let path = try place.path(in: tree)
        #expect(symlink("/dev/zero", path) == 0)
        #expect(refusal(tree) == "\(path): cannot read the file: not a regular file (a character device)")
    }

    @Test("/dev/zero itself as --config: refused at once")
    func devZero() {
        do {
            let loaded = try ConfigFiles.load(path: "/dev/zero", required: true)
            Issue.record("accepted: \(loaded.files)")
        } catch {
            #expect(error.description == "/dev/zero: cannot read the file: not a regular file (a character device)")
        }
    }

    @Test("a socket is refused, named", arguments: Place.allCases)
    func socket(place: Place) throws {
        let tree = try ConfigTree()
        let path = try place.path(in: tree)
        let fd = try UnixSocket.make()
        defer { close(fd) }
        try UnixSocket.bind(fd, path: path)
        #expect(refusal(tree) == "\(path): cannot read the file: not a regular file (a socket)")
    }

    @Test("a file over 1 MiB is refused by its size, which the error gives", arguments: Place.allCases)
    func oversized(place: Place) throws {
        let tree = try ConfigTree()
        let path = try place.path(in: tree)
        let size = (1 << 20) + 1
        try Data(("#" + String(repeating: "x", count: size - 2) + "\n").utf8).write(to: URL(fileURLWithPath: path))
        #expect(refusal(tree) == "\(path): cannot read the file: larger than 1 MiB (1048577 bytes); not a configuration file")
    }

    @Test("exactly 1 MiB is still read")
    func atTheLimit() throws {
        let tree = try ConfigTree()
        let comment = "#" + String(repeating: "x", count: (1 << 20) - "reduce_motion = true\n".utf8.count - 2) + "\n"
        try tree.writeMain(comment + "reduce_motion = true\n")
        let loaded = try tree.load()
        #expect(loaded.config.reduceMotion)
    }

    @Test("a file that holds more than its size says (/proc's say 0) is cut at 1 MiB, not read to its end")
    func moreThanItsSize() throws {
        // /proc/kallsyms: a regular file of size 0 that reads as megabytes.
        guard let info = try? FileSystem.stat("/proc/kallsyms"), info.st_size == 0,
              let handle = FileHandle(forReadingAtPath: "/proc/kallsyms"), (try? handle.read(upToCount: (1 << 20) + 1))?.count == (1 << 20) + 1
        else { return }
        do {
            _ = try ConfigParser.load(path: "/proc/kallsyms")
            Issue.record("accepted")
        } catch {
            #expect(error.description == "/proc/kallsyms: cannot read the file: larger than 1 MiB (found while reading it); not a configuration file")
        }
    }

    @Test("/dev/null reads as an empty file: --config /dev/null means no settings")
    func devNull() throws {
        let loaded = try ConfigFiles.load(path: "/dev/null", required: true)
        #expect(loaded.config == ChakraConfig() && loaded.files == ["/dev/null"] && loaded.warnings.isEmpty)

        let tree = try ConfigTree()
        let path = try Place.dropIn.path(in: tree)
        #expect(symlink("/dev/null", path) == 0)
        let laid = try tree.load()
        #expect(laid.config.reduceMotion && laid.dropIns == [path])
    }

    /// 100,000 unknown tables in just under 1 MiB ("[t0]" to "[t99999]").
    private static let unknownTables = (0..<100_000).map { "[t\($0)]\n" }.joined()

    @Test("100,000 unknown tables: the first 20 warnings, then one that counts the rest", arguments: Place.allCases)
    func manyUnknownTables(place: Place) throws {
        let tree = try ConfigTree()
        let path = try place.path(in: tree)
        try Self.unknownTables.write(toFile: path, atomically: false, encoding: .utf8)
        let loaded = try tree.load()
        #expect(loaded.warnings.count == 21)
        #expect(loaded.warnings.first?.description == "\(path):1: t0: unknown table [t0], ignored")
        #expect(loaded.warnings[19].description == "\(path):20: t19: unknown table [t19], ignored")
        let counted = place == .main ? path : "configuration"
        #expect(loaded.warnings.last?.description == "\(counted): ... and 99,980 more unknown keys and tables, ignored")
        #expect(loaded.warningCount == 100_000)
        #expect(loaded.config.reduceMotion == (place == .dropIn))
    }

    @Test("warnings are bounded over the whole load: the main file's first, then the drop-ins'")
    func boundedAcrossFiles() throws {
        let tree = try ConfigTree()
        try tree.writeMain((0..<15).map { "main\($0) = 1\n" }.joined())
        try tree.write("50-site.toml", (0..<15).map { "site\($0) = 1\n" }.joined())
        let loaded = try tree.load()
        #expect(loaded.warnings.count == 21 && loaded.warningCount == 30)
        #expect(loaded.warnings[14].key == "main14" && loaded.warnings[15].key == "site0" && loaded.warnings[19].key == "site4")
        #expect(loaded.warnings.last?.description == "configuration: ... and 10 more unknown keys and tables, ignored")

        // 20 or fewer: listed one by one, nothing added.
        try tree.write("50-site.toml", (0..<5).map { "site\($0) = 1\n" }.joined())
        let twenty = try tree.load()
        #expect(twenty.warnings.count == 20 && twenty.warningCount == 20 && twenty.warnings.last?.key == "site4")
    }
}
