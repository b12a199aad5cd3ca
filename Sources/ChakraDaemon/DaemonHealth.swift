/// `chakractl health`: whether the daemon does its job, for update tools
/// (RAUC, Mender, balena) that commit an update or roll it back, and for
/// monitoring. Healthy means a frame reached the screen recently, or the
/// screen shows what it should without new frames (a still or paused
/// scene, the VT switched away), or it is dark on purpose and the
/// read-back says so. Pure: from a status and the time now.
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
        let age = status.lastFrameAt.map { max(0, now - $0) }
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
        guard let age else { return verdict(false, "no frame has reached the screen yet") }
        if !status.vtActive { return verdict(true, "the VT is switched away (frames resume when it is back)") }
        if status.paused || status.still { return verdict(true, "a \(status.paused ? "paused" : "still") frame is on screen") }
        let gap = allowedGap(fpsTarget: status.fpsTarget)
        if age > gap {
            return verdict(false, "no frame for \(Int(age.rounded())) s (an animating scene presents every \(status.fpsTarget > 0 ? "1/\(Int(status.fpsTarget.rounded())) s" : "frame"))")
        }
        return verdict(true, "frames reach the screen (the last \(Int((age * 1000).rounded())) ms ago)")
    }
}
