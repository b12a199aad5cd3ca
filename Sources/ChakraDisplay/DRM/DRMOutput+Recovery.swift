import CDRM
import ChakraRaster
import ChakraSystem

/// Failed flips, stalled flips, lost DRM master and hotplug: whatever
/// happens, the output ends up either showing frames again or knowingly
/// waiting (for the display to come back, for master).
extension DRMOutput {
    public var nextMaintenance: Double? {
        // Powered down: nothing to keep up until powered up (which checks
        // the connection); uevents still wake the loop for hotplug.
        if poweredDown { return nil }
        // Asked every frame: no arrays (no allocation).
        var next = nextConnectorCheck ?? 0
        if let since = flipPendingSince { next = min(next, since + Self.flipTimeout) }
        if let retryAt { next = min(next, retryAt) }
        return next
    }

    public func maintain(now: Double) {
        if poweredDown { return }
        if let since = flipPendingSince, now - since > Self.flipTimeout {
            logger.warning("drm: page flip did not complete within \(Self.flipTimeout) s; setting the mode again")
            flipPendingSince = nil
            needsModeset = true
            redrawRequested = true
        }
        if let due = retryAt, now >= due {
            retryAt = nil
            if masterLost {
                guard active else { return }
                do {
                    try device.becomeMaster()
                    masterLost = false
                    logger.info("drm: DRM master regained")
                } catch {
                    retryAt = now + FlipRecovery.regainMaster.delay(refreshInterval: 0)
                    return
                }
            }
            refreshConnection(now: now)
            redrawRequested = true
        }
        if now >= nextConnectorCheck ?? 0 {
            nextConnectorCheck = now + Self.connectorCheckPeriod
            refreshConnection(now: now)
        }
    }

    func failed(_ error: SystemError, doing what: String) {
        let recovery = FlipRecovery(errno: error.errno)
        if failures.record() {
            logger.warning("drm: \(what) failed: \(error) (failure \(failures.count)); recovering: \(recovery)")
        }
        if recovery == .regainMaster { masterLost = true }
        if recovery != .retryLater { needsModeset = true }
        retryAt = MonotonicClock.now() + recovery.delay(refreshInterval: refreshInterval ?? 1.0 / 60)
    }

    func recovered() {
        let count = failures.reset()
        if count > 0 { logger.info("drm: showing frames again after \(count) failure(s)") }
    }

    /// Reads the connectors' current state and follows it: the display went
    /// away (turn the CRTC off and wait), came back or changed (choose again,
    /// new buffers if the size changed, full modeset, redraw).
    func refreshConnection(now: Double) {
        let probe: KMSProbe
        let choice: KMSPipelineChoice
        do {
            // The kernel's cached state first: cheap, and enough to see that
            // nothing changed or that the display is gone.
            let current = try KMSProbe(device: device, force: false, planes: false)
            let quick = try KMSSelection.choose(in: current.topology, connectorName: options.connector, mode: options.mode)
            if connected, quick.connector.id == pipeline.choice.connector.id, quick.mode == pipeline.choice.mode { return }
            // Something came or changed: probe for real (fresh modes), once.
            probe = try KMSProbe(device: device, force: true)
            choice = try KMSSelection.choose(in: probe.topology, connectorName: options.connector, mode: options.mode)
        } catch {
            if connected { disconnect(because: "\(error)") }
            return
        }
        adopt(choice, rawMode: probe.rawModes[choice.connector.id]![choice.mode.index])
    }

    private func disconnect(because reason: String) {
        logger.warning("drm: display gone (\(reason)); waiting for it to come back")
        connected = false
        flipPendingSince = nil
        if device.isMaster, active { try? modesetter.disable() }
        onScreen = nil
    }

    private func adopt(_ choice: KMSPipelineChoice, rawMode: drmModeModeInfo) {
        let resized = choice.mode.width != pipeline.width || choice.mode.height != pipeline.height
        if choice.crtcID != pipeline.choice.crtcID, connected, device.isMaster { try? modesetter.disable() }
        if resized {
            do {
                buffers = try (0..<2).map { _ in try DumbBuffer(device: device, width: choice.mode.width, height: choice.mode.height, format: format) }
            } catch {
                logger.error("drm: cannot allocate buffers for \(choice.mode): \(error); retrying")
                retryAt = MonotonicClock.now() + 1
                return
            }
            onScreen = nil
            back = 0
        }
        saveCRTC(choice)
        pipeline = KMSPipeline(choice: choice, rawMode: rawMode)
        modesetter = Self.makeModesetter(device: device, pipeline: pipeline, atomic: atomic, logger: logger)
        logger.info("drm: display \(connected ? "changed" : "back"): \(summary)")
        connected = true
        needsModeset = true
        redrawRequested = true
    }
}
