import ChakraConfig
import ChakraSystem
import Foundation
import Glibc
import Testing

/// Reading chakra.toml when the system says no, through the funnel's
/// injected faults.
@Suite("Configuration file under injected faults")
struct ConfigFaultTests {
    private func file(_ text: String) -> String {
        let path = "/tmp/chakra-config-fault-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).toml"
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    @Test("EACCES at open: the error names the file and the reason")
    func unreadable() throws {
        let path = file("reduce_motion = true\n")
        defer { unlink(path) }
        SyscallFaults.inject(EACCES, into: "open(\(path))")
        defer { SyscallFaults.remove(matching: "open(\(path))") }
        do {
            _ = try ConfigParser.load(path: path)
            Issue.record("read through an injected EACCES")
        } catch {
            #expect(error.description.contains(path) && error.description.contains("cannot read the file: Permission denied"), "\(error)")
        }
    }

    @Test("EINTR at open is retried and the file reads as it is")
    func interrupted() throws {
        let path = file("reduce_motion = true\n")
        defer { unlink(path) }
        SyscallFaults.inject(EINTR, into: "open(\(path))", times: 2)
        defer { SyscallFaults.remove(matching: "open(\(path))") }
        let loaded = try ConfigParser.load(path: path)
        #expect(loaded.config.reduceMotion)
        #expect(SyscallFaults.pending(matching: "open(\(path))") == 0)
    }
}
