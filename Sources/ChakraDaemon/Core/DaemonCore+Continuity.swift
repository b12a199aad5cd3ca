import ChakraConfig
import ChakraContinuity
import ChakraControl
import ChakraScenes
import ChakraSystem

/// Continuity across a restart (issue 30, docs/seams.md): the record of
/// what is on screen, saved (by the shell: `.saveContinuation`) whenever
/// the next process would read something new in it, and read back at
/// start. The core only builds the record and decides; the memory file
/// and systemd's store are the shell's.
extension DaemonCore {
    /// Saving is asked for only while this is on (the shell has a store).
    public var keepsContinuation: Bool {
        get { continuity.enabled }
        set { continuity.enabled = newValue }
    }

    /// What the next process needs to go on from here, at `now`.
    public func continuationRecord() -> ContinuationRecord {
        var record = ContinuationRecord(takenAt: now, scene: sceneName, sceneTime: scenes.time(at: now), paused: scenes.clock.isFrozen,
                                        settings: continuity.runtime.configured(from: continuity.configured))
        record.displayMode = ContinuationRecord.DisplayMode(rawValue: screen.mode.rawValue) ?? .auto
        record.display = ContinuationRecord.DisplayPower(rawValue: screen.screen.power.rawValue) ?? .on
        record.spiral = spiralProgress()
        // A pattern or language the record cannot name (a space in a
        // custom pattern's name) is left out, not the whole record.
        if record.problem?.field == "spiral" { record.spiral = nil }
        if record.problem?.field == "language" { record.settings.language = nil }
        if record.problem?.field == "configured-language" { record.settings.configured.language = nil }
        return record
    }

    private func spiralProgress() -> ContinuationRecord.SpiralProgress? {
        guard let running = scenes.exercise, let report = exerciseReport(withPath: false),
              let state = ContinuationRecord.SpiralProgress.State(rawValue: report.state) else { return nil }
        let held = running.holdElapsed(at: scenes.time(at: now))
        return ContinuationRecord.SpiralProgress(state: state, progress: min(1, max(0, report.progress)), holdElapsed: max(0, held),
                                                 pattern: report.pattern)
    }

    /// After every input: a command or a stop is looked at at once, the
    /// rest (frames, touches, timers) at most every `tickInterval`.
    func keepContinuation(after input: DaemonInput) {
        guard continuity.enabled else { return }
        switch input {
        case .command, .stop: break
        default: guard continuity.tickLookDue(now: now) else { return }
        }
        let record = continuationRecord()
        let forced: Bool
        if case .stop = input { forced = true } else { forced = false }
        guard forced || continuity.wantsSave(record, now: now) else { return }
        continuity.saved(record, at: now)
        perform(.saveContinuation(record))
    }

    /// `chakractl set`: the record keeps what was changed at run time, so
    /// the next process applies it again over its configuration.
    func noteRuntimeChange(_ change: SettingChange) {
        switch change {
        case .reduceMotion(let on): continuity.runtime.reduceMotion = on
        case .lowPower(let on): continuity.runtime.lowPower = on
        case .language(let code): continuity.runtime.language = code
        case .brightness(let percent): continuity.runtime.brightness = percent
        }
    }

    /// What the configuration `config` (files and command line, before
    /// anything `chakractl set` changed) says of the settings the hand can
    /// change.
    static func configured(_ config: ChakraConfig) -> ContinuationRecord.Configured {
        ContinuationRecord.Configured(reduceMotion: config.reduceMotion, lowPower: config.lowPower.enabled, language: config.text.language)
    }

    /// After every reload: what the configuration says now, for the record.
    func noteConfigurationRead() {
        continuity.configured = Self.configured(configuration.overrides.apply(to: configuration.file))
    }

    /// A reload that set a value the hand had changed: the file's value
    /// holds now, and a restart must not bring the hand's back.
    func forgetRuntimeChangesReplaced() {
        let settings = configuration.settings
        var runtime = continuity.runtime
        if let on = runtime.reduceMotion, on != settings.reduceMotion { runtime.reduceMotion = nil }
        if let on = runtime.lowPower, on != settings.lowPower { runtime.lowPower = nil }
        if let code = runtime.language, code != configuration.config.text.language { runtime.language = nil }
        continuity.runtime = runtime
    }

    // MARK: at start

    /// The configuration the first scene is made with: the record's scene
    /// (when this build has it) and its run-time settings laid over
    /// `configuration`, as a reload would lay them: one the configuration
    /// changed since the record was taken (an upgrade's new file, an edit)
    /// yields to the configuration; the run-time settings kept for the
    /// next record.
    static func continuing(_ record: ContinuationRecord, from configuration: DaemonConfiguration, names: [String],
                           runtime keeper: ContinuityKeeper, logger: Logger) -> DaemonConfiguration {
        var first = configuration
        if names.contains(record.scene) {
            first.scene = record.scene
        } else {
            logger.warning("continuity: scene \(record.scene) is not in this build; starting \(configuration.scene)")
        }
        let (runtime, dropped) = record.settings.laid(over: configured(configuration.config))
        if !dropped.isEmpty {
            logger.info("continuity: the configuration changed \(dropped.joined(separator: ", ")) since it was set at run time; its value applies")
        }
        if let on = runtime.reduceMotion { first.settings.reduceMotion = on }
        if let on = runtime.lowPower { first.settings.lowPower = on }
        if let code = runtime.language { first.config.text.language = code }
        keeper.runtime = runtime
        return first
    }

    /// The scene's clock where the record left it (plus the gap), the
    /// brightness and the display mode the hand set, the idle timers as
    /// far on as the screen was dimmed or blanked by them. The screen's
    /// power is then decided again (the schedule, the idle timers, the
    /// hand's mode): a dark kiosk stays dark. An exercise under way is not
    /// resumed: the last process recorded it as interrupted, and the
    /// spiral waits for a new one.
    func continueClockAndScreen(_ record: ContinuationRecord) {
        if sceneName == record.scene, configuration.pinnedTime == nil {
            scenes.continueClock(at: record.sceneTime(continuingAt: now), paused: record.paused, now: now)
        }
        if let percent = record.settings.brightness, let backlight = screen.backlight {
            do {
                try backlight.set(percent: percent)
                screen.brightness = percent
            } catch {
                logger.warning("continuity: backlight \(percent)%: \(error)")
                continuity.runtime.brightness = nil
            }
        }
        if let mode = DisplayPowerMode(rawValue: record.displayMode.rawValue), mode != .auto {
            _ = screen.setMode(mode, now: now)
        }
        // A screen the idle timers had dimmed or blanked stays so.
        let idleState: PowerState = record.display == .off ? .blanked : record.display == .dimmed ? .dimmed : .normal
        if record.displayMode == .auto, let idle = idlePolicy.idleToContinue(display: idleState, lowPower: configuration.settings.lowPower) {
            screen.continueIdle(idle, now: now)
        }
        if let spiral = record.spiral, spiral.state != .idle, spiral.state != .completed {
            logger.info("continuity: the exercise (\(spiral.state.rawValue)) is not resumed; the spiral waits for a new one")
        }
        let time = scenes.time(at: now)
        logger.info("continuity: continuing \(sceneName) at \(time) s\(record.paused ? " (paused)" : ""), display \(record.displayMode.rawValue)")
    }
}
