import ChakraSessions
import ChakraSystem
import Foundation
import Glibc

/// A record whose fields all depend on `index`, so two records differ.
func sampleRecord(_ index: Int, startedAt: Double = 1_773_480_612.345) -> SessionRecord {
    let patterns = ["box", "6-4-8", "4-7-8", "coherent"]
    let endings = ["completed", "cancelled", "restarted", "timed_out", "interrupted", "stopped"]
    let states = ["inhale", "hold", "exhale", "completed"]
    let completed = index % 3 == 0
    return SessionRecord(startedAt: startedAt + Double(index) * 61.5, duration: 30 + Double(index % 97) * 1.25,
                         outcome: completed ? .completed : .abandoned, ending: completed ? "completed" : endings[1 + index % 5],
                         pattern: patterns[index % patterns.count], furthestState: completed ? "completed" : states[index % 3],
                         breathedSeconds: Double(index % 50) + 0.125, holdSeconds: Double(index % 72), lifts: index % 7)
}

/// The log lines of `records`, one after another.
func encoded(_ records: [SessionRecord]) throws -> [UInt8] {
    var bytes: [UInt8] = []
    for record in records { bytes += try SessionRecordCodec.encode(record) }
    return bytes
}

/// A fresh directory under /tmp, removed by `remove()`.
struct ScratchDirectory {
    let path: String

    init(_ name: String = #function) {
        let tag = name.filter { $0.isLetter || $0.isNumber }.prefix(40)
        path = "/tmp/chakra-sessions-\(tag)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(path, 0o755)
    }

    var log: String { path + "/sessions.log" }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    func write(_ bytes: [UInt8], to file: String? = nil) {
        FileManager.default.createFile(atPath: file ?? log, contents: Data(bytes))
    }

    func bytes(of file: String? = nil) -> [UInt8] {
        FileManager.default.contents(atPath: file ?? log).map { [UInt8]($0) } ?? []
    }

    func exists(_ file: String) -> Bool { FileManager.default.fileExists(atPath: file) }
}
