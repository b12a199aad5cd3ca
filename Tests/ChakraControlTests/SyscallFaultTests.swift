import ChakraControl
import ChakraSystem
import Foundation
import Glibc
import Testing
@testable import ChakraControlServer

/// Error paths of the control socket, driven through the real code by
/// failing chosen calls in the funnel (`SyscallFaults`): no mock of the
/// kernel. Each rule names the test's own path or descriptor, so tests
/// running at the same time are not hit.
@Suite("Control socket under injected faults")
struct SyscallFaultTests {
    @Test("EACCES at bind: a clear error, no socket file left, and the next bind works")
    func bindRefused() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/control.sock"
        SyscallFaults.inject(EACCES, into: "bind(\(path))")
        defer { SyscallFaults.remove(matching: "bind(\(path))") }
        #expect(bindFailure(path)?.description == "control socket '\(path)': bind(\(path)) failed: Permission denied")
        #expect(access(path, F_OK) != 0, "a socket file was left behind")
        #expect(SyscallFaults.pending(matching: "bind(\(path))") == 0)
        #expect(bindFailure(path) == nil)
    }

    /// Someone bound the path between the stale check and bind (a process
    /// that takes no lock): in use, exit 75, not "running without the socket".
    @Test("EADDRINUSE at bind: the path is in use")
    func bindInUse() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/control.sock"
        SyscallFaults.inject(EADDRINUSE, into: "bind(\(path))")
        defer { SyscallFaults.remove(matching: "bind(\(path))") }
        let failure = bindFailure(path)
        #expect(failure?.inUse == true)
        #expect(failure?.description == "control socket '\(path)': another process bound it just now (another chakrad?)")
        #expect(SyscallFaults.pending(matching: "bind(\(path))") == 0)
        #expect(bindFailure(path) == nil)
    }

    /// The lock file cannot be opened (a directory not writable, say): a
    /// plain error naming it, the socket not made.
    @Test("EACCES opening the lock file: a clear error, no socket")
    func lockFileRefused() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/control.sock"
        SyscallFaults.inject(EACCES, into: "open(\(path).lock)")
        defer { SyscallFaults.remove(matching: "open(\(path).lock)") }
        let failure = bindFailure(path)
        #expect(failure?.inUse == false)
        #expect(failure?.description == "control socket '\(path)': cannot lock '\(path).lock': Permission denied")
        #expect(access(path, F_OK) != 0)
    }

    @Test("EINTR is retried: a listen interrupted three times still listens")
    func interruptedListen() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/control.sock"
        SyscallFaults.inject(EINTR, into: "listen(\(path))", times: 3)
        defer { SyscallFaults.remove(matching: "listen(\(path))") }
        let listener = try ControlListener.bind(path: path, mode: 0o660, group: nil)
        defer { listener.close() }
        #expect(SyscallFaults.pending(matching: "listen(\(path))") == 0, "the faults were not reached")
        #expect(try TestClient(path: path).fd >= 0)
    }

    @Test("out of descriptors at accept (EMFILE): the server pauses accepting, then serves the client")
    func acceptOutOfDescriptors() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let rule = "accept(fd \(running.server.listener.descriptor))"
        SyscallFaults.inject(EMFILE, into: rule)
        defer { SyscallFaults.remove(matching: rule) }
        let client = try running.client()
        client.send(#"{"id":1,"cmd":"ping"}"# + "\n")
        let line = client.readLine(timeout: 10)
        #expect(line?.contains(#""pong":true"#) == true, "no answer after the failed accept: \(String(describing: line))")
        #expect(SyscallFaults.pending(matching: rule) == 0)
    }

    @Test("EAGAIN from the probe's connect means someone listens: the socket is not taken over")
    func busyListenerIsNotReplaced() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/control.sock"
        try leaveStaleSocket(at: path)
        SyscallFaults.inject(EAGAIN, into: "connect(\(path))")
        defer { SyscallFaults.remove(matching: "connect(\(path))") }
        #expect(bindFailure(path)?.inUse == true, "a socket with a full backlog was taken over")
        #expect(access(path, F_OK) == 0, "the other daemon's socket file was removed")
    }
}
