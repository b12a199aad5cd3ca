import Testing
@testable import ChakraConfig

/// The pieces: key lines, command-line overrides, value grammars.
@Suite("Configuration parts")
struct ConfigPartsTests {
    @Test func keyLinesFollowTablesDottedAndQuotedKeys() throws {
        let lines = try TOML.read("""
            top = 1
            [display]   # a comment
              fps = 30
            "quoted.key" = 2
            low_power.fps = 10
            text = \"\"\"
            fake = 3
            \"\"\"
            [[ list ]]
            item = 4
            [ 'spiral' ]
            head_size = { a = 1, b = 2 }
            """).lines
        #expect(lines.line(of: "top") == 1)
        #expect(lines.line(of: "display") == 2)
        #expect(lines.line(of: "display.fps") == 3)
        #expect(lines.line(of: "display.quoted.key") == 4)
        #expect(lines.line(of: "display.low_power.fps") == 5)
        #expect(lines.line(of: "display.text") == 6)
        #expect(lines.lines["display.fake"] == nil)        // inside a multi-line string
        #expect(lines.line(of: "list.item") == 10)
        #expect(lines.line(of: "spiral.head_size") == 12)
        #expect(lines.line(of: "spiral.head_size.b") == 12) // inside an inline table: its key's line
        #expect(lines.line(of: "spiral.unknown") == 11)     // not there: its table's line
        #expect(lines.line(of: "nowhere.at.all") == nil)
    }

    @Test func overridesBeatTheFile() {
        var file = ChakraConfig()
        file.display.fps = 30
        file.display.rotation = 90
        file.reduceMotion = false
        file.control.socket = "/run/a.sock"
        var overrides = ConfigOverrides()
        #expect(overrides.apply(to: file) == file)
        #expect(overrides.keys.isEmpty)
        overrides.fps = 50
        overrides.reduceMotion = true
        overrides.socket = ""
        overrides.mode = DisplayModeSetting(width: 640, height: 480)
        overrides.vt = .disabled
        let c = overrides.apply(to: file)
        #expect(c.display.fps == 50 && c.display.rotation == 90 && c.reduceMotion)
        #expect(c.control.socket == nil)
        #expect(c.display.mode == DisplayModeSetting(width: 640, height: 480) && c.display.vt == .disabled)
        #expect(overrides.keys == ["display.mode", "display.fps", "display.vt", "reduce_motion", "control.socket"])
    }

    @Test func displayModes() throws {
        #expect(try DisplayModeSetting.parse("1920x1080").get() == DisplayModeSetting(width: 1920, height: 1080))
        #expect(try DisplayModeSetting.parse("800X480@60").get() == DisplayModeSetting(width: 800, height: 480, refresh: 60))
        #expect(DisplayModeSetting(width: 800, height: 480, refresh: 60).description == "800x480@60")
        #expect(DisplayModeSetting(width: 800, height: 480, refresh: 59.94).description == "800x480@59.94")
        for bad in ["1920", "0x10", "10x99999", "10x10@0", "10x10@fast", "1x1@2@3", "axb"] {
            #expect((try? DisplayModeSetting.parse(bad).get()) == nil, "\(bad)")
        }
    }

    @Test func terminals() {
        #expect(VirtualTerminalChoice(parsing: "auto") == .auto)
        #expect(VirtualTerminalChoice(parsing: "NONE") == .disabled)
        #expect(VirtualTerminalChoice(parsing: "63") == .number(63))
        #expect(VirtualTerminalChoice(parsing: "0") == nil)
        #expect(VirtualTerminalChoice(parsing: "tty1") == nil)
    }

    @Test func languageCodes() {
        for good in ["en", "de", "fra", "pt-BR", "zh_Hant", "sr-Latn-RS"] { #expect(LanguageCode.isValid(good), "\(good)") }
        for bad in ["", "e", "EN", "english", "en-", "en-B", "de/../x", "en us", "ñe"] { #expect(!LanguageCode.isValid(bad), "\(bad)") }
    }

    @Test func socketPaths() {
        #expect(SocketPath.problem("") == nil)
        #expect(SocketPath.problem("/run/chakra/control.sock") == nil)
        #expect(SocketPath.problem("relative.sock") != nil)
        #expect(SocketPath.problem("/run/chakra/") != nil)
        #expect(SocketPath.problem("/" + String(repeating: "a", count: 106)) == nil)
        #expect(SocketPath.problem("/" + String(repeating: "a", count: 107)) != nil)
    }

    @Test func typoSuggestions() {
        #expect(ConfigParser.closestKey(to: "display.rotaton") == "display.rotation")
        #expect(ConfigParser.closestKey(to: "dispaly") == "display")
        #expect(ConfigParser.closestKey(to: "completely.different") == nil)
        #expect(ConfigParser.editDistance("", "abc") == 3)
        #expect(ConfigParser.editDistance("kitten", "sitting") == 3)
        #expect(ConfigParser.closestKey(to: "display.rotationxx") == "display.rotation")
        #expect(ConfigParser.closestKey(to: "display.rotationxxx") == nil)
        #expect(ConfigParser.editDistance(Array("kitten".utf8), Array("sitting".utf8), atMost: 2) == nil)
        #expect(ConfigParser.editDistance(Array("kitten".utf8), Array("sitting".utf8), atMost: 3) == 3)
    }

    /// A key as long as a request line (a client's `get`) is no suggestion
    /// and no section: answered by lengths alone (176 ms a 16 KB key before).
    @Test func longKeysAreNotTypos() {
        let long = String(repeating: "display.", count: 2048)
        #expect(ConfigParser.closestKey(to: long) == nil)
        #expect(ChakraConfig().values(for: long) == nil)
        #expect(ChakraConfig().values(for: "display.")  == nil)
        #expect(ChakraConfig().values(for: "display")?.isEmpty == false)
        #expect(ChakraConfig().values(for: "display.rotation")?.count == 1)
        #expect(ChakraConfig().values(for: "display.rot") == nil)
    }
}
