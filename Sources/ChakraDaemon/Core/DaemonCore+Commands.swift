import ChakraConfig
import ChakraRaster
import ChakraScenes

/// Requests from the control socket, settings and reloads.
extension DaemonCore {
    /// Applies `command`, publishes the new status, then answers: a reply
    /// never shows a status older than the change it reports.
    func handle(_ command: DaemonCommand) {
        var answer: (@Sendable () -> Void)?
        switch command {
        case .switchScene(let request, let reply):
            noteActivity()
            let previous = sceneName
            let transition = SceneTransition(kind: request.transition ?? defaultTransition.kind,
                                             duration: request.duration ?? defaultTransition.duration)
            let result = switchScene(to: request.scene, transition: transition).map {
                SceneChangeReport(scene: request.scene, previous: previous, transition: transition)
            }
            answer = { reply(result) }
        case .playback(let paused, let reply):
            noteActivity()
            setPaused(paused)
            answer = { reply(.success(())) }
        case .change(let change, let reply):
            noteActivity()
            let result = apply(change)
            if case .success = result { noteRuntimeChange(change) }
            answer = { reply(result) }
        case .snapshotFrame(let reply):
            // The shell answers snapshots from the output's memory.
            answer = { reply(.failure(.noFrameYet)) }
        case .applyConfiguration(let loaded, let reply):
            noteActivity()
            let result = reload(.success(loaded), by: "reload")
            answer = { reply(result) }
        case .refuseConfiguration(let error, let reply):
            let result = reload(.failure(error), by: "reload")
            answer = { reply(result) }
        case .signalReload(let read):
            reloadFromSignal(read)
        case .activity(let reply):
            noteActivity()
            let state = screen.idle
            answer = { reply?(.success(state)) }
        case .touch(let event, let reply):
            handleTouch(event)
            answer = { reply(.success(())) }
        case .spiral(let command, let pattern, let reply):
            noteActivity()
            let result = spiral(command, pattern: pattern)
            answer = { reply(result) }
        case .display(let mode, let reply):
            setDisplayMode(mode)
            answer = { reply(.success(())) }
        case .schedulePlan(let reply):
            let result = schedulePlan()
            answer = { reply(result) }
        case .stop:
            stop()
        }
        publishStatus()
        if let answer { perform(.reply(answer)) }
    }

    /// Reduce motion / low power: the scene is rebuilt for them, the pacer
    /// takes the low-power cap, and the idle timers start or stop. Nothing
    /// changes when the scene cannot be made with them.
    func apply(_ settings: RenderSettings) -> Result<Void, DaemonCommandError> {
        guard settings != configuration.settings else { return .success(()) }
        let before = configuration.settings
        configuration.settings = settings
        guard rebuildScene(reason: "settings changed") else {
            configuration.settings = before
            return .failure(.notSupported("the scene could not be made with these settings; nothing changed"))
        }
        updatePower()
        settingsChanged()
        return .success(())
    }

    private func apply(_ change: SettingChange) -> Result<Void, DaemonCommandError> {
        var settings = configuration.settings
        switch change {
        case .reduceMotion(let on): settings.reduceMotion = on
        case .lowPower(let on): settings.lowPower = on
        case .language(let code):
            guard code != configuration.config.text.language else { return .success(()) }
            configuration.config.text.language = code
            logger.info("language: \(code)")
            settingsChanged()
            return .success(())
        case .brightness(let percent):
            guard let backlight = screen.backlight else {
                return .failure(.notSupported("no backlight to set (none under /sys/class/backlight, or [display] backlight = \"none\")"))
            }
            do {
                try backlight.set(percent: percent)
            } catch {
                return .failure(.notSupported("\(error)"))
            }
            screen.brightness = percent
            logger.info("backlight: \(backlight.name) at \(percent)%")
            settingsChanged()
            return .success(())
        }
        return apply(settings)
    }

    func settingsChanged() {
        emit(.settingsChanged(configuration.settings, language: configuration.config.text.language, brightness: screen.brightness))
    }

    // MARK: reload

    /// SIGHUP: the files as the reader read them (their warnings go to the
    /// journal: nobody is there to read an answer). `handle` publishes the
    /// status after, so a refusal's count shows at once.
    func reloadFromSignal(_ read: Result<LoadedConfig, ConfigError>) {
        if case .success(let loaded) = read {
            for warning in loaded.warnings { logger.warning("config: \(warning)") }
        }
        _ = reload(read, by: "SIGHUP")
    }

    /// A reload, whichever way it came (SIGHUP, `reload`): the files as
    /// read, or why they could not be. Every refusal is counted here, the
    /// one place, and logged; the old settings stay.
    func reload(_ read: Result<LoadedConfig, ConfigError>, by way: String) -> Result<ReloadReport, DaemonCommandError> {
        let result: Result<ReloadReport, DaemonCommandError>
        switch read {
        case .success(let loaded): result = reload(loaded)
        case .failure(let error): result = .failure(.configInvalid(error.description))
        }
        if case .failure(let error) = result {
            tallies.errors[.configReload] += 1
            logger.error("\(way): kept the old settings; the configuration was refused:\n\(error)")
        }
        return result
    }

    /// Files read without errors: checked against this build, then what
    /// can change at run time is applied. A refusal changes nothing.
    private func reload(_ loaded: LoadedConfig) -> Result<ReloadReport, DaemonCommandError> {
        do {
            try ConfigSource.check(loaded)
        } catch {
            return .failure(.configInvalid(error.description))
        }
        let before = configuration
        var report = configuration.reload(loaded.config)
        configuration.configFiles = loaded.files
        report.warnings = loaded.warnings.map(\.description)
        if configuration.settings != before.settings || configuration.rotation != before.rotation || configuration.threads != before.threads {
            guard rebuildScene(reason: "configuration reloaded") else {
                configuration = before
                return .failure(.notSupported("the scene could not be made with the new configuration; kept the old one"))
            }
        } else if configuration.effectiveFPSCap != before.effectiveFPSCap {
            pacing.repace(display: display, configuration: configuration)
        }
        noteConfigurationRead()
        if configuration.settings != before.settings || configuration.config.text.language != before.config.text.language {
            settingsChanged()
            forgetRuntimeChangesReplaced()
        }
        if configuration.config.schedule != before.config.schedule { evaluateSchedule() }
        // A new directory or interval takes effect at once: the file is
        // written at the next turn, then every (new) interval.
        if configuration.config.metrics != before.config.metrics { pacing.writeMetricsSoon(now: now) }
        updatePower()
        var summary = report.changed.isEmpty ? "nothing changed" : "changed " + report.changed.joined(separator: ", ")
        if !report.restartNeeded.isEmpty { summary += "; needs a restart: " + report.restartNeeded.joined(separator: ", ") }
        if !report.ignored.isEmpty { summary += "; set on the command line: " + report.ignored.joined(separator: ", ") }
        logger.notice("configuration reloaded from \(loaded.file ?? "defaults"): \(summary)")
        emit(.configReloaded(file: loaded.file, report: report, control: configuration.config.control))
        return .success(report)
    }
}
