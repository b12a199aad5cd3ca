import Foundation
import Glibc
import Synchronization
import Testing
@testable import ChakraControlServer
import ChakraSystem
import ChakraTestSupport

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
        unlink(path)   // someone removed it, and another process made its own
        let other = try UnixSocket.make()
        defer { Descriptor.close(other) }
        try UnixSocket.bind(other, path: path)
        first.close()
        #expect(info(path) != nil)
        // The lock went with the first: the path is free for the next daemon
        // (the other socket is not listening: stale to it).
        let second = try ControlListener.bind(path: path, mode: 0o660, group: nil)
        #expect(second.replacedStaleSocket)
        second.close()
        #expect(info(path) == nil)
    }

    /// Daemons started at the same moment for one path (threads here, each
    /// with its own open of the lock file, as processes have): exactly one
    /// binds, and every other is told the path is in use. Without the lock,
    /// two would find no one listening; the loser then failed at bind
    /// (EADDRINUSE, a plain error: "running without the control socket")
    /// or removed the winner's socket, just bound, as stale.
    @Test func ofDaemonsBindingAtOnceExactlyOneWins() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/control.sock"
        let contenders = 4
        /// Every contender's outcome, all started at once.
        func contend() -> [Result<ControlListener, ControlSocketError>] {
            let go = Atomic<Int>(0)
            let outcomes = Mutex<[Result<ControlListener, ControlSocketError>]>([])
            let done = DispatchSemaphore(value: 0)
            for _ in 0..<contenders {
                Thread {
                    go.add(1, ordering: .relaxed)
                    while go.load(ordering: .relaxed) < contenders {}   // all at once
                    let outcome = Result { () throws(ControlSocketError) in try ControlListener.bind(path: path, mode: 0o660, group: nil) }
                    outcomes.withLock { $0.append(outcome) }
                    done.signal()
                }.start()
            }
            for _ in 0..<contenders { done.wait() }
            return outcomes.withLock { $0 }
        }
        /// Nobody bound, each told the lock is held: what a child process
        /// that another test in this process is starting causes, holding a
        /// copy of every descriptor, the last winner's lock too, from its
        /// fork until its exec (on a busy machine, long enough to span a
        /// round). Such a round is run again; a lock the product leaked
        /// would be held on every try.
        func lockedByAnOutsider(_ results: [Result<ControlListener, ControlSocketError>]) -> Bool {
            results.allSatisfy { if case .failure(let error) = $0 { error.description.contains("holds its lock") } else { false } }
        }
        var problems: [String] = []
        for round in 0..<300 {
            if round % 3 == 1 { try leaveStaleSocket(at: path) }   // a dead daemon's socket to replace
            var results: [Result<ControlListener, ControlSocketError>] = []
            _ = eventually(within: 10) {
                results = contend()
                return !lockedByAnOutsider(results)
            }
            let winners = results.compactMap { try? $0.get() }
            let losers = results.compactMap { if case .failure(let error) = $0 { error } else { nil } }
            if winners.count != 1 { problems.append("round \(round): \(winners.count) bound") }
            for loser in losers where !loser.inUse { problems.append("round \(round): \(loser)") }
            // The winner's socket is there and answers.
            if winners.count == 1, (try? TestClient(path: path)) == nil { problems.append("round \(round): the winner's socket is gone") }
            for winner in winners { winner.close() }
            if !problems.isEmpty { break }
        }
        #expect(problems.isEmpty, "\(problems)")
    }

    /// The lock is taken before the path is looked at: while another daemon
    /// holds it, even a stale socket file is left alone, and the refusal
    /// says the path is in use (exit 75), not an error to run on with.
    @Test func aHeldLockKeepsThePathForItsHolder() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/control.sock"
        try leaveStaleSocket(at: path)
        let held = try #require(try FileLock.take(ControlListener.lockPath(for: path)))
        let refused = bindFailure(path)
        #expect(refused?.inUse == true)
        #expect(refused?.description == "control socket '\(path)': another chakrad holds its lock '\(path).lock' (it is starting)")
        #expect(info(path).map { $0.st_mode & S_IFMT } == S_IFSOCK, "the socket file was touched")
        held.release()
        let listener = try ControlListener.bind(path: path, mode: 0o660, group: nil)
        #expect(listener.replacedStaleSocket)
        listener.close()
        // The lock file stays (empty): removing it would open the race again.
        #expect(info(path + ".lock").map { $0.st_mode & S_IFMT } == S_IFREG)
        #expect(bindFailure(path) == nil)
    }

    @Test func aLockFileThatIsNotARegularFileIsRefused() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/control.sock"
        try FileManager.default.createDirectory(atPath: path + ".lock", withIntermediateDirectories: false)
        #expect(refusal(path) == "control socket '\(path)': its lock file '\(path).lock' is a directory; not using it")
        rmdir(path + ".lock")
        symlink(directory.path + "/elsewhere", path + ".lock")
        #expect(refusal(path) == "control socket '\(path)': its lock file '\(path).lock' is a symbolic link; not using it")
        #expect(info(directory.path + "/elsewhere") == nil, "the link was followed")
        unlink(path + ".lock")
        mkfifo(path + ".lock", 0o600)
        #expect(refusal(path) == "control socket '\(path)': its lock file '\(path).lock' is not a regular file; not using it")
        #expect(bindFailure(path)?.inUse == false)
        #expect(info(path) == nil, "no socket made")
    }

    @Test func socketActivationNeedsOurPIDAndDescriptors() throws {
        #expect(try ControlListener.activated(environment: [:]) == nil)
        #expect(try ControlListener.activated(environment: ["LISTEN_PID": "1", "LISTEN_FDS": "1"]) == nil)
        #expect(try ControlListener.activated(environment: ["LISTEN_PID": "\(getpid())", "LISTEN_FDS": "0"]) == nil)
        #expect(try ControlListener.activated(environment: ["LISTEN_PID": "\(getpid())"]) == nil)
    }
}
