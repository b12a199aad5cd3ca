import ChakraSystem
import ChakraTestSupport
import Glibc
import Testing

/// The one shape of the daemon's threads (MailboxThread.swift): a mailbox
/// whose eventfd wakes its owner, a thread that serves one and is stopped
/// and awaited one way, and an answer waited for with a deadline. The
/// tests wait for conditions (a reply slot, a mailbox), never for time,
/// but for the one deadline that is meant to pass.
@Suite("Mailbox threads: inbox, wake-up, stop and join, replies with a deadline")
struct MailboxThreadTests {
    /// Whether `descriptor` is readable now (no wait).
    static func readable(_ descriptor: Int32) -> Bool { isReadable(descriptor) }

    /// A thread that hands every number it takes to `handled`, first
    /// waiting at `gate` (when given) for the number `holdAt`, and ends
    /// when told to; `busy` is given as it starts on `holdAt`.
    static func numbers(handled: Mailbox<[Int]>, holdAt: Int? = nil, busy: ReplySlot<Void>? = nil,
                        gate: ReplySlot<Void>? = nil) throws -> MailboxThread<[Int]> {
        let thread = try MailboxThread(name: "test-numbers", mail: [Int]())
        thread.start { thread in
            while true {
                let (batch, stopping) = thread.take { mail in
                    defer { mail.removeAll() }
                    return mail
                }
                for number in batch {
                    if number == holdAt {
                        busy?.give(())
                        _ = gate?.wait(timeout: nil)
                    }
                    handled.post { $0.append(number) }
                }
                if stopping { return }
                guard (try? thread.waitForMail(timeout: nil)) != nil else { return }
            }
        }
        return thread
    }

    /// Everything `mailbox` has received so far, once it holds `count`
    /// numbers (or 10 s have passed: a test failure, not a hang).
    static func collect(_ mailbox: Mailbox<[Int]>, count: Int) -> [Int] {
        let deadline = MonotonicClock.now() + 10
        while mailbox.read({ $0.count }) < count, MonotonicClock.now() < deadline {
            _ = try? mailbox.wait(timeout: deadline - MonotonicClock.now())
            mailbox.take { _ in }
        }
        return mailbox.read { $0 }
    }

    @Test("a post wakes the owner's poll until the owner takes; a read wakes nobody and clears nothing")
    func wakeUntilTaken() throws {
        let mailbox = try Mailbox([Int]())
        #expect(!Self.readable(mailbox.descriptor))
        mailbox.post { $0.append(1) }
        mailbox.post { $0.append(2) }
        #expect(Self.readable(mailbox.descriptor))
        #expect(mailbox.read { $0 } == [1, 2])
        #expect(Self.readable(mailbox.descriptor))
        let taken = mailbox.take { contents in
            defer { contents.removeAll() }
            return contents
        }
        #expect(taken == [1, 2])
        #expect(!Self.readable(mailbox.descriptor))
        #expect(try mailbox.wait(timeout: 0) == false)
        // A post after the take wakes the owner again.
        mailbox.post { $0.append(3) }
        #expect(try mailbox.wait(timeout: 10))
    }

    @Test("posts from other threads arrive in the order each one posted them")
    func orderAcrossThreads() throws {
        let mailbox = try Mailbox([Int]())
        for first in [0, 10_000] {
            DetachedThread.start(name: "test-poster") {
                for number in first..<(first + 2000) { mailbox.post { $0.append(number) } }
            }
        }
        let received = Self.collect(mailbox, count: 4000)
        #expect(received.filter { $0 < 10_000 } == Array(0..<2000))
        #expect(received.filter { $0 >= 10_000 } == Array(10_000..<12_000))
    }

    @Test("the thread serves the mail in order, what came before its start too; stop returns once serve has")
    func servesInOrderThenStops() throws {
        let handled = try Mailbox([Int]())
        let ended = try ReplySlot<Void>()
        let thread = try MailboxThread(name: "test-order", mail: [Int]())
        thread.post { $0.append(0) }
        thread.start { thread in
            defer { ended.give(()) }
            while true {
                let (batch, stopping) = thread.take { mail in
                    defer { mail.removeAll() }
                    return mail
                }
                handled.post { $0 += batch }
                if stopping { return }
                guard (try? thread.waitForMail(timeout: nil)) != nil else { return }
            }
        }
        let secondStarts = try Mailbox(0)
        thread.start { _ in secondStarts.post { $0 += 1 } }
        for number in 1..<500 { thread.post { $0.append(number) } }
        #expect(thread.stop(timeout: 10))
        #expect(ended.wait(timeout: 0) != nil, "stop returned before serve did")
        #expect(handled.read { $0 } == Array(0..<500), "the mail before the stop is all served, in order")
        #expect(thread.stop(timeout: 0), "a second stop finds it ended")
        #expect(secondStarts.read { $0 } == 0, "a second start started a thread")
    }

    @Test("stop while busy: the job under way and the mail queued behind it are finished first; a bounded wait gives up")
    func stopWhileBusy() throws {
        let handled = try Mailbox([Int]())
        let busy = try ReplySlot<Void>()
        let gate = try ReplySlot<Void>()
        let thread = try Self.numbers(handled: handled, holdAt: 1, busy: busy, gate: gate)
        thread.post { $0.append(1) }
        #expect(busy.wait(timeout: 10) != nil)
        thread.post { $0 += [2, 3] }
        #expect(thread.stop(timeout: 0) == false, "not ended: it is held")
        let start = MonotonicClock.now()
        #expect(thread.stop(timeout: 0.05) == false, "the bounded wait gives up")
        #expect(MonotonicClock.now() - start >= 0.05)
        thread.post { $0.append(4) }   // after the stop: dropped or served, never waited for
        gate.give(())
        #expect(thread.stop(timeout: 10))
        #expect(Array(handled.read { $0 }.prefix(3)) == [1, 2, 3])
    }

    @Test("a thread never started is stopped at once; started after, it ends at its first take")
    func neverStarted() throws {
        let thread = try MailboxThread(name: "test-idle", mail: [Int]())
        #expect(thread.stop())
        let handled = try Mailbox([Int]())
        thread.post { $0.append(7) }
        thread.start { thread in
            let (batch, stopping) = thread.take { $0 }
            handled.post { $0 += stopping ? batch : [-1] }
        }
        #expect(thread.stop(timeout: 10))
        #expect(handled.read { $0 } == [7])
    }

    @Test("several threads stopping at once all wait for the end")
    func concurrentStops() throws {
        let handled = try Mailbox([Int]())
        let busy = try ReplySlot<Void>()
        let gate = try ReplySlot<Void>()
        let thread = try Self.numbers(handled: handled, holdAt: 1, busy: busy, gate: gate)
        thread.post { $0.append(1) }
        #expect(busy.wait(timeout: 10) != nil)
        let stopped = try Mailbox([Int]())
        for index in 0..<3 {
            DetachedThread.start(name: "test-stopper") {
                let ended = thread.stop(timeout: 10)
                stopped.post { $0.append(ended ? index : -1) }
            }
        }
        gate.give(())
        #expect(Self.collect(stopped, count: 3).sorted() == [0, 1, 2])
        #expect(handled.read { $0 } == [1])
    }

    @Test("a reply slot: the first answer wins, every waiter gets it, and a wait with a deadline ends empty")
    func replySlot() throws {
        let late = try ReplySlot<Int>()
        let start = MonotonicClock.now()
        #expect(late.wait(timeout: 0.05) == nil)
        #expect(MonotonicClock.now() - start >= 0.05)

        let slot = try ReplySlot<Int>()
        let answers = try Mailbox([Int]())
        for _ in 0..<4 {
            DetachedThread.start(name: "test-waiter") {
                let answer = slot.wait(timeout: 10)
                answers.post { $0.append(answer ?? -1) }
            }
        }
        DetachedThread.start(name: "test-answerer") {
            slot.give(42)
            slot.give(43)
        }
        #expect(Self.collect(answers, count: 4) == [42, 42, 42, 42])
        #expect(slot.wait(timeout: 0) == 42, "it stays given")
    }
}
