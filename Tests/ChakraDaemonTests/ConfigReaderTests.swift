import ChakraConfig
import Dispatch
import Foundation
import Synchronization
import Testing
@testable import ChakraDaemon

/// The reader SIGHUP and `reload` hand their reads to: the caller goes on
/// at once, a read answers once, and one not done by the deadline is given
/// up and its late result dropped.
@Suite("ConfigReader: reads off the loop and the control thread, bounded in time")
struct ConfigReaderTests {
    /// The outcomes a reader gave, as they came.
    final class Outcomes: Sendable {
        private let list = Mutex<[ConfigReader.Outcome]>([])
        let arrived = DispatchSemaphore(value: 0)

        func add(_ outcome: ConfigReader.Outcome) {
            list.withLock { $0.append(outcome) }
            arrived.signal()
        }

        var all: [ConfigReader.Outcome] { list.withLock { $0 } }
    }

    @Test("a read is answered with the files as read, and the caller does not wait for it")
    func answered() throws {
        let release = DispatchSemaphore(value: 0)
        let reader = ConfigReader(file: "/etc/chakra/chakra.toml", deadline: 10) { () throws(ConfigError) in
            release.wait()
            return LoadedConfig(config: ChakraConfig(), file: "/etc/chakra/chakra.toml")
        }
        let outcomes = Outcomes()
        let asked = Date()
        reader.read(outcomes.add)
        #expect(Date().timeIntervalSince(asked) < 0.5, "read(_:) returned before the read was done")
        #expect(outcomes.all.isEmpty)
        release.signal()
        #expect(outcomes.arrived.wait(timeout: .now() + 5) == .success)
        guard case .read(.success(let loaded))? = outcomes.all.first else { Issue.record("\(outcomes.all)"); return }
        #expect(loaded.file == "/etc/chakra/chakra.toml")
    }

    @Test("a read not done by the deadline is answered overdue, once; its late result is dropped")
    func overdue() throws {
        let release = DispatchSemaphore(value: 0)
        let reader = ConfigReader(file: "/etc/chakra/chakra.toml", deadline: 0.2) { () throws(ConfigError) in
            release.wait()
            return LoadedConfig(config: ChakraConfig())
        }
        let outcomes = Outcomes()
        let asked = Date()
        reader.read(outcomes.add)
        #expect(outcomes.arrived.wait(timeout: .now() + 5) == .success)
        #expect(Date().timeIntervalSince(asked) < 2)
        guard case .overdue(let overdue)? = outcomes.all.first else { Issue.record("\(outcomes.all)"); return }
        #expect(overdue.description == "the configuration files were not read within 0.2 s; the read was given up and nothing was changed")
        #expect(overdue.error.description == "/etc/chakra/chakra.toml: " + overdue.description)

        // The read ends after all: nothing more is answered.
        release.signal()
        #expect(outcomes.arrived.wait(timeout: .now() + 0.5) == .timedOut)
        #expect(outcomes.all.count == 1)
    }

    @Test("reads run one at a time, in the order asked; one stuck read makes the next ones overdue, not stuck")
    func oneAtATime() throws {
        let release = DispatchSemaphore(value: 0)
        let reads = Mutex(0)
        let reader = ConfigReader(deadline: 0.3) { () throws(ConfigError) in
            let number = reads.withLock { count in
                count += 1
                return count
            }
            if number == 1 { release.wait() }
            return LoadedConfig(config: ChakraConfig(), file: "read \(number)")
        }
        let first = Outcomes(), second = Outcomes()
        reader.read(first.add)
        reader.read(second.add)
        #expect(first.arrived.wait(timeout: .now() + 5) == .success && second.arrived.wait(timeout: .now() + 5) == .success)
        guard case .overdue? = first.all.first, case .overdue? = second.all.first else { Issue.record("\(first.all) \(second.all)"); return }
        #expect(reads.withLock { $0 } == 1, "the second read waits for the first")

        release.signal()
        let third = Outcomes()
        reader.read(third.add)
        #expect(third.arrived.wait(timeout: .now() + 5) == .success)
        guard case .read(.success(let loaded))? = third.all.first else { Issue.record("\(third.all)"); return }
        #expect(loaded.file == "read 3")
    }
}
