import ChakraDisplay

/// What `health` judges by (DaemonHealth): since when frames have been due,
/// and the frames that came, with the last stall between two of them.
extension DaemonCore {
    /// Frames are expected now: the first one from the start, then while
    /// the picture moves on a screen that is on, in front and plugged in.
    /// Not while a still or paused picture is up, the screen is off, the VT
    /// is away or the display unplugged: those gaps are by design. A flip
    /// that never completes (`outputReady` false) is no design: frames
    /// stay due.
    var framesDue: Bool {
        vtActive && !display.waitingForDisplay && screen.power != .off && (!firstFrameShown || animating)
    }

    /// After every input: the moment frames became due again (start, the
    /// screen powered up, the VT back, the display plugged in, the scene
    /// resumed) is kept until they stop being due. Health measures the
    /// wait for a frame from the later of this and the last frame, so a
    /// frame from before the screen went off is not late.
    func followFramesDue() {
        if !framesDue {
            framesDueSince = nil
        } else if framesDueSince == nil {
            framesDueSince = now
        }
    }

    /// A frame reached the screen now: counted, and the wait for it
    /// remembered as a stall when frames were due all along and it was
    /// longer than health allows. Once per frame: no allocation (the log
    /// line comes with a stall only).
    func countFrameOnScreen() {
        if let dueSince = framesDueSince {
            let waited = now - max(frameProgress.lastAt ?? dueSince, dueSince)
            if waited > DaemonHealth.allowedGap(fpsTarget: 1 / pacer.frameInterval) {
                frameProgress.lastStall = FrameStall(seconds: waited, endedAt: now)
                logger.warning("frames: none reached the screen for \(String(waited, decimals: 1)) s while they were due")
            }
        }
        frameProgress.presented = meter.totalFrames
        frameProgress.lastAt = now
    }
}
