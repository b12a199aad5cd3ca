import ChakraControl
import Foundation
import Glibc
import ChakraSystem
import ChakraTestSupport
import Synchronization
import Testing
@testable import ChakraControlServer

/// The real server on a socket in a temporary directory, against a fake
/// handler: requests and replies, bad input, limits.
@Suite("Control server", .serialized)
struct ControlServerTests {
    @Test func answersInOrderOnOneConnection() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let client = try running.client()
        #expect(client.request(#"{"id": 1, "cmd": "ping"}"#) == ["id": 1, "ok": true, "result": ["pong": true]])
        // Three requests in one write: three replies, in order.
        client.send("{\"id\":\"a\",\"cmd\":\"ping\"}\n{\"id\":\"b\",\"cmd\":\"status\"}\n{\"id\":\"c\",\"cmd\":\"pause\"}\n")
        let ids = (0..<3).compactMap { _ in client.readLine().flatMap { try? JSONValue.parse(Array($0.utf8)).get()["id"] } }
        #expect(ids == ["a", "b", "c"])
        #expect(client.request(#"{"cmd": "status"}"#)?["result"]?["clients"] == 1)
    }

    @Test func aRequestSentOneByteAtATimeIsOneRequest() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let client = try running.client(), fence = try running.client()
        for byte in Array("{\"id\": 3, \"cmd\": \"ping\"}\n".utf8) {
            client.send([byte])
            // The byte is read before the server answers a ping sent after
            // it (one turn of its loop sees both): each byte is a read of its own.
            #expect(fence.request(#"{"cmd":"ping"}"#)?["ok"] == true)
        }
        #expect(client.readLine() == #"{"id":3,"ok":true,"result":{"pong":true}}"#)
    }

    @Test func badInputIsAnsweredAndTheConnectionKept() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let client = try running.client()
        #expect(client.request("this is not json")?["error"]?["code"] == "bad_json")
        #expect(client.request(#"{"id": 4, "cmd": "fly"}"#)?["error"]?["code"] == "unknown_command")
        #expect(client.request(#"{"id": 5, "cmd": "ping", "extra": 1}"#)?["error"]?["message"] == "unknown argument 'extra' for 'ping'; it takes none")
        #expect(client.request(#"{"id": 6, "cmd": "switch", "scene": 1}"#)?["error"]?["code"] == "bad_argument")
        #expect(client.request(#"{"id": 7, "cmd": "switch", "scene": "hart"}"#)?["error"]?["code"] == "unknown_scene")
        #expect(client.request(#"{"id": 8, "cmd": "ping"}"#)?["ok"] == true)
        // Refused requests never reached the handler.
        #expect(running.handler.state.withLock { $0.handled } == [.switchScene(SceneSwitch(scene: "hart")), .ping])
    }

    @Test func aLineTooLongIsAnsweredThenClosed() throws {
        let running = try RunningServer(limits: ServerLimits(maxLine: 1024))
        defer { running.stop() }
        let client = try running.client()
        #expect(client.request(#"{"cmd":"ping","pad":"# + "\"" + String(repeating: "x", count: 900) + "\"}")?["error"]?["code"] == "unknown_argument")
        client.send("{\"cmd\":\"ping\",\"pad\":\"" + String(repeating: "x", count: 5000))   // no newline, ever
        let reply = client.readLine().flatMap { try? JSONValue.parse(Array($0.utf8)).get() }
        #expect(reply?["error"]?["code"] == "line_too_long")
        #expect(reply?["error"]?["message"] == "request line longer than 1024 bytes ([control] max_line); closing the connection")
        #expect(client.isClosed())
        #expect(running.handler.state.withLock { $0.handled }.isEmpty)
        // The server goes on.
        #expect(try running.client().request(#"{"cmd":"ping"}"#)?["ok"] == true)
    }

    /// Subscribers are never idle: when every slot holds one, a new
    /// connection is refused.
    @Test func clientsPastTheLimitAreRefused() throws {
        let running = try RunningServer(limits: ServerLimits(maxClients: 2))
        defer { running.stop() }
        let first = try running.client(), second = try running.client()
        #expect(first.request(#"{"cmd":"subscribe"}"#)?["ok"] == true)
        #expect(second.request(#"{"cmd":"subscribe"}"#)?["ok"] == true)
        let third = try running.client()
        let refusal = third.readLine().flatMap { try? JSONValue.parse(Array($0.utf8)).get() }
        #expect(refusal?["error"]?["code"] == "too_many_clients")
        #expect(third.isClosed())
        #expect(running.server.clientCount == 2)
        // One leaves: there is room again.
        first.shutdownWriting()
        #expect(first.isClosed())
        #expect(eventually { running.server.clientCount == 1 })
        #expect(try running.client().request(#"{"cmd":"ping"}"#)?["ok"] == true)
    }

    /// At the limit the connection idle longest makes room: it is told why
    /// and closed; the one that sent a request more recently stays.
    @Test func theLongestIdleMakesRoomAtTheLimit() throws {
        let running = try RunningServer(limits: ServerLimits(maxClients: 2))
        defer { running.stop() }
        let first = try running.client(), second = try running.client()
        #expect(first.request(#"{"cmd":"ping"}"#)?["ok"] == true)
        #expect(second.request(#"{"cmd":"ping"}"#)?["ok"] == true)
        #expect(first.request(#"{"cmd":"ping"}"#)?["ok"] == true)   // second is now the longest idle
        let third = try running.client()
        #expect(third.request(#"{"cmd":"ping"}"#)?["ok"] == true)
        let told = second.readLine().flatMap { try? JSONValue.parse(Array($0.utf8)).get() }
        #expect(told?["error"]?["code"] == "idle_timeout")
        #expect(told?["error"]?["message"]?.stringValue?.hasPrefix("closed to make room: 2 connections were open") == true)
        #expect(second.isClosed())
        #expect(first.request(#"{"cmd":"ping"}"#)?["ok"] == true)
        #expect(running.server.clientCount == 2)
    }

    /// A connection that sends no request for idle_timeout is closed (a
    /// partial line does not count); a subscriber is not.
    @Test func idleConnectionsAreClosed() throws {
        let running = try RunningServer(limits: ServerLimits(idleTimeout: 0.4))
        defer { running.stop() }
        let silent = try running.client(), trickling = try running.client(), subscriber = try running.client()
        #expect(subscriber.request(#"{"cmd":"subscribe"}"#)?["ok"] == true)
        trickling.send("{\"cmd\":")   // never finished
        let told = silent.readLine(timeout: 5).flatMap { try? JSONValue.parse(Array($0.utf8)).get() }
        #expect(told?["error"]?["code"] == "idle_timeout")
        #expect(told?["error"]?["message"] == "closed: no request for 0.4 s ([control] idle_timeout)")
        #expect(silent.isClosed())
        #expect(trickling.readLine(timeout: 5)?.contains("idle_timeout") == true)
        #expect(eventually { running.server.clientCount == 1 })
        #expect(subscriber.request(#"{"cmd":"ping"}"#)?["ok"] == true)
    }

    /// A subscriber that never reads is dropped once its queue passes the
    /// bound; one that reads gets every event, in order.
    @Test func aSubscriberThatDoesNotReadIsDropped() throws {
        let running = try RunningServer(limits: ServerLimits(maxQueuedBytes: 64 << 10))
        defer { running.stop() }
        let sleeper = try running.client(), reader = try running.client()
        #expect(sleeper.request(#"{"cmd":"subscribe"}"#)?["result"]?["subscribed"] == true)
        #expect(reader.request(#"{"cmd":"subscribe","events":["scene_changed"]}"#)?["result"]?["events"] == ["scene_changed"])
        // 5 MB: more than the socket buffers and the queue hold.
        let padding = String(repeating: "p", count: 1000)
        let count = 5000
        let seen = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            while let line = reader.readLine(timeout: 20) {
                let n = seen.withLock { $0 }
                guard line.contains("\"n\":\(n),") else { break }
                seen.withLock { $0 += 1 }
                if n + 1 == count { break }
            }
            done.signal()
        }.start()
        for n in 0..<count {
            running.server.publish(ControlEvent(.sceneChanged, ["n": .int(n), "padding": .string(padding)]))
            // The reader keeps up: never more than 40 events (40 KB) behind,
            // however busy the machine; the sleeper falls behind by all of them.
            if n % 20 == 19 { _ = eventually { seen.withLock { $0 } >= n - 20 } }
        }
        #expect(eventually { running.server.clientCount == 1 }, "the sleeper was not dropped")
        #expect(sleeper.isClosed(timeout: 20))
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(seen.withLock { $0 } == count)
        // Events it did not ask for do not reach it; its requests are still answered.
        running.server.publish(ControlEvent(.powerChanged, ["dimmed": true]))
        #expect(reader.request(#"{"cmd":"ping"}"#) == ["id": nil, "ok": true, "result": ["pong": true]])
    }

    /// A client that floods requests and never reads has one request with
    /// the handler at a time, and is not read once its unread replies pass
    /// the bound; others are served meanwhile.
    @Test func aFloodHoldsOneRequestAtATime() throws {
        let running = try RunningServer()
        defer { running.stop() }
        running.handler.hold()
        let flooder = try running.client()
        let flood = String(repeating: "{\"cmd\":\"pause\"}\n", count: 20_000)
        Thread { flooder.send(flood) }.start()   // blocks once the buffers are full
        let handled = { running.handler.state.withLock { $0.handled.count(where: { $0 == .pause }) } }
        #expect(eventually { handled() == 1 })
        let other = try running.client()
        other.send("{\"id\":1,\"cmd\":\"ping\"}\n")
        #expect(eventually { running.handler.state.withLock { $0.held.count } == 2 })
        // The server took the other client's ping in a later turn of its
        // loop, with the flood's lines waiting: still one of them handed on.
        #expect(handled() == 1)
        #expect(running.handler.state.withLock { $0.mostInFlight } == 2)   // one per connection
        running.handler.release()
        #expect(other.readLine() == #"{"id":1,"ok":true,"result":{"pong":true}}"#)
        // The flood now runs unheld until its unread replies fill the bound.
        let settled = running.settledCount(handled, fence: other)
        #expect(handled() == settled, "still reading a client that does not read its replies")
        #expect(settled < 20_000)
        #expect(other.request(#"{"cmd":"ping"}"#)?["ok"] == true)
    }

    /// Requests written all at once and read late: once 64 KiB of replies
    /// wait, the server stops taking lines; when the client reads and the
    /// queue drains, it goes on with the lines it already holds, not only
    /// when more bytes come. Every request is answered, in order. (It
    /// stopped for good: 1,000 status requests read late got about 140
    /// replies.) The client reads late at the start and again near the end,
    /// when the last lines are all read from the socket: then only the
    /// drained queue can start them. The bound holds meanwhile: a client
    /// that does not read is not read, and others are served.
    @Test(arguments: [(1_000, 1_500), (100_000, 600)])
    func pipelinedRequestsReadLateAreAllAnswered(count: Int, padding: Int) throws {
        let running = try RunningServer()
        defer { running.stop() }
        running.handler.state.withLock { $0.statusPadding = padding }
        let client = try running.client()
        let requests = (0..<count).map { "{\"id\":\($0),\"cmd\":\"status\"}\n" }.joined()
        Thread { client.send(requests) }.start()   // blocks while the server does not read
        let handled = { running.handler.state.withLock { $0.handled.count(where: { $0 == .status }) } }
        let fence = try running.client()
        /// Until the server has stopped taking lines (the count holds still).
        func stalled() -> Int { running.settledCount(handled, fence: fence) }
        #expect(eventually { handled() > 0 })
        #expect(stalled() < count, "a client that does not read was read to the end")
        #expect(try running.client().request(#"{"cmd":"ping"}"#)?["ok"] == true, "another client waits")
        var lines: [String] = []
        for stop in [count - 2_000, count - 300, count] where stop > lines.count {
            if !lines.isEmpty { _ = stalled() }   // late again
            lines += client.readLines(stop - lines.count, timeout: 30)
            if lines.count < stop { break }
        }
        #expect(lines.count == count, "\(lines.count) of \(count) replies")
        let outOfOrder = lines.indices.first { !lines[$0].hasPrefix("{\"id\":\($0),\"ok\":true,") }
        #expect(outOfOrder == nil, "reply \(outOfOrder ?? -1): \(outOfOrder.map { String(lines[$0].prefix(80)) } ?? "")")
    }

    /// A reply larger than the bound (a snapshot) and a request after it in
    /// the same write: the second is answered once the first has gone out.
    @Test func aSnapshotThenAPingInOneWriteAreBothAnswered() throws {
        let running = try RunningServer()
        defer { running.stop() }
        running.handler.state.withLock { $0.snapshotBytes = 2 << 20 }
        let client = try running.client()
        client.send("{\"id\":1,\"cmd\":\"snapshot\"}\n{\"id\":2,\"cmd\":\"ping\"}\n")
        let lines = client.readLines(2, timeout: 20)
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("{\"id\":1,\"ok\":true,") == true && (lines.first?.utf8.count ?? 0) > 2 << 20)
        #expect(lines.last == #"{"id":2,"ok":true,"result":{"pong":true}}"#)
    }

    @Test func theLastLineWithoutANewlineIsAnsweredAtEndOfInput() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let client = try running.client()
        client.send("{\"id\":1,\"cmd\":\"ping\"}\n{\"id\":2,\"cmd\":\"ping\"}")
        client.shutdownWriting()
        #expect(client.readLine()?.contains("\"id\":1") == true)
        #expect(client.readLine()?.contains("\"id\":2") == true)
        #expect(client.isClosed())
    }

    @Test func aClientGoneBeforeItsAnswerHurtsNothing() throws {
        let running = try RunningServer()
        defer { running.stop() }
        running.handler.hold()
        do {
            let client = try running.client()
            client.send("{\"cmd\":\"snapshot\"}\n")
            #expect(eventually { running.handler.state.withLock { $0.held.count } == 1 })
        }   // closed here
        #expect(eventually { running.server.clientCount == 0 })
        // The handler can tell: work for this request is work for nobody.
        #expect(running.handler.state.withLock { $0.contexts.first?.isConnected } == false)
        running.handler.release()
        let client = try running.client()
        #expect(client.request(#"{"cmd":"ping"}"#)?["ok"] == true)
        #expect(running.handler.state.withLock { $0.contexts.last?.isConnected } == true)
    }

    /// Lines past `quickLine` are read on a lane of their own; to a client
    /// they are the same requests, answered in order with the short ones
    /// around them, and what a refusal quotes of them is cut short.
    @Test func longLinesAreRequestsLikeAnyOther() throws {
        let running = try RunningServer(limits: ServerLimits(maxLine: 1 << 20))
        defer { running.stop() }
        let client = try running.client()
        let pad = String(repeating: "x", count: 10_000)
        let events = Array(repeating: #""scene_changed""#, count: 1_000).joined(separator: ",")
        client.send("""
            {"id":"a","cmd":"ping"}
            {"id":"b","cmd":"ping","\(pad)":1}
            {"id":"c","cmd":"subscribe","events":[\(events)]}
            {"id":"\(pad)","cmd":"status"}
            {"id":"e","cmd":"\(pad)é"}
            {"id":"f","cmd":"get","key":"\(pad)"}
            {"id":"g","cmd":"ping"}

            """)
        let replies = (0..<7).compactMap { _ in client.readLine().flatMap { try? JSONValue.parse(Array($0.utf8)).get() } }
        #expect(replies.map { $0["id"] ?? .null } == ["a", "b", "c", .null, "e", "f", "g"])
        guard replies.count == 7 else { return }
        #expect(replies[1]["error"]?["code"] == "unknown_argument")
        #expect(replies[2]["result"]?["events"] == ["scene_changed"])
        #expect(replies[3]["error"]?["message"] == "\"id\" is longer than 256 bytes")
        #expect(replies[4]["error"]?["code"] == "unknown_command")
        for reply in [replies[1], replies[3], replies[4]] {
            guard case .string(let message)? = reply["error"]?["message"] else { Issue.record("no message in \(reply)"); continue }
            #expect(message.utf8.count < 400, "a refusal quotes at most an excerpt")
        }
        #expect(replies[5]["result"]?["command"] == "get", "the fake handler answers what it is given")
        #expect(replies[6]["ok"] == true)
        #expect(running.handler.state.withLock { $0.handled } == [.ping, .get(key: pad), .ping])
    }

    @Test func newLimitsApplyToOpenConnections() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let client = try running.client()
        #expect(client.request(#"{"cmd":"ping"}"#)?["ok"] == true)
        running.server.update(ServerLimits(maxLine: 256))
        // No wait: the update is in the server's inbox before the line is
        // sent, and a turn of its loop takes the inbox before any client.
        client.send("{\"cmd\":\"ping\",\"x\":\"" + String(repeating: "y", count: 300) + "\"}\n")
        #expect(client.readLine()?.contains("line_too_long") == true)
    }
}
