import ChakraControl
import ChakraSystem
import Glibc
import Synchronization

/// The control socket's server, on a thread of its own, so that nothing a
/// client does can delay a frame: the frame loop only ever sees commands
/// the handler queues for it, one per connection at a time.
///
/// The thread (a `MailboxThread`) sleeps in poll(2) on the listening
/// socket, every connection (non-blocking) and its mailbox, which other
/// threads post to when they hand it something: a reply (`ControlHandler`
/// answers from any thread), an event to publish, new limits, or the order
/// to stop. All connection state lives on this thread.
///
/// Bounds (`ServerLimits`): connections, request line length, bytes queued
/// for a subscriber that does not read (it is dropped). A connection's next
/// request is read only when its previous one is answered and its output
/// has mostly drained, so a client that floods or never reads holds at
/// most one request, 64 KiB of replies and one read of lines (it is not
/// read meanwhile, and idle_timeout closes it). Lines already read are
/// taken up as soon as the output drains, whether or not more bytes come.
public final class ControlServer: Sendable {
    /// What other threads hand the server's thread (the stop is the
    /// MailboxThread's own).
    fileprivate struct Inbox {
        var replies: [(client: UInt64, line: String)] = []
        var parsed: [(client: UInt64, request: ParsedAside)] = []
        var events: [ControlEvent] = []
        var limits: ServerLimits?
    }

    public let listener: ControlListener
    private let handler: ControlHandler
    private let logger: Logger
    private let thread: MailboxThread<Inbox>
    private let connected = Atomic<Int>(0)
    private let initialLimits: ServerLimits
    /// Where long request lines are read (`ServerLoop.quickLine`).
    private let longLines = BackgroundLane(name: "chakra-requests")

    public init(listener: ControlListener, limits: ServerLimits, handler: ControlHandler, logger: Logger) throws {
        (self.listener, self.initialLimits, self.handler, self.logger) = (listener, limits, handler, logger)
        thread = try MailboxThread(name: "chakra-control", mail: Inbox())
    }

    /// Connections open now.
    public var clientCount: Int { connected.load(ordering: .relaxed) }

    /// Starts the thread. Threads inherit the signal mask: start it after
    /// the daemon has blocked its signals (SignalSource).
    public func start() {
        thread.start { [self] _ in
            ServerLoop(server: self, limits: initialLimits).run()
        }
    }

    /// Closes every connection and the listener; returns when the thread
    /// has ended. Replies that arrive later go nowhere.
    public func stop() {
        thread.stop()
        // The thread closed it as it ended; not if it never started.
        listener.close()
    }

    /// Sends `event` to every subscriber that asked for its kind. Any thread.
    public func publish(_ event: ControlEvent) {
        thread.post { $0.events.append(event) }
    }

    /// New limits (a reload): max_line applies to every connection at once,
    /// max_clients to the next ones. Any thread.
    public func update(_ limits: ServerLimits) {
        thread.post { $0.limits = limits }
    }

    // MARK: for the server thread

    fileprivate var handlerForLoop: ControlHandler { handler }
    fileprivate var loggerForLoop: Logger { logger }
    fileprivate var inboxDescriptor: Int32 { thread.descriptor }

    fileprivate func setClientCount(_ count: Int) { connected.store(count, ordering: .relaxed) }

    fileprivate func takeInbox() -> (taken: Inbox, stopping: Bool) {
        thread.take { inbox in
            defer { inbox = Inbox() }
            return inbox
        }
    }

    /// Reads a long line on the lane; the request (or the refusal, encoded
    /// there too: it may quote the line) comes back through the inbox.
    /// Nothing is read for a client that has gone by its turn.
    fileprivate func parseAside(_ line: [UInt8], for client: UInt64, presence: ConnectionPresence) {
        longLines.submit { [self] in
            guard presence.isOpen else { return }
            let parsed: ParsedAside = switch ControlRequest.parse(line) {
            case .success(let request): .request(request)
            case .failure(let failure): .refused(ControlReply.failure(id: failure.id, failure.error).line)
            }
            thread.post { $0.parsed.append((client, parsed)) }
        }
    }

    fileprivate func deliver(_ reply: ControlReply, to client: UInt64) {
        let line = reply.line   // encoded on the replying thread (a snapshot's base64 too)
        thread.post { $0.replies.append((client, line)) }
    }
}

/// The server thread's state and loop. Lives on that thread only.
private final class ServerLoop {
    let server: ControlServer
    var limits: ServerLimits
    var clients: [UInt64: ClientConnection] = [:]
    var order: [UInt64] = []
    var nextID: UInt64 = 1
    var acceptPausedUntil = 0.0
    var refusals = 0
    var dismissals = 0
    var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    var logger: Logger { server.loggerForLoop }

    init(server: ControlServer, limits: ServerLimits) {
        (self.server, self.limits) = (server, limits)
    }

    func run() {
        var fds: [pollfd] = []
        while true {
            let now = MonotonicClock.now()
            let accepting = now >= acceptPausedUntil
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: server.inboxDescriptor, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: server.listener.descriptor, events: accepting ? Int16(POLLIN) : 0, revents: 0))
            for id in order {
                let client = clients[id]!
                fds.append(pollfd(fd: client.descriptor, events: client.pollEvents(resumeReadingBelow: limits.resumeReadingBelow), revents: 0))
            }
            var wakeAt = accepting ? Double.infinity : acceptPausedUntil
            if let expiry = IdleConnections.nextExpiry(order.map { clients[$0]!.activity }, timeout: limits.idleTimeout) {
                wakeAt = min(wakeAt, expiry)
            }
            let timeout: Int32 = wakeAt.isFinite ? Int32(min(max(1, ((wakeAt - now) * 1000).rounded(.up)), 3_600_000)) : -1
            do {
                try Poller.wait(&fds, milliseconds: timeout)
            } catch {
                logger.error("control: \(error); the control socket stops")
                break
            }
            if fds[0].revents != 0, takeInbox() { break }
            for (index, id) in order.enumerated() {
                let revents = Int32(fds[2 + index].revents)
                guard revents != 0, let client = clients[id] else { continue }
                if revents & POLLIN != 0 {
                    read(client)
                } else if revents & (POLLHUP | POLLERR) != 0 {
                    client.dead = true   // gone while we were not reading: nothing to answer
                }
                if revents & POLLOUT != 0, !client.dead {
                    client.flush()
                    // Lines already read wait for room in the output, not for
                    // more bytes: a client that sent them all at once and reads
                    // late sends nothing more, and was never answered.
                    processLines(client)
                }
            }
            if fds[1].revents != 0 { acceptConnections() }
            closeIdle(now: MonotonicClock.now())
            sweep()
        }
        for id in order { close(clients[id]!, reason: nil) }
        server.listener.close()
    }

    /// Applies what other threads handed over; true when told to stop.
    private func takeInbox() -> Bool {
        let (taken, stopping) = server.takeInbox()
        if stopping { return true }
        if let new = taken.limits {
            limits = new
            for client in clients.values { client.framer.maxLine = new.maxLine }
        }
        for (id, line) in taken.replies {
            guard let client = clients[id] else { continue }   // it left before its answer came
            client.queue(line, isReply: true)
            client.requestInFlight = false
            client.flush()
            processLines(client)
        }
        for (id, parsed) in taken.parsed {
            guard let client = clients[id] else { continue }
            client.requestInFlight = false
            switch parsed {
            case .request(let request): carryOut(request, from: client)
            case .refused(let line):
                client.queue(line, isReply: true)
                client.flush()
            }
            processLines(client)
        }
        for event in taken.events { publish(event) }
        return false
    }

    private func publish(_ event: ControlEvent) {
        var line: String?
        for id in order {
            guard let client = clients[id], client.subscription?.contains(event.kind) == true, !client.dead else { continue }
            let text = line ?? event.line
            line = text
            if client.queuedEventBytes + text.utf8.count > limits.maxQueuedBytes {
                logger.warning("control: client \(id) dropped: it does not read its events (\(client.queuedEventBytes) bytes waiting, limit \(limits.maxQueuedBytes))")
                client.dead = true
                continue
            }
            client.queue(text, isReply: false)
            client.flush()
        }
    }

    // MARK: connections

    private func acceptConnections() {
        for _ in 0..<64 {
            let fd: Int32
            do {
                guard let accepted = try UnixSocket.accept(server.listener.descriptor) else { return }
                fd = accepted
            } catch {
                switch error.errno {
                case ECONNABORTED: return
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: the listener stays readable; look again in a second.
                    logger.error("control: cannot accept: \(String(cString: strerror(error.errno))); retrying in 1 s")
                    acceptPausedUntil = MonotonicClock.now() + 1
                default:
                    logger.error("control: \(error)")
                }
                return
            }
            if clients.count >= limits.maxClients {
                // Room from the longest-idle connection, else a refusal.
                sweep()
                if clients.count >= limits.maxClients,
                   let id = IdleConnections.evictee(order.map { clients[$0]!.activity }), let idle = clients[id] {
                    let idleFor = MonotonicClock.now() - idle.lastRequest
                    dismiss(idle, "closed to make room: \(limits.maxClients) connections were open ([control] max_clients) and this one had sent no request for \(Int(idleFor)) s")
                    sweep()
                }
                guard clients.count < limits.maxClients else {
                    refuse(fd)
                    continue
                }
            }
            let client = ClientConnection(id: nextID, descriptor: fd, maxLine: limits.maxLine, now: MonotonicClock.now())
            nextID += 1
            clients[client.id] = client
            order.append(client.id)
            server.setClientCount(clients.count)
            logger.debug("control: client \(client.id) connected (\(Self.peer(fd))); \(clients.count) connected")
        }
    }

    /// One connection too many: told why (if it can take the line at once), then closed.
    private func refuse(_ fd: Int32) {
        let line = ControlReply.failure(id: nil, ControlError(.tooManyClients, "\(limits.maxClients) clients are connected, the most allowed ([control] max_clients)")).line
        _ = line.withCString { try? UnixSocket.send(fd, $0, count: strlen($0)) }
        Descriptor.close(fd)
        refusals += 1
        if refusals == 1 || refusals % 100 == 0 {
            logger.warning("control: refused a connection: \(limits.maxClients) clients connected (\(refusals) refused so far)")
        }
    }

    private static func peer(_ fd: Int32) -> String {
        guard let credentials = UnixSocket.peerCredentials(fd) else { return "peer unknown" }
        return "pid \(credentials.pid), uid \(credentials.uid)"
    }

    private func read(_ client: ClientConnection) {
        let count: Int?
        do {
            count = try readBuffer.withUnsafeMutableBytes { raw throws in
                try UnixSocket.receive(client.descriptor, into: raw.baseAddress!, count: raw.count)
            }
        } catch {
            client.dead = true   // ECONNRESET...
            return
        }
        if let count, count > 0 {
            client.framer.append(readBuffer[0..<count])
        } else if count == 0 {
            client.inputClosed = true
        }
        processLines(client)
    }

    /// Handles buffered lines while the connection may take another request.
    private func processLines(_ client: ClientConnection) {
        while !client.requestInFlight, !client.closing, !client.dead, client.pendingOutput < limits.resumeReadingBelow {
            guard let frame = client.framer.next() ?? (client.inputClosed ? client.framer.finish() : nil) else {
                if client.inputClosed { client.closing = true }
                return
            }
            switch frame {
            case .tooLong:
                let error = ControlError(.lineTooLong, "request line longer than \(limits.maxLine) bytes ([control] max_line); closing the connection")
                client.queue(ControlReply.failure(id: nil, error).line, isReply: true)
                client.closing = true
                client.flush()
                logger.warning("control: client \(client.id): line longer than \(limits.maxLine) bytes; connection closed")
            case .line(let bytes):
                handle(bytes, from: client)
            }
        }
    }

    /// Lines longer than this are read on the lane, not here: a megabyte
    /// of JSON takes 15–70 ms to read, and ten clients sending them kept an
    /// operator's ping waiting 0.5–2 s. Every request chakractl sends is
    /// far shorter, so small requests never wait behind large ones.
    static let quickLine = 4096

    private func handle(_ line: [UInt8], from client: ClientConnection) {
        client.lastRequest = MonotonicClock.now()
        guard line.count <= Self.quickLine else {
            client.requestInFlight = true   // one at a time, as for the handler
            server.parseAside(line, for: client.id, presence: client.presence)
            return
        }
        switch ControlRequest.parse(line) {
        case .failure(let failure):
            client.queue(ControlReply.failure(id: failure.id, failure.error).line, isReply: true)
            client.flush()
        case .success(let request):
            carryOut(request, from: client)
        }
    }

    /// A request read: subscriptions are kept here, the rest go to the handler.
    private func carryOut(_ request: ControlRequest, from client: ClientConnection) {
        switch request.command {
        case .subscribe(let kinds):
            let set = Set(kinds ?? EventKind.allCases)
            client.subscription = set
            let names = EventKind.allCases.filter(set.contains).map(\.rawValue)
            client.queue(ControlReply.success(id: request.id, SubscribeReply(subscribed: true, events: names).json).line, isReply: true)
            client.flush()
        case .unsubscribe:
            client.subscription = nil
            client.queue(ControlReply.success(id: request.id, SubscribeReply(subscribed: false).json).line, isReply: true)
            client.flush()
        default:
            client.requestInFlight = true
            let server = self.server, id = client.id, requestID = request.id
            server.handlerForLoop.handle(request, context: RequestContext(client: id, clients: clients.count, presence: client.presence)) { outcome in
                server.deliver(ControlReply(id: requestID, outcome), to: id)
            }
        }
    }

    /// Closes the connections idle for [control] idle_timeout.
    private func closeIdle(now: Double) {
        for id in IdleConnections.expired(order.map { clients[$0]!.activity }, now: now, timeout: limits.idleTimeout) {
            dismiss(clients[id]!, "closed: no request for \(Self.seconds(limits.idleTimeout)) ([control] idle_timeout)")
        }
    }

    /// Tells an idle connection why it goes (if it can take the line at
    /// once: it is not waiting for anything), and closes it.
    private func dismiss(_ client: ClientConnection, _ why: String) {
        client.queue(ControlReply.failure(id: nil, ControlError(.idleTimeout, why)).line, isReply: true)
        client.flush()
        client.dead = true
        dismissals += 1
        // A flood of connections must not become a flood of log lines.
        if dismissals == 1 || dismissals % 100 == 0 {
            logger.info("control: client \(client.id) \(why) (\(dismissals) idle connections closed so far)")
        } else {
            logger.debug("control: client \(client.id) \(why)")
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// Closes connections that are done or dead.
    private func sweep() {
        var changed = false
        for id in order {
            let client = clients[id]!
            if client.dead || (client.closing && client.pendingOutput == 0 && !client.requestInFlight) {
                close(client, reason: client.dead ? "gone" : "done")
                changed = true
            }
        }
        if changed {
            order.removeAll { clients[$0] == nil }
            server.setClientCount(clients.count)
        }
    }

    private func close(_ client: ClientConnection, reason: String?) {
        client.presence.close()
        Descriptor.close(client.descriptor)
        clients[client.id] = nil
        if let reason { logger.debug("control: client \(client.id) closed (\(reason))") }
    }
}

/// A long line as read on the lane: a request to carry out, or the
/// refusal's line to send.
private enum ParsedAside: Sendable {
    case request(ControlRequest)
    case refused(String)
}
