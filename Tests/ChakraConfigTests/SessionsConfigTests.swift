import ChakraConfig
import Testing

/// [sessions]: where the session log is and how much it keeps.
@Suite("Configuration: [sessions]")
struct SessionsConfigTests {
    @Test("the defaults: /var/lib/chakra/sessions.log (systemd's StateDirectory=chakra), a year, 4 MiB")
    func defaults() {
        let sessions = ChakraConfig().sessions
        #expect(sessions.file == "/var/lib/chakra/sessions.log")
        #expect(sessions.retentionDays == 365 && sessions.maxSize == 4 << 20)
    }

    @Test("\"\" records nothing, and reads back as \"\"")
    func emptyFileRecordsNothing() throws {
        let loaded = try ConfigParser.parse("[sessions]\nfile = \"\"\n")
        #expect(loaded.config.sessions.file == nil)
        #expect(loaded.config.values(for: "sessions.file")?.first?.value == .string(""))
    }

    @Test("the ends of the ranges are taken")
    func rangeEnds() throws {
        for (days, size) in [(1, 65_536), (3650, 67_108_864)] {
            let config = try ConfigParser.parse("[sessions]\nretention_days = \(days)\nmax_size = \(size)\n").config
            #expect(config.sessions.retentionDays == days && config.sessions.maxSize == size)
        }
    }

    @Test("a drop-in may turn recording off; its bad value names the drop-in and its line")
    func dropIns() throws {
        let tree = try ConfigTree()
        try tree.writeMain("[sessions]\nretention_days = 30\n")
        try tree.write("50-site.toml", "# no records on this kiosk\n[sessions]\nfile = \"\"\n")
        let loaded = try tree.load()
        #expect(loaded.config.sessions.file == nil && loaded.config.sessions.retentionDays == 30)
        let bad = try tree.write("60-bad.toml", "[sessions]\n\nmax_size = 10\n")
        let issues = tree.issues()
        #expect(issues == ["\(bad):3: sessions.max_size: must be in 65536...67108864 (got 10)"])
    }
}
