import ChakraTestSupport
import Foundation

/// The built chakrad and chakractl, and a way to run them.
enum Binaries {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The directory holding both executables: $CHAKRA_BIN_DIR, else the
    /// one this test binary was built into.
    static let directory: String? = {
        var candidates: [String] = []
        if let given = ProcessInfo.processInfo.environment["CHAKRA_BIN_DIR"] { candidates.append(given) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path)
        if let executable = Bundle.main.executablePath { candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent().path) }
        candidates.append(repository.appendingPathComponent(".build/debug").path)
        return candidates.first { directory in
            ["chakrad", "chakractl"].allSatisfy { FileManager.default.isExecutableFile(atPath: directory + "/" + $0) }
        }
    }()

    static var chakrad: String { (directory ?? "") + "/chakrad" }
    static var chakractl: String { (directory ?? "") + "/chakractl" }

    struct Outcome {
        var status: Int32
        var output: String
        var error: String
        /// The program was killed by a signal (`status` is its number).
        var signalled = false
    }

    /// Runs a program to its end (60 s at most).
    static func run(_ path: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        (process.standardOutput, process.standardError) = (out, err)
        try process.run()
        // Read before waiting: a full pipe would block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
                       error: String(decoding: errData, as: UTF8.self), signalled: process.terminationReason == .uncaughtSignal)
    }

    /// chakractl with `arguments`, against `socket`.
    static func ctl(_ socket: String, _ arguments: String...) throws -> Outcome {
        try run(chakractl, ["--socket", socket] + arguments)
    }
}

/// A chakrad running in the background; stopped with SIGTERM.
final class DaemonProcess {
    let process = Process()
    let log: String

    init(_ arguments: [String], log: String, environment: [String: String]? = nil) throws {
        self.log = log
        FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.executableURL = URL(fileURLWithPath: Binaries.chakrad)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    /// Waits until `chakractl ping` answers (the daemon is up).
    func waitUntilAnswering(socket: String, seconds: Double = 60) -> Bool {
        var answered = false
        // A daemon that exited will not answer: stop asking then.
        _ = eventually(within: seconds) {
            answered = (try? Binaries.ctl(socket, "ping"))?.status == 0
            return answered || !process.isRunning
        }
        return answered
    }

    /// SIGTERM, then the exit status.
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
}
