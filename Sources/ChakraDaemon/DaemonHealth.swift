import ChakraDisplay

/// `chakractl health`: whether the daemon does its job, for update tools
/// (RAUC, Mender, balena) that commit an update or roll it back, and for
/// monitoring. Healthy means a frame reached the screen recently, or the
/// screen shows what it should without new frames (a still or paused
/// scene, the VT switched away), or it is dark on purpose and the
/// read-back says so. Pure: from a status (with the live frames laid over
/// it: `DaemonControl.status(at:)`) and the time now.
///
/// "Recently" is counted from the later of the last frame and the moment
/// frames became due (`DaemonStatus.framesDueSince`: start, the screen
/// powered up, the VT back, the scene resumed), so neither the first
/// seconds after start ("starting") nor those after `display on` are false
/// alarms. A stall that has just ended still counts for as long again as
/// the gap allowed: asked right after a frozen loop thawed, the answer does
/// not depend on whether the loop or the control thread ran first.
public struct DaemonHealth: Sendable, Equatable {
    public var healthy: Bool
    public var reason: String
    /// Seconds since the last frame reached the screen; nil before the first.
    public var lastFrameAge: Double?

    /// How long an animating scene may go without a presented frame:
    /// many frame intervals, and never under a few seconds (a loaded
    /// board, a slow first scene).
    public static func allowedGap(fpsTarget: Double) -> Double {
        max(5, fpsTarget > 0 ? 30 / fpsTarget : 5)
    }

    public static func evaluate(_ status: DaemonStatus, now: Double) -> DaemonHealth {
        let frames = status.frames
        let age = frames.lastAt.map { max(0, now - $0) }
        func verdict(_ healthy: Bool, _ reason: String) -> DaemonHealth {
            DaemonHealth(healthy: healthy, reason: reason, lastFrameAge: age)
        }
        let display = status.display
        if display.screen.power == .off {
            if display.check == "failed" { return verdict(false, "the display should be dark, but: \(display.checkDetail)") }
            return verdict(true, "dark on purpose: \(display.summary)")
        }
        if display.check == "failed" { return verdict(false, "powering the display up failed: \(display.checkDetail)") }
        if status.waitingForDisplay { return verdict(false, "the display is disconnected") }
        let gap = allowedGap(fpsTarget: status.fpsTarget)
        guard let lastAt = frames.lastAt else {
            if status.vtActive, let since = status.framesDueSince, now - since <= gap {
                return verdict(true, "starting: no frame yet, \(String(now - since, decimals: 1)) s after start (\(seconds(gap)) allowed)")
            }
            return verdict(false, "no frame has reached the screen yet")
        }
        if !status.vtActive { return verdict(true, "the VT is switched away (frames resume when it is back)") }
        if let stall = frames.lastStall, now - stall.endedAt < gap {
            return verdict(false, "frames stalled for \(String(stall.seconds, decimals: 1)) s, resumed "
                + "\(String(max(0, now - stall.endedAt), decimals: 1)) s ago (\(seconds(gap)) allowed)")
        }
        if status.paused || status.still { return verdict(true, "a \(status.paused ? "paused" : "still") frame is on screen") }
        // Waiting since the last frame, or since frames became due again
        // (the screen powered up, the VT back), whichever is later.
        let waiting = max(0, now - max(lastAt, status.framesDueSince ?? lastAt))
        if waiting > gap {
            return verdict(false, "no frame for \(Int(waiting.rounded())) s (an animating scene presents every \(status.fpsTarget > 0 ? "1/\(Int(status.fpsTarget.rounded())) s" : "frame"))")
        }
        if let since = status.framesDueSince, since > lastAt {
            return verdict(true, "frames are due again since \(String(now - since, decimals: 1)) s (\(seconds(gap)) allowed)")
        }
        return verdict(true, "frames reach the screen (the last \(Int(((age ?? 0) * 1000).rounded())) ms ago)")
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(String(value, decimals: 1)) s"
    }
}
