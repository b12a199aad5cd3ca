import Glibc
import Testing
@testable import ChakraControlServer

/// A connection's output queue: replies do not count against the event
/// bound, whatever order bytes leave in.
@Suite("Client output queue")
struct ClientConnectionTests {
    @Test func repliesAreNotCountedAsEvents() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        let client = ClientConnection(id: 1, descriptor: fds[0], maxLine: 1024, now: 0)
        let event = String(repeating: "e", count: 999) + "\n"
        let reply = String(repeating: "r", count: 4 << 20) + "\n"   // a snapshot
        for _ in 0..<100 { client.queue(event, isReply: false) }
        client.queue(reply, isReply: true)
        client.queue(event, isReply: false)
        #expect(client.pendingOutput == 101 * 1000 + reply.utf8.count)
        #expect(client.queuedEventBytes == 101 * 1000)
        client.flush()   // the peer does not read: only the socket buffer takes some
        let sentSoFar = 101 * 1000 + reply.utf8.count - client.pendingOutput
        #expect(sentSoFar > 0)
        // What left was events first, then part of the reply: only unsent events count.
        #expect(client.queuedEventBytes == max(0, 100 * 1000 - sentSoFar) + 1000)
        // The peer reads everything: nothing waits.
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var received = 0
        while client.pendingOutput > 0 {
            let n = recv(fds[1], &buffer, buffer.count, 0)
            #expect(n > 0)
            received += n
            client.flush()
        }
        #expect(client.queuedEventBytes == 0 && !client.dead)
        while received < 101 * 1000 + reply.utf8.count {
            let n = recv(fds[1], &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { break }
            received += n
        }
        #expect(received == 101 * 1000 + reply.utf8.count)
    }

    @Test func aPeerGoneMarksTheConnectionDead() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]) }
        close(fds[1])
        let client = ClientConnection(id: 2, descriptor: fds[0], maxLine: 1024, now: 0)
        client.queue("{\"ok\":true}\n", isReply: true)
        client.flush()
        #expect(client.dead)
    }
}
