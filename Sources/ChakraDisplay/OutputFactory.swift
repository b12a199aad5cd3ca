import ChakraRaster
import ChakraSystem

/// Opens the output the user asked for; `auto` tries DRM, fbdev, then
/// headless and logs why each earlier one was passed over (docs/design.md,
/// Display).
public enum OutputFactory {
    /// How long a start waits for udev's device events when no display was
    /// found (below).
    public static let deviceSettleLimit = 60.0

    /// `deviceEvents`: when no display opens (auto fell through to
    /// headless, or the asked-for backend failed) while udev still has
    /// device events pending, the screen's driver may not be loaded yet
    /// (at boot, coldplug): wait until they are done, then choose again.
    /// `beforeWaiting` is told the wait's limit first (the daemon asks
    /// systemd for that much more start time).
    public static func open(_ requested: OutputKind, options: OutputOptions, logger: Logger,
                            deviceEvents: DeviceEventQueue = .udev,
                            settleLimit: Double = deviceSettleLimit,
                            beforeWaiting: (Double) -> Void = { _ in }) throws -> DisplayOutput {
        var kind = requested
        if kind == .auto, let device = options.device {
            // A device path names one backend's node.
            guard let owner = OutputKind.owning(device: device) else {
                throw DisplayError.invalidArgument("--device '\(device)': not a DRM (/dev/dri/cardN) or framebuffer (/dev/fbN) node; say which with --output")
            }
            kind = owner
        }
        func waitForDevices(_ why: String) -> Bool {
            guard kind != .headless, deviceEvents.isBusy else { return false }
            logger.notice("output: \(why) while udev is still handling device events (a driver may be loading): waiting up to \(Int(settleLimit)) s")
            beforeWaiting(settleLimit)
            let started = MonotonicClock.now()
            let idle = deviceEvents.waitUntilIdle(limit: settleLimit)
            let waited = ((MonotonicClock.now() - started) * 10).rounded() / 10
            if idle {
                logger.notice("output: udev's device events done after \(waited) s: choosing again")
            } else {
                logger.warning("output: udev still busy after \(waited) s: choosing again anyway")
            }
            return true
        }
        var selected: (output: DisplayOutput, skipped: [SkippedOutput], kind: OutputKind)
        do {
            selected = try select(kind, options: options, logger: logger)
        } catch {
            guard waitForDevices("\(error)") else { throw error }
            selected = try select(kind, options: options, logger: logger)
        }
        if selected.kind == .headless, kind == .auto, waitForDevices("no display found") {
            selected.output.close()
            selected = try select(kind, options: options, logger: logger)
        }
        for skip in selected.skipped { logger.info("output: \(skip)") }
        logger.info("output: \(selected.output.summary)\(requested == .auto ? " (auto)" : "")")
        return selected.output
    }

    /// One choice: the output, what was passed over, and which kind opened.
    private static func select(_ kind: OutputKind, options: OutputOptions,
                               logger: Logger) throws -> (output: DisplayOutput, skipped: [SkippedOutput], kind: OutputKind) {
        var opened = kind
        let (output, skipped) = try OutputSelection.open(kind) { candidate throws -> DisplayOutput in
            opened = candidate
            switch candidate {
            case .drm: return try DRMOutput.open(options: options, logger: logger)
            case .fbdev: return try FBDevOutput(options: options, logger: logger)
            case .headless, .auto:
                return HeadlessOutput(width: options.headlessWidth, height: options.headlessHeight,
                                      format: options.format ?? .xrgb8888,
                                      pngDirectory: options.headlessPNGDirectory, pngEvery: options.headlessPNGEvery, logger: logger)
            }
        }
        return (output, skipped, opened)
    }
}
