import CDRM
import ChakraRaster
import ChakraSystem
import Glibc

/// The screen through DRM/KMS: a connector, its mode, a CRTC, two dumb
/// buffers flipped with page-flip events.
///
/// Buffers: two. Drawing starts when the previous flip completes, so the
/// back buffer is always free; a third would only let a frame be drawn
/// ahead, adding a frame of latency. The first frame, and the first after
/// a VT return, hotplug or failure, is shown with a full (blocking) modeset
/// rather than a flip, so the screen goes from the console to the scene
/// with no black frame.
///
/// Drivers without page flips (the flip says EOPNOTSUPP, or EINVAL again
/// right after a good modeset), or `pageFlips = off`: frames are drawn into
/// the buffer on screen, and drmModeDirtyFB tells the driver which buffer
/// changed. Drivers that copy the buffer to the real screen themselves
/// (virtio-gpu to the host, USB displays) show nothing new without it;
/// those that scan the buffer out directly say ENOSYS, and are not asked
/// again. This can tear; it beats a frozen screen.
///
/// Ownership: owns the device, the buffers, the modesetter and the uevent
/// monitor; `close()` puts back the CRTCs it took. Used from the frame
/// loop's thread only.
public final class DRMOutput: DisplayOutput {
    let device: DRMDevice
    let options: OutputOptions
    let logger: Logger
    let atomic: Bool
    let uevents: UeventMonitor?
    let events = PageFlipEvents()
    public let format: PixelFormat
    public let isVBlankTimed: Bool

    var pipeline: KMSPipeline
    var modesetter: KMSModesetter
    var buffers: [DumbBuffer]
    var saved: [SavedCRTC] = []
    /// The buffer on screen, and the one to draw into.
    var onScreen: Int?
    var back = 0

    // Where the output stands. Everything below is reset by recovery.
    var active = true            // our VT is in front
    var masterLost = false       // a flip or modeset said EACCES/EPERM
    var connected = true
    var needsModeset = true
    var flipPendingSince: Double?
    var retryAt: Double?
    var nextConnectorCheck: Double?
    var redrawRequested = false
    var failures = FailureCounter()
    var closed = false
    /// Drawing into the buffer on screen (no page flips).
    var drawsOnScreen: Bool
    var lastPresentWasModeset = false
    /// Flips refused with EINVAL right after a modeset that worked, in a row.
    var flipRejections = 0
    var dirtyUnsupported = false
    /// Powered down on request (`setPower(on: false)`): nothing is drawn,
    /// and the CRTC stays dark through VT switches and hotplug.
    var poweredDown = false
    /// Taken over from a previous chakrad (docs/seams.md): what became of
    /// its picture, and its framebuffer, removed after the first flip.
    public private(set) var handOver: DRMHandOver?
    var previousFramebuffer: UInt32?

    /// Opens the device the last process handed over, else the asked
    /// device, or the first /dev/dri/card* that can light a connector; the
    /// error names each device and why it could not.
    public static func open(options: OutputOptions, logger: Logger) throws -> DRMOutput {
        if let fd = options.handedOverDRM {
            if let output = takeOver(fd, options: options, logger: logger) { return output }
        }
        let paths = options.device.map { [$0] } ?? DRMDevice.cardPaths()
        guard !paths.isEmpty else { throw DisplayError.unavailable("no DRM device (/dev/dri/card* does not exist)") }
        var reasons: [String] = []
        for path in paths {
            do { return try DRMOutput(path: path, options: options, logger: logger) } catch { reasons.append("\(path): \(error)") }
        }
        throw DisplayError.unavailable(reasons.joined(separator: "; "))
    }

    /// The last process's device taken over, or nil (logged) when it cannot
    /// be: not a KMS device, gone with its driver, no connector to light.
    /// Then its file lets go of DRM master (the file, not this process, is
    /// master: systemd's copy would keep it) so that the device can be
    /// opened afresh; the daemon then asks systemd to drop its copy.
    static func takeOver(_ fd: Int32, options: OutputOptions, logger: Logger) -> DRMOutput? {
        let device: DRMDevice
        do { device = try DRMDevice(adopting: fd) } catch {
            logger.warning("drm: the device the last process left (fd \(fd)) cannot be used (\(error)); opening one afresh")
            Descriptor.close(fd)
            return nil
        }
        do {
            return try DRMOutput(device: device, options: options, handedOver: true, logger: logger)
        } catch {
            logger.warning("drm: the device the last process left (\(device.path)) cannot be taken over (\(error)); opening one afresh")
            device.dropMaster()
            return nil
        }
    }

    convenience init(path: String, options: OutputOptions, logger: Logger) throws {
        try self.init(device: try DRMDevice(path: path), options: options, handedOver: false, logger: logger)
    }

    /// `handedOver`: `device` is a previous chakrad's, still DRM master,
    /// its last frame on screen. When the CRTC chosen shows the mode chosen
    /// on the connector chosen, nothing is modeset: the first frame is a
    /// flip onto it, and that process's framebuffer is removed after it.
    init(device: DRMDevice, options: OutputOptions, handedOver: Bool, logger: Logger) throws {
        guard device.capability(DRM_CAP_DUMB_BUFFER) == 1 else { throw DisplayError.unavailable("no dumb buffers (not a KMS device)") }
        _ = device.enable(DRM_CLIENT_CAP_UNIVERSAL_PLANES)
        let atomic = options.drmInterface != .legacy && device.enable(DRM_CLIENT_CAP_ATOMIC)
        if options.drmInterface == .atomic, !atomic { throw DisplayError.unavailable("the driver does not offer atomic modesetting") }
        do { try device.becomeMaster() } catch {
            throw DisplayError.unavailable("cannot become DRM master (another display server or daemon has the screen): \(error)")
        }
        let probe = try KMSProbe(device: device, force: true)
        let choice = try KMSSelection.choose(in: probe.topology, connectorName: options.connector, mode: options.mode)
        let planeFormats = choice.planeID.flatMap { id in probe.topology.planes.first { $0.id == id }?.formats } ?? []
        let format = try DRMFourCC.choose(requested: options.format,
                                      preferredDepth: Int(device.capability(DRM_CAP_DUMB_PREFERRED_DEPTH) ?? 24),
                                      planeFormats: planeFormats)
        let pipeline = KMSPipeline(choice: choice, rawMode: probe.rawModes[choice.connector.id]![choice.mode.index])
        (self.device, self.options, self.logger, self.atomic, self.pipeline, self.format) = (device, options, logger, atomic, pipeline, format)
        modesetter = Self.makeModesetter(device: device, pipeline: pipeline, atomic: atomic, logger: logger)
        drawsOnScreen = options.pageFlips == .off
        if handedOver {
            let shown = SavedCRTC(device: device, crtcID: choice.crtcID, connectorID: choice.connector.id)?.framebufferID
            Self.releaseEarlierBuffers(device: device, keeping: shown, logger: logger)
        }
        buffers = try (0..<2).map { _ in try DumbBuffer(device: device, width: choice.mode.width, height: choice.mode.height, format: format) }
        isVBlankTimed = Self.hasVBlankTimestamps(device: device, crtcID: choice.crtcID)
        do { uevents = try UeventMonitor() } catch {
            logger.info("drm: no uevents (\(error)); hotplug is seen by the connector check every \(Self.connectorCheckPeriod) s")
            uevents = nil
        }
        if handedOver {
            // The CRTC shows the last process's frame, not the console's:
            // nothing to put back (a stop for good gives the console back
            // through the kernel, when systemd closes its copy).
            let current = SavedCRTC(device: device, crtcID: choice.crtcID, connectorID: choice.connector.id)
            let decision = DRMHandOver.decide(current: current, connectorCRTC: probe.crtcOfConnector(choice.connector.id),
                                              crtcID: choice.crtcID, mode: pipeline.rawMode)
            handOver = decision
            if case .kept = decision { needsModeset = false }
            // Removed once this process's frame replaced it (flip or modeset).
            if let shown = current?.framebufferID, shown != 0 { previousFramebuffer = shown }
            logger.info("drm: handed over by the last process: \(decision)")
        } else {
            saveCRTC(pipeline.choice)
        }
    }

    /// What earlier processes left in a handed-over file, before this one
    /// makes anything: their framebuffers (the file's own, as
    /// GETRESOURCES lists them) but the one on screen, `keeping`, which
    /// goes after this process's first frame; and their GEM handles (a
    /// crash left them all; a clean exit none). Handles are small numbers
    /// given lowest first, so closing the first ones frees what they held;
    /// a framebuffer keeps its own reference to the buffer on screen.
    static func releaseEarlierBuffers(device: DRMDevice, keeping: UInt32?, logger: Logger) {
        var removed = 0
        if let resources = drmModeGetResources(device.fd) {
            let ids = Array(UnsafeBufferPointer(start: resources.pointee.fbs, count: Int(resources.pointee.count_fbs)))
            drmModeFreeResources(resources)
            for id in ids where id != keeping && drmModeRmFB(device.fd, id) == 0 { removed += 1 }
        }
        var closed = 0
        for handle in UInt32(1)...64 where drmCloseBufferHandle(device.fd, handle) == 0 { closed += 1 }
        if removed + closed > 0 { logger.info("drm: released what earlier processes left: \(removed) framebuffers, \(closed) buffer handles") }
    }

    deinit { close() }

    /// Hotplug is seen two ways: kernel uevents when the socket can be had
    /// (at once), and this periodic look at the connectors' cached state
    /// (cheap ioctls, no probing), which also covers status changes that
    /// send no uevent (a connector forced through sysfs) and sandboxes
    /// without netlink.
    static let connectorCheckPeriod = 2.0
    static let flipTimeout = 1.0

    static func makeModesetter(device: DRMDevice, pipeline: KMSPipeline, atomic: Bool, logger: Logger) -> KMSModesetter {
        guard atomic else { return LegacyModesetter(device: device, pipeline: pipeline) }
        do { return try AtomicModesetter(device: device, pipeline: pipeline) } catch {
            logger.warning("drm: \(error); using legacy modesetting")
            return LegacyModesetter(device: device, pipeline: pipeline)
        }
    }

    /// Flip events carry real vblank times only on drivers with vblank
    /// interrupts and monotonic stamps. Without vblank support (bochs,
    /// virtio-gpu) the CRTC sequence query says EOPNOTSUPP, and flips
    /// complete as soon as they are committed; a switched-off CRTC says
    /// EINVAL, which still means vblanks exist.
    static func hasVBlankTimestamps(device: DRMDevice, crtcID: UInt32) -> Bool {
        guard device.capability(DRM_CAP_TIMESTAMP_MONOTONIC) == 1 else { return false }
        var sequence: UInt64 = 0, nanoseconds: UInt64 = 0
        return drmCrtcGetSequence(device.fd, crtcID, &sequence, &nanoseconds) == 0 || errno != EOPNOTSUPP
    }

    func saveCRTC(_ choice: KMSPipelineChoice) {
        guard !saved.contains(where: { $0.crtcID == choice.crtcID }),
              let state = SavedCRTC(device: device, crtcID: choice.crtcID, connectorID: choice.connector.id) else { return }
        saved.append(state)
    }

    public var summary: String {
        "drm \(device.path) \(pipeline.choice.connector.name) \(pipeline.choice.mode) \(format.rawValue) \(modesetter.name)"
            + (isVBlankTimed ? "" : ", no vblank timestamps") + (drawsOnScreen ? ", no page flips (damage reports)" : "")
    }
    public var width: Int { pipeline.width }
    public var height: Int { pipeline.height }
    public var refreshInterval: Double? { pipeline.choice.mode.refresh > 0 ? 1 / pipeline.choice.mode.refresh : nil }
    public var usesConsole: Bool { true }
    /// The open device (for systemd's store: `drm`).
    public var deviceDescriptor: Int32 { device.fd }
    public var pollDescriptors: [Int32] { [device.fd] + (uevents.map { [$0.descriptor] } ?? []) }

    public var isReady: Bool {
        !closed && active && !masterLost && connected && !poweredDown && flipPendingSince == nil && retryAt == nil
    }

    public var isWaitingForDisplay: Bool { !connected }

    /// The buffer the next frame is drawn into: the back buffer, or the one
    /// on screen when there are no page flips.
    var drawIndex: Int { drawsOnScreen ? onScreen ?? back : back }

    public func drawBuffer() -> PixelBuffer { buffers[drawIndex].pixels }

    public func frontBuffer() -> PixelBuffer? { onScreen.map { buffers[$0].pixels } }

    public func present() -> Presentation? {
        guard isReady else { return nil }
        let drawn = drawIndex
        let framebuffer = buffers[drawn].framebufferID
        if needsModeset {
            do { try modesetter.modeset(framebuffer: framebuffer) } catch {
                failed(error, doing: "modeset \(pipeline.choice.connector.name) \(pipeline.choice.mode)")
                return nil
            }
            needsModeset = false
            lastPresentWasModeset = true
            recovered()
            show(drawn)
            removePreviousFramebuffer()
            return Presentation(timestamp: nil)
        }
        defer { lastPresentWasModeset = false }
        if drawsOnScreen { return reportDamage(framebuffer) }
        do { try modesetter.flip(to: framebuffer, userData: events.userData) } catch {
            flipRejections = lastPresentWasModeset && error.errno == EINVAL ? flipRejections + 1 : 0
            if FlipRecovery.flipsUnsupported(errno: error.errno, rejectionsAfterGoodModeset: flipRejections) {
                logger.warning("drm: page flips not supported (\(error)); drawing into the buffer on screen with damage reports (drmModeDirtyFB); frames may tear")
                drawsOnScreen = true
                redrawRequested = true
                return nil
            }
            failed(error, doing: "page flip")
            return nil
        }
        flipRejections = 0
        flipPendingSince = MonotonicClock.now()
        return nil
    }

    /// The buffer on screen was redrawn: tell the driver (the whole frame).
    private func reportDamage(_ framebuffer: UInt32) -> Presentation? {
        guard !dirtyUnsupported else { return Presentation(timestamp: nil) }
        if drmModeDirtyFB(device.fd, framebuffer, nil, 0) != 0 {
            let code = errno
            if code == ENOSYS || code == EOPNOTSUPP {
                dirtyUnsupported = true
                logger.info("drm: the driver scans out the buffer directly (no damage reports needed)")
            } else {
                failed(SystemError(call: "drmModeDirtyFB", errno: code), doing: "damage report")
                return nil
            }
        }
        recovered()
        return Presentation(timestamp: nil)
    }

    /// `index` is on screen now; with page flips the other buffer is next.
    func show(_ index: Int) {
        onScreen = index
        back = (index + 1) % buffers.count
    }

    public func handleReadable(descriptor: Int32, now: Double) -> Presentation? {
        if descriptor == uevents?.descriptor {
            if uevents!.drainHotplug() { refreshConnection(now: now) }
            return nil
        }
        // A completion with no flip outstanding is a late event from before
        // a recovery or VT switch: nothing of ours changed.
        guard events.dispatch(fd: device.fd), flipPendingSince != nil else { return nil }
        flipPendingSince = nil
        recovered()
        show(back)
        removePreviousFramebuffer()
        return Presentation(timestamp: isVBlankTimed ? events.timestamp : nil)
    }

    public func takeRedrawRequest() -> Bool {
        defer { redrawRequested = false }
        return redrawRequested
    }

    public func suspend() {
        active = false
        device.dropMaster()
    }

    public func resume() {
        active = true
        flipPendingSince = nil
        do {
            try device.becomeMaster()
            masterLost = false
        } catch {
            logger.warning("drm: cannot take DRM master back yet: \(error); retrying")
            masterLost = true
            retryAt = MonotonicClock.now() + FlipRecovery.regainMaster.delay(refreshInterval: 0)
        }
        needsModeset = true
        redrawRequested = true
        // The console lit the CRTC while the VT was away: dark again.
        if poweredDown, !masterLost { keepPoweredDown(after: "the VT came back") }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        completePendingFlip()
        if device.isMaster || (try? device.becomeMaster()) != nil {
            for state in saved.reversed() { logger.info("drm: \(state.restore(device: device))") }
            // The console comes back lit: SetCrtc lights an atomic driver's
            // CRTC by itself, but a connector's DPMS stays off.
            if poweredDown, let legacy = modesetter as? LegacyModesetter {
                do { try legacy.dpmsOn() } catch { logger.info("drm: DPMS on for the console: \(error)") }
            }
        }
        buffers.removeAll()   // framebuffers, mappings, dumb buffers
    }

    /// The last process's frame is off the screen (this one's first flip
    /// completed, or a modeset replaced it): its framebuffer goes, and with
    /// it the buffer's memory.
    func removePreviousFramebuffer() {
        guard let framebuffer = previousFramebuffer else { return }
        previousFramebuffer = nil
        let removed = drmModeRmFB(device.fd, framebuffer)
        logger.info(removed == 0 ? "drm: removed the last process's framebuffer \(framebuffer)"
                                 : "drm: could not remove the last process's framebuffer \(framebuffer) (\(removed))")
    }

    /// A restart under systemd (docs/seams.md): the frame on screen stays
    /// there for the next process, which gets this open file from
    /// systemd's store (DRM master with it). No CRTC is put back; the
    /// other buffer is freed, the one on screen keeps its framebuffer.
    public func leavePictureForNextProcess() {
        guard !closed else { return }
        closed = true
        completePendingFlip()
        if let onScreen { buffers[onScreen].leaveOnScreen() }
        buffers.removeAll()
        logger.info("drm: the picture stays on screen for the next process")
    }

    /// Waits for a flip in flight (up to 200 ms) and takes its completion:
    /// a commit or SetCrtc while it is pending fails with EBUSY.
    func completePendingFlip() {
        guard flipPendingSince != nil else { return }
        var descriptors = [pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)]
        if ((try? Poller.wait(&descriptors, milliseconds: 200)) ?? 0) > 0, events.dispatch(fd: device.fd) { show(back) }
        flipPendingSince = nil
    }
}
