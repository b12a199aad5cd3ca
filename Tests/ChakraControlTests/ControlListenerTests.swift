import Foundation
import Glibc
import Testing
@testable import ChakraControlServer
import ChakraSystem

/// Making the socket file: permissions, group, stale files, what is never
/// replaced or followed.
@Suite("Control socket file", .serialized)
struct ControlListenerTests {
    private func info(_ path: String) -> stat? {
        var s = stat()
        return lstat(path, &s) == 0 ? s : nil
    }

    private func refusal(_ path: String) -> String? {
        do {
            let listener = try ControlListener.bind(path: path, mode: 0o660, group: nil)
            listener.close()
            return nil
        } catch {
            return error.description
        }
    }

    @Test func madeWithItsModeAndParentDirectory() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/a/b/control.sock"
        let listener = try ControlListener.bind(path: path, mode: 0o600, group: nil)
        let socketInfo = try #require(info(path))
        #expect(socketInfo.st_mode & S_IFMT == S_IFSOCK)
        #expect(socketInfo.st_mode & 0o777 == 0o600)
        #expect(try #require(info(directory.path + "/a/b")).st_mode & 0o777 == 0o755)
        listener.close()
        #expect(info(path) == nil, "the socket file is removed on close")

        let open = try ControlListener.bind(path: path, mode: 0o666, group: nil)
        #expect(try #require(info(path)).st_mode & 0o777 == 0o666)
        open.close()
    }

    @Test func groupIsSetOrRefusedByName() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/control.sock"
        let ownGroup = try #require(getgrgid(getgid()))
        let name = String(cString: ownGroup.pointee.gr_name)
        let listener = try ControlListener.bind(path: path, mode: 0o660, group: name)
        #expect(try #require(info(path)).st_gid == getgid())
        listener.close()
        #expect(refusalWithGroup(path, "no-such-group-chakra") == "control socket '\(path)': no group named 'no-such-group-chakra' ([control] group)")
        #expect(info(path) == nil, "no socket is left behind by a refusal")
    }

    private func refusalWithGroup(_ path: String, _ group: String) -> String? {
        do {
            _ = try ControlListener.bind(path: path, mode: 0o660, group: group)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aStaleSocketIsReplacedALiveOneIsNot() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/control.sock"
        // A socket file nobody listens on: a daemon that died.
        try leaveStaleSocket(at: path)
        #expect(info(path).map { $0.st_mode & S_IFMT } == S_IFSOCK)
        let first = try ControlListener.bind(path: path, mode: 0o660, group: nil)
        #expect(first.replacedStaleSocket)
        // Listening now: a second daemon must not take it over.
        #expect(refusal(path) == "control socket '\(path)': another process is listening there (another chakrad?)")
        #expect(info(path) != nil)
        // The first one's socket is still reachable.
        #expect(try TestClient(path: path).fd >= 0)
        first.close()
        // Closed cleanly, the file went with it: nothing stale next time.
        let second = try ControlListener.bind(path: path, mode: 0o660, group: nil)
        #expect(!second.replacedStaleSocket)
        second.close()
    }

    @Test func otherFilesAreNeverReplacedOrFollowed() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.path + "/precious"
        try "keep me".write(toFile: target, atomically: false, encoding: .utf8)
        let link = directory.path + "/link.sock"
        symlink(target, link)
        #expect(refusal(link) == "control socket '\(link)': the path exists and is a symbolic link; not replacing it")
        let dangling = directory.path + "/dangling.sock"
        symlink(directory.path + "/nothing", dangling)
        #expect(refusal(dangling)?.contains("is a symbolic link") == true)
        #expect(info(directory.path + "/nothing") == nil)
        #expect(refusal(target) == "control socket '\(target)': the path exists and is not a socket; not replacing it")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me")
        #expect(refusal(directory.path)?.contains("is a directory") == true)
        #expect(refusal(target + "/sub.sock")?.contains("is not a directory") == true)
        #expect(refusal("relative.sock")?.contains("absolute path") == true)
        #expect(refusal("/" + String(repeating: "x", count: 120))?.contains("shorter than 108 bytes") == true)
    }

    /// Closing removes only the file this listener made.
    @Test func closeLeavesAnotherDaemonsSocket() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/control.sock"
        let first = try ControlListener.bind(path: path, mode: 0o660, group: nil)
        unlink(path)   // someone removed it, and a new daemon made its own
        let second = try ControlListener.bind(path: path, mode: 0o660, group: nil)
        first.close()
        #expect(info(path) != nil)
        second.close()
        #expect(info(path) == nil)
    }

    @Test func socketActivationNeedsOurPIDAndDescriptors() throws {
        #expect(try ControlListener.activated(environment: [:]) == nil)
        #expect(try ControlListener.activated(environment: ["LISTEN_PID": "1", "LISTEN_FDS": "1"]) == nil)
        #expect(try ControlListener.activated(environment: ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "0"]) == nil)
        #expect(try ControlListener.activated(environment: ["LISTEN_PID": "\(getpid())"]) == nil)
    }
}
