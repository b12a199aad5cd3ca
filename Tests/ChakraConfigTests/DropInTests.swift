import ChakraConfig
import ChakraSchedule
import ChakraSystem
import Foundation
import Glibc
import Testing

/// A main file in a temporary directory and drop-ins beside it, in
/// `<main>.d`; removed with the directory.
final class ConfigTree {
    let root: String
    var main: String { root + "/chakra.toml" }
    var dropIns: String { main + ".d" }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("chakra-dropins-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/chakra.toml.d", withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func writeMain(_ text: String) throws { try text.write(toFile: main, atomically: false, encoding: .utf8) }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let path = dropIns + "/" + name
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    func load(required: Bool = true) throws(ConfigError) -> LoadedConfig { try ConfigFiles.load(path: main, required: required) }

    func issues(required: Bool = true) -> [String] {
        do {
            let loaded = try load(required: required)
            Issue.record("accepted: \(loaded.config)")
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }
}

@Suite("Configuration drop-ins: <file>.d/*.toml")
struct DropInTests {
    @Test("drop-ins are laid over the main file key by key, in byte order of their names")
    func orderAndOverride() throws {
        let tree = try ConfigTree()
        try tree.writeMain("[display]\nfps = 30\n[low_power]\nfps = 10\n")
        try tree.write("9-late.toml", "[display]\nfps = 40\n")
        try tree.write("10-early.toml", "[display]\nfps = 50\n[scene]\ntransition = \"cut\"\n")
        try tree.write("Z-upper.toml", "reduce_motion = true\n")
        let loaded = try tree.load()
        #expect(loaded.files == [tree.main, tree.dropIns + "/10-early.toml", tree.dropIns + "/9-late.toml", tree.dropIns + "/Z-upper.toml"])
        #expect(loaded.dropIns.count == 3 && loaded.file == tree.main)
        #expect(loaded.config.display.fps == 40)          // 9-late.toml is read after 10-early.toml
        #expect(loaded.config.scene.transition == .cut)   // set by a drop-in only
        #expect(loaded.config.lowPower.fps == 10)         // set by the main file only
        #expect(loaded.config.reduceMotion)
        #expect(Set(loaded.keysSet) == ["display.fps", "low_power.fps", "scene.transition", "reduce_motion"])
    }

    @Test("a drop-in with [schedule] replaces the whole schedule; one without keeps it")
    func scheduleIsOneUnit() throws {
        let tree = try ConfigTree()
        try tree.writeMain("""
            [schedule]
            outside = "dim"
            [[schedule.window]]
            days = "daily"
            start = "08:00"
            end = "12:00"
            show = "heart"
            [[schedule.window]]
            days = "daily"
            start = "13:00"
            end = "20:00"
            show = "calm"
            """)
        try tree.write("10-fps.toml", "[display]\nfps = 25\n")
        #expect(try tree.load().config.schedule?.windows.count == 2)

        try tree.write("20-hours.toml", "[[schedule.window]]\ndays = \"mon\"\nstart = \"09:00\"\nend = \"10:00\"\nshow = \"off\"\n")
        let replaced = try #require(try tree.load().config.schedule)
        #expect(replaced.windows.count == 1 && replaced.windows[0].action == .off)
        #expect(replaced.outside == .off)   // not the main file's "dim": nothing of its [schedule] is kept

        // An empty [schedule] replaces it with none: the screen is always on.
        try tree.write("30-none.toml", "[schedule]\n")
        let none = try tree.load()
        #expect(none.config.schedule == nil && none.config.display.fps == 25)
    }

    @Test("only *.toml names are read: backups, package leftovers and hidden files are skipped")
    func ignoredNames() throws {
        let tree = try ConfigTree()
        try tree.writeMain("")
        try tree.write("50-site.toml", "[display]\nfps = 30\n")
        for name in ["50-site.toml~", "50-site.toml.dpkg-old", "50-site.toml.dpkg-dist", ".50-site.toml.swp", ".hidden.toml", "README", "site.conf"] {
            try tree.write(name, "this is [not TOML\n")
        }
        let loaded = try tree.load()
        #expect(loaded.dropIns == [tree.dropIns + "/50-site.toml"])
        #expect(loaded.config.display.fps == 30)
    }

    @Test("errors and warnings name the drop-in and the line in it; every file's problems at once")
    func problemsNameTheDropIn() throws {
        let tree = try ConfigTree()
        try tree.writeMain("[display]\nrotation = 45\n")
        let site = try tree.write("50-site.toml", "# site\n[display]\nfps = \"fast\"\n")
        let syntax = try tree.write("60-broken.toml", "[display\n")
        let issues = tree.issues()
        #expect(issues.count == 3, "\(issues)")
        #expect(issues.first?.hasPrefix(tree.main + ":2: display.rotation: ") == true, "\(issues)")
        #expect(issues.contains { $0.hasPrefix(site + ":3: display.fps: ") }, "\(issues)")
        #expect(issues.last?.hasPrefix(syntax + ":1: ") == true, "\(issues)")

        try tree.writeMain("")
        try FileManager.default.removeItem(atPath: syntax)
        try tree.write("50-site.toml", "\n[display]\nfsp = 30\n")
        let loaded = try tree.load()
        #expect(loaded.warnings.map(\.description) == [site + ":3: display.fsp: unknown key, ignored; did you mean display.fps?"])
    }

    @Test("a key's issue names the file that set it last, found by line")
    func issuesFollowTheKey() throws {
        let tree = try ConfigTree()
        try tree.writeMain("[scene]\ndefault = \"heart\"\n")
        let site = try tree.write("50-site.toml", "\n\n[scene]\ndefault = \"nope\"\n")
        let loaded = try tree.load()
        #expect(loaded.issue(key: "scene.default", "x").description == site + ":4: scene.default: x")
        #expect(loaded.issue(key: "display.fps", "x").description == tree.main + ": display.fps: x")
    }

    @Test("no drop-in directory is fine; an unreadable drop-in is an error naming it")
    func missingAndUnreadable() throws {
        let tree = try ConfigTree()
        try tree.writeMain("reduce_motion = true\n")
        try FileManager.default.removeItem(atPath: tree.dropIns)
        let alone = try tree.load()
        #expect(alone.config.reduceMotion && alone.files == [tree.main])

        try FileManager.default.createDirectory(atPath: tree.dropIns, withIntermediateDirectories: false)
        let site = try tree.write("50-site.toml", "[display]\nfps = 30\n")
        SyscallFaults.inject(EACCES, into: "open(\(site))")
        defer { SyscallFaults.remove(matching: "open(\(site))") }
        #expect(tree.issues() == [site + ": cannot read the file: Permission denied"])
    }

    @Test("a missing main file: the defaults under the drop-ins unless the file was asked for")
    func missingMainFile() throws {
        let tree = try ConfigTree()
        try tree.write("50-site.toml", "[display]\nfps = 30\n")
        let loaded = try tree.load(required: false)
        #expect(loaded.file == nil && loaded.files == [tree.dropIns + "/50-site.toml"] && loaded.dropIns == loaded.files)
        #expect(loaded.config.display.fps == 30)
        let issues = tree.issues(required: true)
        #expect(issues.count == 1 && issues[0].hasPrefix(tree.main + ": cannot read the file"), "\(issues)")
    }

    @Test("reading again picks up a new drop-in and forgets a removed one")
    func readAgain() throws {
        let tree = try ConfigTree()
        try tree.writeMain("[display]\nfps = 30\n")
        #expect(try tree.load().config.display.fps == 30)
        let site = try tree.write("50-site.toml", "[display]\nfps = 24\n")
        #expect(try tree.load().config.display.fps == 24)
        try FileManager.default.removeItem(atPath: site)
        #expect(try tree.load().config.display.fps == 30)
    }
}
