import ChakraConfig
import ChakraContinuity
import ChakraControl
import ChakraDisplay
import ChakraSystem
import Glibc
import Synchronization
import Testing
@testable import ChakraDaemon

/// The records the core asked to keep, with the virtual time they came at.
final class KeptRecords: ContinuationOutput {
    private(set) var saved: [ContinuationRecord] = []
    func save(_ record: ContinuationRecord) { saved.append(record) }
    var last: ContinuationRecord? { saved.last }
}

@Suite("Continuity: the record the core keeps, and the start from one")
struct ContinuityTests {
    // MARK: saving

    @Test("a running scene is saved once, then not again while only its time passes")
    func timePassingSavesNothing() throws {
        let kept = KeptRecords()
        let driver = try CoreDriver(keeping: kept)
        driver.run(until: 110)
        #expect(kept.saved.count == 1)
        let record = try #require(kept.last)
        #expect(record.scene == "heart" && !record.paused && record.display == .on && record.displayMode == .auto)
        // The record taken at the first look goes on with the clock.
        #expect(abs(record.sceneTime(continuingAt: 110) - driver.core.scenes.time(at: 110)) < 1e-9)
    }

    @Test("without a store (no systemd) the core asks for no save")
    func noStoreNoSaves() throws {
        let kept = KeptRecords()
        let driver = try CoreDriver(keeping: kept)
        driver.core.keepsContinuation = false
        driver.run(until: 102)
        _ = driver.command { .switchScene(SceneSwitch(scene: "calm", transition: .cut), reply: $0) }
        driver.run(until: 103)
        #expect(kept.saved.isEmpty)
    }

    @Test("a scene switch, a pause, a setting, the display mode each save at once, with what changed")
    func changesSaveAtOnce() throws {
        let kept = KeptRecords()
        let driver = try CoreDriver(keeping: kept)
        driver.run(until: 101)
        var count = kept.saved.count
        _ = driver.command { .switchScene(SceneSwitch(scene: "calm", transition: .cut), reply: $0) }
        #expect(kept.saved.count == count + 1 && kept.last?.scene == "calm" && kept.last?.sceneTime == 0)
        count = kept.saved.count
        driver.run(until: 103)
        _ = driver.command { .playback(paused: true, reply: $0) }
        #expect(kept.saved.count == count + 1 && kept.last?.paused == true)
        #expect(abs((kept.last?.sceneTime ?? 0) - 2) < 1e-9)
        count = kept.saved.count
        _ = driver.command { .change(.reduceMotion(true), reply: $0) }
        // With what the configuration says of it, for the next process.
        #expect(kept.saved.count == count + 1
            && kept.last?.settings == ContinuationRecord.RuntimeSettings(reduceMotion: true, configured: .init(reduceMotion: false)))
        count = kept.saved.count
        _ = driver.command { .display(.off, reply: $0) }
        #expect(kept.saved.count == count + 1 && kept.last?.displayMode == .off && kept.last?.display == .off)
        // A command that changes nothing saves nothing.
        count = kept.saved.count
        _ = driver.command { .display(.off, reply: $0) }
        #expect(kept.saved.count == count)
    }

    @Test("a stop saves the record as it is at the stop")
    func stopSaves() throws {
        let kept = KeptRecords()
        let driver = try CoreDriver(keeping: kept)
        driver.run(until: 105)
        let count = kept.saved.count
        driver.send(.stop, at: 105.5)
        #expect(kept.saved.count == count + 1 && kept.last?.takenAt == 105.5)
    }

    @Test("the exercise's state saves at once; its progress alone at most twice a second")
    func exerciseProgressThrottled() throws {
        let kept = KeptRecords()
        let driver = try CoreDriver(keeping: kept)
        driver.rendering = false
        driver.run(until: 101)
        #expect(succeeded(driver.command { .spiral(.start, reply: $0) }))
        #expect(kept.last?.scene == "spiral")
        let start = kept.saved.count
        // Breathing in: a finger on the light, moving along.
        driver.run(until: 110)
        let saves = kept.saved[start...]
        let times = saves.map(\.takenAt)
        for (a, b) in zip(times, times.dropFirst()) {
            let sameState = saves.first { $0.takenAt == a }?.spiral?.state == saves.first { $0.takenAt == b }?.spiral?.state
            if sameState { #expect(b - a >= ContinuityKeeper.progressInterval - 1e-9) }
        }
        #expect(saves.count <= Int(9 / ContinuityKeeper.progressInterval) + 4)
    }

    @Test("keeper: the same clock read later is no change; another origin, a pause or a new state is")
    func keeperDecides() {
        let keeper = ContinuityKeeper()
        let a = ContinuationRecord(takenAt: 100, scene: "heart", sceneTime: 10)
        #expect(keeper.wantsSave(a, now: 100))
        keeper.saved(a, at: 100)
        var later = a
        (later.takenAt, later.sceneTime) = (150, 60)
        #expect(!keeper.wantsSave(later, now: 150))
        var jumped = later
        jumped.sceneTime = 0
        #expect(keeper.wantsSave(jumped, now: 150))
        var paused = later
        paused.paused = true
        #expect(keeper.wantsSave(paused, now: 150))
        var spiral = a
        spiral.spiral = ContinuationRecord.SpiralProgress(state: .inhale, progress: 0.1, holdElapsed: 0, pattern: "box")
        #expect(keeper.wantsSave(spiral, now: 100))
        keeper.saved(spiral, at: 100)
        var further = spiral
        further.spiral?.progress = 0.2
        #expect(!keeper.wantsSave(further, now: 100.4))
        #expect(keeper.wantsSave(further, now: 100.5))
        var held = spiral
        held.spiral?.state = .hold
        #expect(keeper.wantsSave(held, now: 100.1))
    }

    @Test("a reload that sets a value the hand had changed: the hand's is forgotten")
    func reloadForgetsReplaced() throws {
        let kept = KeptRecords()
        let driver = try CoreDriver(keeping: kept)
        driver.run(until: 101)
        _ = driver.command { .change(.lowPower(true), reply: $0) }
        #expect(kept.last?.settings.lowPower == true)
        var settings = driver.core.configuration.settings
        settings.lowPower = false
        _ = driver.core.apply(settings)
        driver.core.forgetRuntimeChangesReplaced()
        #expect(driver.core.continuationRecord().settings.lowPower == nil)
    }

    // MARK: starting from a record

    @Test("a record: its scene at its time plus the gap, its run-time settings, its display mode")
    func startContinues() throws {
        var record = ContinuationRecord(takenAt: 90, scene: "calm", sceneTime: 42.5)
        record.settings = ContinuationRecord.RuntimeSettings(reduceMotion: true, language: "de")
        record.displayMode = .off
        let kept = KeptRecords()
        let driver = try CoreDriver(continuing: record, keeping: kept)
        #expect(driver.core.sceneName == "calm")
        // The driver starts at 100: ten seconds after the record.
        #expect(abs(driver.core.scenes.time(at: 100) - 52.5) < 1e-9)
        #expect(driver.core.configuration.settings.reduceMotion)
        #expect(driver.core.configuration.config.text.language == "de")
        #expect(driver.core.screen.mode == .off)
        driver.run(until: 101)
        // What it keeps carries the same run-time settings on, now with
        // what its configuration says of them.
        #expect(kept.last?.settings == record.settings.configured(from: .init(reduceMotion: false, lowPower: false, language: "en")))
        #expect(kept.last?.displayMode == .off)
        // The configured scene is still the configuration's (a reload does not take the record's).
        #expect(driver.core.configuration.scene == "heart")
    }

    @Test("a setting the configuration changed since the record yields to it, as after a reload; one it did not change stays")
    func startAfterTheConfigurationChanged() throws {
        var record = ContinuationRecord(takenAt: 90, scene: "heart", sceneTime: 1)
        record.settings = ContinuationRecord.RuntimeSettings(reduceMotion: true, language: "de", configured: .init(reduceMotion: false, language: "en"))
        // The upgrade's file says pt-BR where the old one said en; reduce
        // motion is still false there.
        let driver = try CoreDriver(continuing: record) { $0.config.text.language = "pt-BR" }
        #expect(driver.core.configuration.config.text.language == "pt-BR")
        #expect(driver.core.configuration.settings.reduceMotion)
        let next = driver.core.continuationRecord().settings
        #expect(next == ContinuationRecord.RuntimeSettings(reduceMotion: true, configured: .init(reduceMotion: false)))

        // The same record over an unchanged configuration: both stay.
        let unchanged = try CoreDriver(continuing: record)
        #expect(unchanged.core.configuration.config.text.language == "de" && unchanged.core.configuration.settings.reduceMotion)
    }

    @Test("a reload's file is what the next record says was configured")
    func reloadUpdatesTheConfigured() throws {
        let driver = try CoreDriver()
        _ = driver.command { .change(.language("de"), reply: $0) }
        #expect(driver.core.continuationRecord().settings.configured == .init(language: "en"))
        var file = ChakraConfig()
        file.text.language = "pt-BR"
        file.reduceMotion = true
        _ = driver.core.reload(.success(LoadedConfig(config: file)), by: "test")
        // The file changed the language: the file's holds, the hand's is gone.
        #expect(driver.core.configuration.config.text.language == "pt-BR")
        #expect(driver.core.continuationRecord().settings == ContinuationRecord.RuntimeSettings())
        _ = driver.command { .change(.reduceMotion(false), reply: $0) }
        #expect(driver.core.continuationRecord().settings.configured == .init(reduceMotion: true))
    }

    @Test("a record's low power caps the pace from the first frame")
    func startLowPower() throws {
        var record = ContinuationRecord(takenAt: 90, scene: "heart", sceneTime: 1)
        record.settings.lowPower = true
        let driver = try CoreDriver(continuing: record) { $0.fps = 60 }
        #expect(driver.core.configuration.settings.lowPower)
        #expect(abs(driver.core.pacing.pacer.frameInterval - 1.0 / driver.core.configuration.lowPowerFPS) < 1e-9)
    }

    @Test("a screen the idle timers had blanked stays dark through a restart; one that was on comes on")
    func startIdleDark() throws {
        func driver(display: ContinuationRecord.DisplayPower) throws -> CoreDriver {
            var record = ContinuationRecord(takenAt: 90, scene: "heart", sceneTime: 1)
            record.display = display
            return try CoreDriver(continuing: record) {
                $0.config.lowPower.enabled = true
                $0.config.lowPower.blankAfter = 60
            }
        }
        let dark = try driver(display: .off)
        dark.run(until: 101)
        #expect(dark.core.screen.screen.power == .off && dark.displayPowers == [false])
        #expect(dark.plans.allSatisfy { $0.plan.content.isBlack }, "only the black frame, no scene")
        let lit = try driver(display: .on)
        lit.run(until: 101)
        #expect(lit.core.screen.screen.power == .on && lit.displayPowers.isEmpty)
        // The timers run from the start again for a screen that was on.
        lit.run(until: 160.5)
        #expect(lit.core.screen.screen.power == .off)
    }

    @Test("how idle a restarted screen goes on from: only what the idle timers could have done")
    func idleToContinue() {
        let both = IdlePolicy(dimAfter: 60, blankAfter: 300)
        #expect(both.idleToContinue(display: .dimmed, lowPower: true) == 60)
        #expect(both.idleToContinue(display: .blanked, lowPower: true) == 300)
        #expect(both.idleToContinue(display: .normal, lowPower: true) == nil)
        #expect(both.idleToContinue(display: .blanked, lowPower: false) == nil, "without low power the timers do nothing")
        #expect(IdlePolicy(dimAfter: 0, blankAfter: 30).idleToContinue(display: .dimmed, lowPower: true) == nil)
        #expect(IdlePolicy(dimAfter: 100, blankAfter: 50).idleToContinue(display: .dimmed, lowPower: true) == nil, "never dims")
        #expect(IdlePolicy(dimAfter: 60, blankAfter: 0).idleToContinue(display: .blanked, lowPower: true) == nil)
    }

    @Test("a paused record stays paused at its time")
    func startPaused() throws {
        let record = ContinuationRecord(takenAt: 50, scene: "drift", sceneTime: 7, paused: true)
        let driver = try CoreDriver(continuing: record)
        #expect(driver.core.scenes.clock.isFrozen && driver.core.scenes.time(at: 200) == 7)
    }

    @Test("a record of a scene this build does not have: the configured scene from 0")
    func startUnknownScene() throws {
        let record = ContinuationRecord(takenAt: 90, scene: "aurora", sceneTime: 42.5)
        let driver = try CoreDriver(continuing: record)
        #expect(driver.core.sceneName == "heart" && driver.core.scenes.time(at: 100) == 0)
    }

    @Test("a record's brightness is set again on the backlight")
    func startBrightness() throws {
        var record = ContinuationRecord(takenAt: 90, scene: "heart", sceneTime: 1)
        record.settings.brightness = 35
        let backlight = FakeBacklight(percent: 80)
        let driver = try CoreDriver(backlight: backlight, continuing: record)
        #expect(backlight.percent == 35 && driver.core.screen.brightness == 35)
    }

    @Test("the start kind is in the status")
    func startInStatus() throws {
        let driver = try CoreDriver()
        driver.core.start = StartReport(kind: .restartedWithoutPicture, reason: "no drm descriptor passed")
        #expect(driver.core.status().start.summary == "restarted-without-picture (no drm descriptor passed)")
    }

    // MARK: the start's kind

    @Test("start kinds: fresh, restarted, restarted without the picture and why")
    func startDecision() {
        let state = StoredDescriptors.state.text, drm = StoredDescriptors.drm.text
        #expect(StartDecision.report(storedNames: [], adoptError: nil, record: nil, picture: .notPassed(StoredDescriptors.drm)) == .fresh)
        #expect(StartDecision.report(storedNames: [state], adoptError: nil, record: .read, picture: .notPassed(StoredDescriptors.drm))
            == StartReport(kind: .restartedWithoutPicture, reason: "no drm descriptor passed"))
        #expect(StartDecision.report(storedNames: [state, drm], adoptError: nil, record: .read, picture: .kept) == StartReport(kind: .restarted))
        #expect(StartDecision.report(storedNames: [state, drm], adoptError: nil, record: .read, picture: .notKept("another mode"))
            == StartReport(kind: .restartedWithoutPicture, reason: "another mode"))
        #expect(StartDecision.report(storedNames: [state], adoptError: nil, record: .unusable("the state record is cut short"), picture: .notPassed(StoredDescriptors.drm))
            == StartReport(kind: .restartedWithoutPicture, reason: "the state record is cut short"))
        #expect(StartDecision.report(storedNames: [drm], adoptError: nil, record: nil, picture: .notPassed(StoredDescriptors.drm))
            == StartReport(kind: .restartedWithoutPicture, reason: "no state record passed"))
        #expect(StartDecision.report(storedNames: [], adoptError: "LISTEN_FDS is not a count", record: nil, picture: .notPassed(StoredDescriptors.drm)).kind
            == .restartedWithoutPicture)
        // Before the output is open: a screen's device passed is expected
        // to be taken over (not "no drm descriptor passed" for that moment).
        let fb = StoredDescriptors.framebuffer.text
        #expect(StartDecision.report(storedNames: [state, drm], adoptError: nil, record: .read, picture: .opening) == StartReport(kind: .restarted))
        #expect(StartDecision.report(storedNames: [state, fb], adoptError: nil, record: .read, picture: .opening) == StartReport(kind: .restarted))
        #expect(StartDecision.report(storedNames: [state], adoptError: nil, record: .read, picture: .opening)
            == StartReport(kind: .restartedWithoutPicture, reason: "no drm or fb descriptor passed"))
        #expect(StartDecision.report(storedNames: [], adoptError: nil, record: nil, picture: .opening) == .fresh)
    }

    @Test("the socket unit's descriptor is the control socket; chakrad's own names are not")
    func listeningSocketByName() throws {
        var passed = try PassedDescriptors(environment: ["LISTEN_PID": "7", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "state:chakrad.socket"], processID: 7)
        #expect(Daemon.takeListeningSocket(from: &passed, path: "/run/chakra/control.sock") == 4)
        #expect(passed.names == ["state"])
        var own = try PassedDescriptors(environment: ["LISTEN_PID": "7", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "state"], processID: 7)
        #expect(Daemon.takeListeningSocket(from: &own, path: "/run/chakra/control.sock") == nil)
    }

    @Test("the screen's devices are taken by their names: drm and fb; the others stay")
    func screenDevicesByName() throws {
        var passed = try PassedDescriptors(environment: ["LISTEN_PID": "7", "LISTEN_FDS": "5", "LISTEN_FDNAMES": "state:fb:control:drm:fb"], processID: 7)
        let devices = ContinuityStart.screenDevices(from: &passed)
        #expect(devices.drm == [6])
        #expect(devices.framebuffers == [4, 7])
        #expect(passed.names == ["state", "control"])
        #expect(StoredDescriptors.framebuffer.text == "fb" && StoredDescriptors.drm.text == "drm")
    }

    @Test("a DRM device passed is kept only for an output that may be DRM")
    func drmOnlyForDRM() {
        #expect(Daemon.mayOpenDRM(.drm, device: nil))
        #expect(Daemon.mayOpenDRM(.auto, device: nil))
        #expect(Daemon.mayOpenDRM(.auto, device: "/dev/dri/card1"))
        #expect(!Daemon.mayOpenDRM(.auto, device: "/dev/fb0"))
        #expect(!Daemon.mayOpenDRM(.fbdev, device: nil))
        #expect(!Daemon.mayOpenDRM(.headless, device: nil))
    }

    @Test("a DRM device let go of: closed, and the start says it was not used")
    func drmLetGoOf() throws {
        let fd = open("/dev/null", O_RDWR | O_CLOEXEC)   // stands for the device: only the closing is tested
        try #require(fd >= 0)
        var before = stat()
        try #require(fstat(fd, &before) == 0)
        let start = ContinuityStart(record: nil, saver: nil, storedNames: [StoredDescriptors.state.text, StoredDescriptors.drm.text],
                                    recordOutcome: .read)
        start.drm = fd
        start.letGoOfDRM(notifier: nil, logger: Logger(label: "test", sink: DiscardingLog()))
        #expect(start.drm == nil)
        var after = stat()
        #expect(fstat(fd, &after) != 0 || after.st_ino != before.st_ino || after.st_dev != before.st_dev)
        #expect(start.report == StartReport(kind: .restartedWithoutPicture, reason: "the DRM device passed was not used"))
    }

    /// A start that read a record and was passed `fb`.
    static func startPassedFramebuffer() -> ContinuityStart {
        ContinuityStart(record: nil, saver: nil, storedNames: [StoredDescriptors.state.text, StoredDescriptors.framebuffer.text],
                        recordOutcome: .read)
    }

    @Test("an fb descriptor that is not a framebuffer: closed, logged, and the start says why; never a crash")
    func framebufferThatIsNot() throws {
        let lines = RecordedLog()
        let logger = Logger(label: "test", sink: lines)
        for (fd, problem) in [(try MemoryFile.create(name: "fb"), "not a character device (a regular file)"),
                              (open("/dev/null", O_RDWR | O_CLOEXEC), "character device 1:3, not a framebuffer (major 29)")] {
            try #require(fd >= 0)
            var before = stat()
            try #require(fstat(fd, &before) == 0)
            let start = Self.startPassedFramebuffer()
            start.takeFramebuffer(fd, notifier: nil, logger: logger)
            #expect(start.framebuffer == nil)
            // Closed: the number no longer names that file (another test
            // may have opened something under it since).
            var after = stat()
            #expect(fstat(fd, &after) != 0 || after.st_ino != before.st_ino || after.st_dev != before.st_dev)
            #expect(start.report == StartReport(kind: .restartedWithoutPicture, reason: "the fb descriptor passed is not a framebuffer: \(problem)"))
            #expect(lines.all.contains("warning continuity: the descriptor passed as fb is not a framebuffer: \(problem); closed, the framebuffer is opened anew"))
        }
    }

    @Test("the fbdev output with nothing passed: the start says no fb descriptor was passed")
    func noFramebufferPassed() {
        let state = StoredDescriptors.state.text
        #expect(StartDecision.report(storedNames: [state], adoptError: nil, record: .read, picture: .notPassed(StoredDescriptors.framebuffer))
            == StartReport(kind: .restartedWithoutPicture, reason: "no fb descriptor passed"))
    }
}

/// The lines logged, "level message".
final class RecordedLog: LogSink, Sendable {
    let level = Logger.Level.trace
    private let lines = Mutex<[String]>([])
    func write(level: Logger.Level, label: String, message: String) { lines.withLock { $0.append("\(level) \(message)") } }
    var all: [String] { lines.withLock { $0 } }
}
