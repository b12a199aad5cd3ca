import CLinuxKernel
import Glibc
import Synchronization

// How the daemon's threads hand each other work, in one place: a mutex-
// guarded inbox and an eventfd that wakes its owner's poll(2) (`Mailbox`),
// a named thread that serves one and is stopped and awaited one way
// (`MailboxThread`), and one answer waited for with a deadline
// (`ReplySlot`, which is also how a thread's end is awaited).

/// State other threads hand to one owner, and the eventfd that wakes the
/// owner when they do: the owner polls `descriptor` beside its other
/// descriptors (the frame loop, the control server) or blocks in
/// `wait(timeout:)`, then `take`s what came. The frame loop's command
/// queue, a thread's requests, and its outcomes going back to the loop.
/// An eventfd, not a condition variable: the frame loop and the control
/// server sleep in one poll(2) over many descriptors, and this is one.
public final class Mailbox<Contents: Sendable>: Sendable {
    private let contents: Mutex<Contents>
    private let wakeup: Wakeup

    public init(_ contents: Contents) throws(SystemError) {
        self.contents = Mutex(contents)
        wakeup = try Wakeup()
    }

    /// Readable after a `post`, until the owner's next `take`.
    public var descriptor: Int32 { wakeup.descriptor }

    /// Any thread: changes the contents, then wakes the owner.
    @discardableResult
    public func post<Result: Sendable>(_ change: (inout Contents) -> Result) -> Result {
        let result = contents.withLock { change(&$0) }
        wakeup.signal()
        return result
    }

    /// The owner: reads (and usually empties) the contents. The wake-up is
    /// cleared first, so a post that lands after it wakes the owner again
    /// and none is missed.
    public func take<Result: Sendable>(_ body: (inout Contents) -> Result) -> Result {
        wakeup.drain()
        return contents.withLock { body(&$0) }
    }

    /// Any thread: a look at the contents that wakes nobody and clears
    /// nothing (what a status reads).
    public func read<Result: Sendable>(_ body: (Contents) -> Result) -> Result {
        contents.withLock { body($0) }
    }

    /// The owner, with nothing else to poll: waits until something is
    /// posted or `timeout` seconds pass (nil: forever). False on timeout
    /// (or a signal); the caller `take`s either way.
    @discardableResult
    public func wait(timeout: Double?) throws(SystemError) -> Bool {
        try Poller(descriptors: [descriptor]).wait(timeout: timeout)
    }
}

/// One answer from another thread, waited for with a deadline: the frame
/// loop's reply to a snapshot, a thread's end. The first value given
/// wins; later ones are dropped, and once given it stays (every waiter,
/// now or later, sees it).
public final class ReplySlot<Value: Sendable>: Sendable {
    private let answer: Mailbox<Value?>

    public init() throws(SystemError) {
        answer = try Mailbox(nil)
    }

    /// Any thread.
    public func give(_ value: Value) {
        answer.post { if $0 == nil { $0 = value } }
    }

    /// The answer, waiting up to `timeout` seconds for it (nil: as long as
    /// it takes); nil when none came in time. Any number of threads may
    /// wait: the wake-up is never taken, so once the answer is given the
    /// descriptor stays readable for all of them.
    public func wait(timeout: Double?) -> Value? {
        let deadline = timeout.map { MonotonicClock.now() + $0 }
        while true {
            if let value = answer.read({ $0 }) { return value }
            let left = deadline.map { $0 - MonotonicClock.now() }
            if let left, left <= 0 { return nil }
            // A poll that fails cannot be waited out: given up as on the deadline.
            guard (try? answer.wait(timeout: left)) != nil else { return answer.read { $0 } }
        }
    }
}

/// A named thread that serves a mailbox of `Mail` until asked to stop:
/// the session recorder's writer, the CEC bus, the control server.
///
/// Other threads `post` to it; the thread waits for mail (`waitForMail`,
/// or `descriptor` in a poll of its own), `take`s it and acts, and returns
/// from its `serve` closure when `take` says it is stopping. `stop` is the
/// one way to end it: the end is queued behind the mail already posted
/// (the thread finishes what it is doing and what it takes with the
/// stop), and the caller waits for `serve` to return, for as long as it
/// chooses. After that the thread touches nothing of its owner's.
public final class MailboxThread<Mail: Sendable>: Sendable {
    private struct Inbox: Sendable {
        var mail: Mail
        var started = false
        var stopping = false
    }

    public let name: String
    private let inbox: Mailbox<Inbox>
    /// Given when `serve` has returned.
    private let ended: ReplySlot<Void>

    /// The mailbox, holding `mail`; no thread yet (`start`). `name` is the
    /// thread's (top -H, ps -L; at most 15 bytes are kept).
    public init(name: String, mail: Mail) throws(SystemError) {
        self.name = name
        inbox = try Mailbox(Inbox(mail: mail))
        ended = try ReplySlot()
    }

    /// Starts the thread running `serve(self)`; later calls do nothing.
    /// Threads inherit the signal mask: start it after the daemon has
    /// blocked its signals (SignalSource).
    public func start(_ serve: @escaping @Sendable (MailboxThread<Mail>) -> Void) {
        // Posted, so the mail that came before the thread is its first take.
        let first = inbox.post { inbox in
            defer { inbox.started = true }
            return !inbox.started
        }
        guard first else { return }
        DetachedThread.start(name: name) { [self] in
            defer { ended.give(()) }
            serve(self)
        }
    }

    /// Any thread: changes the mail, then wakes the thread.
    @discardableResult
    public func post<Result: Sendable>(_ change: (inout Mail) -> Result) -> Result {
        inbox.post { change(&$0.mail) }
    }

    /// Asks the thread to end after the mail before this, and waits up to
    /// `timeout` seconds (nil: as long as it takes; 0: not at all) for
    /// `serve` to return. True when it has (or never started). Any thread,
    /// any number of times: each call waits.
    @discardableResult
    public func stop(timeout: Double? = nil) -> Bool {
        let started = inbox.post { inbox in
            inbox.stopping = true
            return inbox.started
        }
        guard started else { return true }
        return ended.wait(timeout: timeout) != nil
    }

    // MARK: on the thread

    /// Readable while mail (or the stop) waits: for a thread that polls
    /// other descriptors too.
    public var descriptor: Int32 { inbox.descriptor }

    /// Waits until mail (or the stop) comes or `timeout` seconds pass
    /// (nil: forever). False on timeout.
    @discardableResult
    public func waitForMail(timeout: Double?) throws(SystemError) -> Bool {
        try inbox.wait(timeout: timeout)
    }

    /// What `body` takes from the mail (it empties what it handles), and
    /// whether the thread is to end once it has handled that. Everything
    /// posted before `stop` is in the take that says so.
    public func take<Result: Sendable>(_ body: (inout Mail) -> Result) -> (taken: Result, stopping: Bool) {
        inbox.take { inbox in (body(&inbox.mail), inbox.stopping) }
    }
}

/// An eventfd another thread writes to wake a poll(2). Owns the
/// descriptor until deinit.
final class Wakeup: @unchecked Sendable {
    let descriptor: Int32

    init() throws(SystemError) {
        descriptor = try Syscall.check("eventfd", { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) })
    }

    deinit { close(descriptor) }

    /// Safe from any thread.
    func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    func drain() {
        var count: UInt64 = 0
        _ = read(descriptor, &count, 8)
    }
}
