import ChakraSystem
import Glibc
import Synchronization
import Testing

/// chakrad's own log lines: journald's priority prefixes when standard
/// error is the journal's stream, a readable line otherwise, and nothing
/// formed below the level.
@Suite("Log lines")
struct StreamLogTests {
    /// A pipe whose write end a StreamLog writes to; the read end gives
    /// back what was written.
    final class Pipe {
        let read: Int32, write: Int32
        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            (read, write) = (ends[0], ends[1])
        }
        deinit { close(read); close(write) }

        /// JOURNAL_STREAM's form of the write end: "device:inode".
        var journalStream: String {
            var status = stat()
            fstat(write, &status)
            return "\(status.st_dev):\(status.st_ino)"
        }

        func drain() -> String {
            var bytes = [UInt8](repeating: 0, count: 65536)
            let count = Glibc.read(read, &bytes, bytes.count)
            return String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self)
        }
    }

    @Test("JOURNAL_STREAM names the journal only when it is this descriptor's device and inode")
    func journalDetection() throws {
        let pipe = try Pipe()
        let other = try Pipe()
        #expect(StreamLog.isJournal(pipe.write, journalStream: pipe.journalStream))
        #expect(!StreamLog.isJournal(pipe.write, journalStream: other.journalStream))
        #expect(!StreamLog.isJournal(pipe.write, journalStream: nil))
        for garbage in ["", ":", "1", "1:2:3", "a:b", "-1:5", "\(pipe.journalStream)x"] {
            #expect(!StreamLog.isJournal(pipe.write, journalStream: garbage), "\(garbage)")
        }
        #expect(!StreamLog.isJournal(-1, journalStream: pipe.journalStream))
    }

    @Test("to the journal: each line of a message with its level's syslog priority, no time, no name")
    func journalLines() throws {
        let pipe = try Pipe()
        let log = StreamLog(descriptor: pipe.write, level: .trace, toJournal: true)
        let logger = Logger(label: "chakrad", sink: log)
        logger.warning("config: unknown key")
        logger.critical("invalid configuration; not starting:\nline 3: bad\nline 4: worse")
        logger.info("started")
        logger.debug("detail")
        #expect(pipe.drain() == """
            <4>config: unknown key
            <2>invalid configuration; not starting:
            <2>line 3: bad
            <2>line 4: worse
            <6>started
            <7>detail

            """)
        #expect(Logger.Level.allCases.map(\.syslogPriority) == [7, 7, 6, 5, 4, 3, 2])
    }

    @Test("to a person: the local time, the level and the label")
    func readableLines() throws {
        let pipe = try Pipe()
        let logger = Logger(label: "chakra.text", sink: StreamLog(descriptor: pipe.write, level: .info, toJournal: false))
        logger.notice("no catalogs")
        let line = pipe.drain()
        let match = try #require(line.wholeMatch(of: /(\d{4})-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} notice chakra\.text: no catalogs\n/))
        #expect(Int(match.1)! >= 2024)
    }

    @Test("below the level nothing is written, and the message is not even formed")
    func levelFilter() throws {
        let pipe = try Pipe()
        let logger = Logger(label: "chakrad", sink: StreamLog(descriptor: pipe.write, level: .warning, toJournal: true))
        let formed = Atomic<Int>(0)
        func message(_ text: String) -> String { formed.wrappingAdd(1, ordering: .relaxed); return text }
        logger.info(message("quiet"))
        logger.debug(message("quieter"))
        logger.error(message("loud"))
        #expect(pipe.drain() == "<3>loud\n")
        #expect(formed.load(ordering: .relaxed) == 1)
        #expect(Logger.Level(rawValue: "notice") == .notice && Logger.Level.trace < .critical)
    }
}
