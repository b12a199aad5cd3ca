import ChakraConfig
import ChakraContinuity
import ChakraControlServer
import ChakraDisplay
import ChakraSystem
import FoundationEssentials
import Glibc

/// Why the daemon did not start, where the caller needs to tell cases apart.
public enum DaemonStartError: Error, CustomStringConvertible, Equatable {
    /// Another process (another chakrad) answers on the control socket.
    case socketInUse(String)

    public var description: String {
        switch self {
        case .socketInUse(let why): "\(why); not starting a second daemon for the same socket"
        }
    }
}

/// `chakrad run`: opens the output, takes the VT, runs the frame loop, and
/// on the way out (SIGTERM, SIGINT, an error) puts the screen and the
/// console back, in reverse order of taking them; under systemd with the
/// screen's device (DRM or framebuffer) in its store, leaves the last frame
/// for the next process.
public final class Daemon: Sendable {
    public let configuration: DaemonConfiguration
    public let control: DaemonControl
    private let logger: Logger

    public init(configuration: DaemonConfiguration, logger: Logger) throws {
        (self.configuration, self.logger) = (configuration, logger)
        control = try DaemonControl()
    }

    /// Runs until stopped. Throws when the daemon cannot start (bad device,
    /// unknown connector) or the loop fails; the screen is restored either
    /// way, unless under systemd with the screen's device stored: then the
    /// last frame stays for the next process (docs/seams.md).
    public func run() throws {
        let start = MonotonicClock.now()
        let environment = ProcessInfo.processInfo.environment
        // First: until the passed descriptors are ours (close-on-exec, the
        // variables cleared), descriptors from 3 on are systemd's, and
        // nothing else may be opened (docs/seams.md).
        var passed = adoptPassedDescriptors(environment)
        // Before any thread exists (the scene's workers): see SignalSource.
        let signals = try SignalSource(signals: FrameLoop.signalsHandled)
        let listener = try openControlListener(passed: &passed.descriptors)
        let notifier = SystemdNotifier(environment: environment, logger: logger)
        let continuity = ContinuityStart.take(from: &passed.descriptors, adoptError: passed.error, notifier: notifier, logger: logger)
        if let listener, let notifier, continuity.saver != nil { storeControlSocket(listener, notifier: notifier) }
        // The DRM device or framebuffer the last process left, for the
        // output to take over.
        if continuity.saver != nil { continuity.takeScreenDevices(from: &passed.descriptors, notifier: notifier, logger: logger) }
        // A DRM device this run will not open (fbdev or headless asked for)
        // would stay open, DRM master, all run long: DRM's fbdev emulation
        // could not show a frame.
        if continuity.drm != nil, !Self.mayOpenDRM(configuration.output, device: configuration.outputOptions.device) {
            continuity.letGoOfDRM(notifier: notifier, logger: logger)
        }
        // What this version does not take over leaves the process, and
        // systemd's store too (a DRM master systemd kept would keep the
        // card's next open from becoming master), before the output opens.
        letGoOfUnused(&passed.descriptors, notifier: notifier)
        var starting = DaemonStatus(starting: configuration, at: start)
        starting.start = continuity.report
        // Before the server answers: a request answered before the first
        // frame (one that waited through a restart) sees how this process
        // started and the scene being continued.
        if let record = continuity.record { starting.scene = record.scene }
        control.publish(starting)
        // Only once no other chakrad answers on the socket (that one owns
        // the session log: a second writer could cut or compact it under
        // it), and before the server, which answers `stats` from it. A log
        // that cannot be opened is the thread's to report.
        let sessions: SessionRecorder?
        do { sessions = try SessionRecorder.start(configuration.config.sessions, logger: logger) } catch {
            logger.error("sessions: \(error); sessions are not recorded")
            sessions = nil
        }
        // One reader of the files for SIGHUP and `reload` alike, off the
        // loop's thread and the server's.
        let configReader = ConfigReader(source: configuration.source)
        let server = listener.flatMap { startControlServer($0, sessions: sessions, configReader: configReader) }
        defer {
            // Last (defers run in reverse): the socket goes once the screen
            // is restored; a request sent after the loop stopped is closed
            // unanswered (chakractl: "chakrad closed the connection").
            server?.stop()
            if let path = server?.listener.path { logger.info("control: stopped listening on \(path)") }
        }
        var outputOptions = configuration.outputOptions
        outputOptions.handedOverDRM = continuity.drm
        outputOptions.handedOverFramebuffer = continuity.framebuffer
        let output: DisplayOutput
        do {
            output = try OutputFactory.open(configuration.output, options: outputOptions, logger: logger) { limit in
                // The unit's TimeoutStartSec= counts from the start: the wait,
                // and the start after it, get their own time.
                notifier?.send(.extendTimeout(seconds: limit + 30), .status("waiting for udev's device events (no display yet)"))
            }
        } catch {
            continuity.closeFramebuffer()
            throw error
        }
        let keepsPicture = handOverScreen(output, continuity: continuity, notifier: notifier)
        // The fbdev output has a descriptor of its own for what it took over.
        continuity.closeFramebuffer()
        // What became of the picture: known now.
        starting.start = continuity.report
        control.publish(starting)
        var terminal: VirtualTerminal?
        defer {
            if keepsPicture, let keeping = output as? PictureKeepingOutput {
                // Under systemd with the device stored: the last frame
                // stays for the next process (a restart), or until the
                // console takes the screen back (a stop for good: on DRM the
                // kernel does when systemd closes its copy; on both,
                // getty@tty1's TTYReset= puts tty1 back in text mode).
                keeping.leavePictureForNextProcess()
                terminal?.restore()
            } else {
                // The CRTC first (while the console still keeps off the
                // screen), then the console back in text mode.
                output.close()
                terminal?.restore()
            }
        }
        if output.usesConsole, let vt = try VirtualTerminal.open(configuration.terminal, logger: logger) {
            try vt.enterGraphics(releaseSignal: FrameLoop.releaseSignal, acquireSignal: FrameLoop.acquireSignal)
            if keepsPicture { vt.keepGraphicsForNextProcess() }
            terminal = vt
        }
        let loop = try FrameLoop(output: output, terminal: terminal, signals: signals, control: control, notifier: notifier,
                                 sessions: sessions, configuration: configuration, configReader: configReader, startTime: start,
                                 continuity: continuity, logger: logger)
        logger.info("scene: \(loop.core.sceneName) at \(loop.core.scene.width)x\(loop.core.scene.height), rotation \(configuration.rotation.rawValue)°, \(describe(loop.core.pacing.pacer))")
        defer {
            // STOPPING=1 first: systemd learns at once that the exit is wanted.
            notifier?.send(.stopping)
            loop.finishSessionRecords()
            let now = MonotonicClock.now()
            loop.publishFinalStatus(at: now)
            logger.info("stopped: \(loop.core.pacing.meter.totalFrames) frames presented in \(String(now - start, decimals: 1)) s")
        }
        defer { loop.restoreDisplay() }
        try loop.run()
    }

    /// The control socket: handed over by systemd (chakrad.socket), else
    /// bound at [control] socket; nil with none configured. A socket that
    /// cannot be made is logged and the daemon runs without it: the screen
    /// matters more. But when another process answers on the path, another
    /// chakrad most likely has the screen: this one stops before it touches
    /// the output or the session log (`DaemonStartError.socketInUse`).
    private func openControlListener(passed: inout PassedDescriptors) throws(DaemonStartError) -> ControlListener? {
        do {
            if let fd = Self.takeListeningSocket(from: &passed, path: configuration.control?.socket) {
                let activated = try ControlListener.activated(descriptor: fd)
                logger.info("control: listening on \(activated.path ?? "fd \(fd)") (from systemd)")
                return activated
            } else if let settings = configuration.control, let path = settings.socket {
                let listener = try ControlListener.bind(path: path, mode: settings.mode, group: settings.group)
                if listener.replacedStaleSocket { logger.info("control: replaced the stale socket at \(path) (no one was listening: its daemon had died)") }
                logger.info("control: listening on \(path) (mode 0\(String(settings.mode, radix: 8))\(settings.group.map { ", group " + $0 } ?? ""))")
                return listener
            }
            return nil
        } catch {
            if error.inUse { throw .socketInUse(error.description) }
            logger.error("control: \(error); running without the control socket")
            return nil
        }
    }

    /// The descriptors passed, adopted; on an error, none (the error says
    /// which were closed) and the error for the status.
    private func adoptPassedDescriptors(_ environment: [String: String]) -> (descriptors: PassedDescriptors, error: PassedDescriptorsError?) {
        do {
            let passed = try PassedDescriptors.adopt(environment: environment)
            if !passed.isEmpty { logger.info("systemd passed: \(passed.names.joined(separator: ", "))") }
            return (passed, nil)
        } catch {
            logger.warning("systemd's passed descriptors: \(error); starting fresh")
            return (.none, error)
        }
    }

    /// The control socket among the passed descriptors: the one the last
    /// chakrad stored (`control`) while it is still bound at `path` (the
    /// configured one: an edited path is bound anew, and the old socket
    /// leaves the store with what is not used); else chakrad.socket's
    /// (named by its FileDescriptorName=, by default "chakrad.socket"; any
    /// name chakrad does not store); else none.
    static func takeListeningSocket(from passed: inout PassedDescriptors, path: String?) -> Int32? {
        let stored = passed.descriptors(named: StoredDescriptors.control.text)
        if let fd = stored.first, path != nil, UnixSocket.boundPath(of: fd) == path {
            let fds = passed.take(StoredDescriptors.control.text)
            for extra in fds.dropFirst() { Descriptor.close(extra) }
            return fd
        }
        let own = Set(StoredDescriptors.all.map(\.text))
        guard let name = passed.names.first(where: { !own.contains($0) }) else { return nil }
        let fds = passed.take(name)
        for extra in fds.dropFirst() { Descriptor.close(extra) }
        return fds.first
    }

    /// The socket this process bound goes into systemd's store (`control`),
    /// so the next chakrad listens on the very same socket: clients that
    /// connect during a restart wait in its backlog instead of failing.
    /// One passed to this process is in the store already.
    private func storeControlSocket(_ listener: ControlListener, notifier: SystemdNotifier) {
        guard !listener.activated else { return }
        do {
            // A listening socket never hangs up: nothing for systemd to poll.
            try notifier.store([listener.descriptor], as: StoredDescriptors.control, poll: false)
            listener.keepPathForNextProcess()
        } catch {
            logger.warning("control: \(error); clients wait for a restart to bind the socket again")
        }
    }

    /// The screen's device and systemd's store (docs/seams.md): a device
    /// taken over says whether its picture was kept (the status); one passed
    /// but not used leaves the store; one opened here goes into the store
    /// (`drm` or `fb`). True when the picture is to stay on screen at exit
    /// (the device is in the store).
    private func handOverScreen(_ output: DisplayOutput, continuity: ContinuityStart, notifier: SystemdNotifier?) -> Bool {
        if let takenOver = Self.pictureTakenOver(by: output) {
            continuity.picture(takenOver)
            return true
        }
        // Passed, but not taken over (the DRM output could not, or another
        // output or framebuffer opened): systemd's copy must go.
        if continuity.drm != nil {
            continuity.notUsed(StoredDescriptors.drm, "the DRM device passed was not used", notifier: notifier, logger: logger)
        }
        if continuity.framebuffer != nil {
            continuity.notUsed(StoredDescriptors.framebuffer, "the framebuffer passed was not used", notifier: notifier, logger: logger)
        }
        let name = output is FBDevOutput ? StoredDescriptors.framebuffer : StoredDescriptors.drm
        // Nothing passed for the screen: the status names what this output
        // would have taken over.
        if continuity.picture == .opening { continuity.picture(.notPassed(name)) }
        guard let keeping = output as? PictureKeepingOutput, let notifier, continuity.saver != nil else { return false }
        do {
            // Neither a DRM device nor a framebuffer hangs up: nothing for
            // systemd to poll.
            try notifier.store([keeping.deviceDescriptor], as: name, poll: false)
            return true
        } catch {
            logger.warning("continuity: \(error); a restart shows the console between the two processes")
            return false
        }
    }

    /// Whether the output asked for may be DRM, and so take over a DRM
    /// device passed (`auto` with a framebuffer's device node opens fbdev).
    static func mayOpenDRM(_ kind: OutputKind, device: String?) -> Bool {
        switch kind {
        case .drm: true
        case .fbdev, .headless: false
        case .auto: device.flatMap(OutputKind.owning(device:)) != .fbdev
        }
    }

    /// What the output did with the device the last process left: kept its
    /// picture, or set the mode and why; nil when it took none over.
    static func pictureTakenOver(by output: DisplayOutput) -> StartDecision.Picture? {
        switch output {
        case let drm as DRMOutput:
            switch drm.handOver {
            case .kept?: .kept
            case .modeset(let reason)?: .notKept(reason)
            case nil: nil
            }
        case let framebuffer as FBDevOutput:
            switch framebuffer.handOver {
            case .kept?: .kept
            case .set(let reason)?: .notKept("the screen info was set: \(reason)")
            case nil: nil
            }
        default: nil
        }
    }

    /// Closes what nobody took; a name chakrad stores but this version did
    /// not use also leaves systemd's store.
    private func letGoOfUnused(_ passed: inout PassedDescriptors, notifier: SystemdNotifier?) {
        let closed = passed.closeRemaining()
        guard !closed.isEmpty else { return }
        logger.info("systemd passed descriptors not used here, closed: \(closed.map(\.name).joined(separator: ", "))")
        for name in StoredDescriptors.all where closed.contains(where: { $0.name == name.text }) {
            do { try notifier?.removeStored(name) } catch { logger.warning("continuity: \(error)") }
        }
    }

    /// The server on `listener`, started; requests wait in the command
    /// queue until the loop runs.
    private func startControlServer(_ listener: ControlListener, sessions: SessionRecorder?, configReader: ConfigReader) -> ControlServer? {
        let limits = ControlService.limits(configuration.control ?? ChakraConfig.Control())
        let service = ControlService(control: control, configReader: configReader, sessions: sessions,
                                     sessionsFile: configuration.config.sessions.file, logger: logger)
        do {
            let server = try ControlServer(listener: listener, limits: limits, handler: service, logger: logger)
            service.connect(server)
            server.start()
            return server
        } catch {
            logger.error("control: \(error); running without the control socket")
            return nil
        }
    }

    private func describe(_ pacer: FramePacer) -> String {
        let fps = 1 / pacer.frameInterval
        return "up to \(String(fps, decimals: 1)) fps" + (pacer.lead > 0 ? ", paced by vblank" : ", paced by timer")
    }
}
