import ChakraPNG
import Foundation
import Glibc
import Testing

/// The files the binaries write for a person (`chakractl snapshot FILE`,
/// `chakrad render -o FILE`), run as a user runs them: what is not a
/// regular file is refused with a clear message and left alone, and a
/// write the system refuses leaves the old file as it was, exit 1.
@Suite("files written by chakrad and chakractl", .serialized, .enabled(if: Binaries.directory != nil, "build chakrad and chakractl first"))
struct FileTargetsEndToEndTests {
    private func temporaryDirectory() -> String {
        var template = Array("/tmp/chakra-files-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    private func names(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    private func kind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// `program arguments` with a file size limit of 1 KiB and SIGXFSZ
    /// ignored (inherited across exec): a write past it fails with EFBIG,
    /// a real I/O failure with no fault injected.
    private func runLimited(_ program: String, _ arguments: [String]) throws -> Binaries.Outcome {
        try Binaries.run("/bin/sh", ["-c", "trap '' XFSZ; ulimit -f 2; exec \"$0\" \"$@\"", program] + arguments)
    }

    @Test func renderKeepsTheOldFileWhenTheWriteFails() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/frame.png"
        let old = Data("the old picture".utf8)
        try old.write(to: URL(fileURLWithPath: path))
        let render = try runLimited(Binaries.chakrad, ["render", "--scene", "drift", "--size", "640x360", "--time", "3", "-o", path])
        #expect(render.status == 1, "\(render)")
        #expect(render.error.contains("File too large"), "\(render)")
        #expect(FileManager.default.contents(atPath: path) == old, "the old file was changed or removed")
        #expect(names(in: directory) == ["frame.png"])
    }

    @Test func renderRefusesAFIFO() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/pipe"
        #expect(mkfifo(path, 0o600) == 0)
        let render = try Binaries.run(Binaries.chakrad, ["render", "--size", "64x36", "-o", path])
        #expect(render.status == 64, "\(render)")
        #expect(render.error.contains("it is a FIFO, not a regular file"), "\(render)")
        #expect(kind(path) == S_IFIFO)
    }

    @Test func snapshotRefusesWhatIsNotAFileAndKeepsTheOldOneOnAFullDisk() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/chakra.toml"
        try "[display]\nbacklight = \"none\"\n".write(toFile: config, atomically: false, encoding: .utf8)
        let socket = directory + "/control.sock"
        let daemon = try DaemonProcess(["run", "--config", config, "--output", "headless", "--headless-size", "320x180",
                                        "--vt", "none", "--socket", socket], log: directory + "/chakrad.log")
        defer { _ = daemon.stop() }
        #expect(daemon.waitUntilAnswering(socket: socket), "chakrad did not answer:\n\(daemon.output)")
        let work = directory + "/out"
        #expect(mkdir(work, 0o700) == 0)

        // A FIFO and a directory: refused before anything is asked (exit 2), left as they were.
        #expect(mkfifo(work + "/pipe", 0o600) == 0)
        let fifo = try Binaries.ctl(socket, "snapshot", work + "/pipe")
        #expect(fifo.status == 2 && fifo.error.contains("\(work)/pipe: it is a FIFO, not a regular file"), "\(fifo)")
        #expect(kind(work + "/pipe") == S_IFIFO)
        #expect(mkdir(work + "/pictures", 0o700) == 0)
        let folder = try Binaries.ctl(socket, "snapshot", work + "/pictures")
        #expect(folder.status == 2 && folder.error.contains("it is a directory, not a regular file"), "\(folder)")
        #expect(kind(work + "/pictures") == S_IFDIR)

        // A file size limit: the write fails (EFBIG), exit 1, the old file as it was.
        let path = work + "/shot.png"
        let old = Data("the old picture".utf8)
        try old.write(to: URL(fileURLWithPath: path))
        let limited = try runLimited(Binaries.chakractl, ["--socket", socket, "snapshot", path])
        #expect(limited.status == 1, "\(limited)")
        #expect(limited.error.contains("File too large"), "\(limited)")
        #expect(FileManager.default.contents(atPath: path) == old)
        #expect(names(in: work) == ["pictures", "pipe", "shot.png"], "no temporary file left")

        // Unlimited: written.
        let written = try Binaries.ctl(socket, "snapshot", path)
        #expect(written.status == 0, "\(written)")
        #expect(try PNGImage.read(from: path).width == 320)
        #expect(names(in: work) == ["pictures", "pipe", "shot.png"])
    }
}
