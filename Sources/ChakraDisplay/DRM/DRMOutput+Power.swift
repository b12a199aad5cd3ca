import ChakraSystem

/// Powering the display down and up on request: the CRTC made inactive, so
/// the panel gets no signal and goes to standby, then lit again; each
/// change read back from the kernel (the CRTC's ACTIVE, or the connector's
/// DPMS on legacy drivers), since a screen that stays lit at night, or
/// black in the morning, is what users of signage report.
///
/// While powered down nothing is drawn (`isReady` is false) and the loop is
/// not woken for maintenance: a flip in flight is completed first, the
/// periodic connector check and recovery retries wait for the power-up
/// (uevents still follow hotplug). The state survives a VT switch (the
/// console lights the CRTC while away; it is made dark again on return)
/// and ends at `close()`, which puts the console back lit.
extension DRMOutput {
    public var isPoweredDown: Bool { poweredDown }

    public func setPower(on: Bool) -> DisplayPowerReport {
        let check = on ? powerUp() : powerDown()
        let report = DisplayPowerReport(part: "drm", on: on, method: modesetter.powerMethod, check: check)
        let line: Logger.Message = "drm: powered \(on ? "up" : "down"): \(report.method) \(check.kind) (\(check.detail))"
        if check.isFailure { logger.warning(line) } else { logger.info(line) }
        return report
    }

    private func powerDown() -> DisplayPowerCheck {
        poweredDown = true
        if let refused = unreachable(forPowerUp: false) { return refused }
        completePendingFlip()
        do { try modesetter.powerDown() } catch { return .failed("\(error)") }
        return readBack(wanted: false)
    }

    /// The mode is set again (the next present does a full modeset, as
    /// after a VT switch) and a frame is drawn at once; until then the
    /// last frame shows.
    private func powerUp() -> DisplayPowerCheck {
        poweredDown = false
        needsModeset = true
        redrawRequested = true
        // The display may have changed while dark with no uevent to say so.
        if let refused = unreachable(forPowerUp: true) { return refused }
        refreshConnection(now: MonotonicClock.now())
        guard connected else { return .failed("the display is disconnected; it is lit when it comes back") }
        do { try modesetter.powerUp(framebuffer: buffers[onScreen ?? back].framebufferID) } catch {
            failed(error, doing: "power up")
            return .failed("\(error)")
        }
        return readBack(wanted: true)
    }

    /// Why the CRTC cannot be reached now, if it cannot: closed, another
    /// VT in front, DRM master held by another process, display unplugged.
    private func unreachable(forPowerUp on: Bool) -> DisplayPowerCheck? {
        if closed { return .failed("the output is closed") }
        if !active {
            // Another VT's console has the screen, lit as far as anyone knows.
            return on ? .unchecked("the VT is switched away; the screen is lit when it comes back")
                      : .failed("the VT is switched away (another console has the screen); it is powered down when the VT comes back")
        }
        if !device.isMaster {
            do {
                try device.becomeMaster()
                masterLost = false
            } catch {
                masterLost = true
                // Powered up, the usual recovery takes master back once it is free.
                if on { retryAt = MonotonicClock.now() + FlipRecovery.regainMaster.delay(refreshInterval: 0) }
                return .failed("not DRM master (another process has the screen): \(error)")
            }
        }
        if !connected, !on {
            // disconnect() turned the CRTC off already.
            return .unchecked("the display is disconnected (its CRTC was turned off)")
        }
        return nil
    }

    private func readBack(wanted on: Bool) -> DisplayPowerCheck {
        do { return try modesetter.readPower().check(wanted: on) } catch {
            return .failed("cannot read the state back: \(error)")
        }
    }

    /// Back in front while powered down: the console lit the CRTC.
    func keepPoweredDown(after what: String) {
        guard connected else { return }
        do {
            try modesetter.powerDown()
            logger.info("drm: \(what) while powered down: kept dark (\(readBack(wanted: false).detail))")
        } catch {
            logger.warning("drm: \(what) while powered down: cannot power down again: \(error)")
        }
    }
}
