/// What a restarted chakrad needs to go on where the last one was, beside
/// the descriptors it gets back (the screen, the control socket): the
/// scene and how far into it, what was changed at run time, the exercise,
/// the screen's power. Written into a memory file kept in systemd's file
/// descriptor store ("state"), and read back by the next process
/// (docs/seams.md). A pure value: no clock, no I/O.
///
/// The enums are the record's own, with its own words, not the control
/// protocol's or the spiral's types: the format is fixed by its version,
/// and a case added elsewhere must not change it without a new one.
public struct ContinuationRecord: Equatable, Sendable {
    /// CLOCK_MONOTONIC seconds when the record was taken. The monotonic
    /// clock is the machine's, not the process's, and the store does not
    /// outlive a boot, so the next process can tell how long the gap was.
    public var takenAt: Double
    /// The scene shown (the ambient one an exercise was started from is
    /// the daemon's business; this is what is on screen).
    public var scene: String
    /// Scene time at `takenAt`, in seconds.
    public var sceneTime: Double
    /// The scene clock was frozen (`pause`): it stays at `sceneTime`.
    public var paused: Bool
    /// What `chakractl set` changed; nil fields follow the configuration.
    public var settings: RuntimeSettings
    /// `chakractl display`: the hand's say over the screen.
    public var displayMode: DisplayMode
    /// What the screen was.
    public var display: DisplayPower
    /// The breathing exercise, when the spiral was on screen.
    public var spiral: SpiralProgress?

    public init(takenAt: Double, scene: String, sceneTime: Double, paused: Bool = false, settings: RuntimeSettings = RuntimeSettings(),
                displayMode: DisplayMode = .auto, display: DisplayPower = .on, spiral: SpiralProgress? = nil) {
        (self.takenAt, self.scene, self.sceneTime, self.paused) = (takenAt, scene, sceneTime, paused)
        (self.settings, self.displayMode, self.display, self.spiral) = (settings, displayMode, display, spiral)
    }

    /// The scene time to continue from at monotonic time `now`: the record's
    /// plus the gap since it was taken, unless paused. A `now` before the
    /// record (impossible on one boot) adds nothing.
    public func sceneTime(continuingAt now: Double) -> Double {
        paused ? sceneTime : sceneTime + max(0, now - takenAt)
    }

    /// Settings changed at run time (`chakractl set`). Only those: a value
    /// the configuration gives is read from the configuration again, so a
    /// restart made to apply an edited file applies it; and one the
    /// configuration changed since it was set yields to it (`laid(over:)`).
    public struct RuntimeSettings: Equatable, Sendable {
        public var reduceMotion: Bool?
        public var lowPower: Bool?
        /// A catalogue's language code: "de", "pt-BR".
        public var language: String?
        /// Percent of the backlight's maximum, 0...100.
        public var brightness: Int?
        /// What the configuration (its files and the command line) said of
        /// the settings above when the record was taken, for those that are
        /// set (a v1 record has none). The backlight has no key.
        public var configured: Configured

        public init(reduceMotion: Bool? = nil, lowPower: Bool? = nil, language: String? = nil, brightness: Int? = nil,
                    configured: Configured = Configured()) {
            (self.reduceMotion, self.lowPower, self.language, self.brightness) = (reduceMotion, lowPower, language, brightness)
            self.configured = configured
        }

        /// These settings laid over a configuration that says `now`, as a
        /// reload lays the hand's over a file read again: a setting whose
        /// configured value changed since the record was taken (an upgrade
        /// or an edit brought a new file) takes the configuration's value
        /// and is dropped here; `dropped` names those ("reduce_motion").
        /// One the record knows no configured value for is kept.
        public func laid(over now: Configured) -> (settings: RuntimeSettings, dropped: [String]) {
            var kept = self
            var dropped: [String] = []
            if reduceMotion != nil, let was = configured.reduceMotion, was != now.reduceMotion {
                (kept.reduceMotion, kept.configured.reduceMotion) = (nil, nil)
                dropped.append("reduce_motion")
            }
            if lowPower != nil, let was = configured.lowPower, was != now.lowPower {
                (kept.lowPower, kept.configured.lowPower) = (nil, nil)
                dropped.append("low_power.enabled")
            }
            if language != nil, let was = configured.language, was != now.language {
                (kept.language, kept.configured.language) = (nil, nil)
                dropped.append("text.language")
            }
            return (kept, dropped)
        }

        /// These settings with `all`'s configured values for the ones that
        /// are set and none for the others: what a record holds.
        public func configured(from all: Configured) -> RuntimeSettings {
            var settings = self
            settings.configured = Configured(reduceMotion: reduceMotion == nil ? nil : all.reduceMotion,
                                             lowPower: lowPower == nil ? nil : all.lowPower,
                                             language: language == nil ? nil : all.language)
            return settings
        }
    }

    /// The configuration's values of the settings `chakractl set` changes.
    public struct Configured: Equatable, Sendable {
        public var reduceMotion: Bool?
        public var lowPower: Bool?
        public var language: String?

        public init(reduceMotion: Bool? = nil, lowPower: Bool? = nil, language: String? = nil) {
            (self.reduceMotion, self.lowPower, self.language) = (reduceMotion, lowPower, language)
        }
    }

    /// `chakractl display`: following the schedule, or on or off by hand.
    public enum DisplayMode: String, Sendable, CaseIterable {
        case auto, on, off
    }

    /// What the screen was.
    public enum DisplayPower: String, Sendable, CaseIterable {
        case on, dimmed, off
    }

    /// Where the breathing exercise was.
    public struct SpiralProgress: Equatable, Sendable {
        public enum State: String, Sendable, CaseIterable {
            case idle, inhale, hold, exhale, completed
        }

        public var state: State
        /// Of the path traced, 0...1.
        public var progress: Double
        /// Seconds of the hold counted so far.
        public var holdElapsed: Double
        /// The breathing pattern of this exercise ("box", "4-7-8").
        public var pattern: String

        public init(state: State, progress: Double, holdElapsed: Double, pattern: String) {
            (self.state, self.progress, self.holdElapsed, self.pattern) = (state, progress, holdElapsed, pattern)
        }
    }

    // MARK: - What may be written

    /// Longest scene time written (about 31 years): beyond it the number is
    /// garbage, not a kiosk's uptime.
    public static let maxSceneTime = 1e9
    /// Longest hold counted.
    public static let maxHoldElapsed = 1e6
    /// Longest name (scene, language, pattern).
    public static let maxNameLength = 64

    /// The first field that cannot be written, and why; nil when all can.
    public var problem: (field: String, reason: String)? {
        if !takenAt.isFinite || takenAt < 0 { return ("taken", "not a time since boot: \(takenAt)") }
        if let reason = Self.nameProblem(scene) { return ("scene", reason) }
        if !sceneTime.isFinite || sceneTime < 0 || sceneTime >= Self.maxSceneTime { return ("scene-time", "not 0 to \(Self.maxSceneTime) s: \(sceneTime)") }
        if let language = settings.language, let reason = Self.nameProblem(language) { return ("language", reason) }
        if let language = settings.configured.language, let reason = Self.nameProblem(language) { return ("configured-language", reason) }
        if let brightness = settings.brightness, !(0...100).contains(brightness) { return ("brightness", "not 0 to 100: \(brightness)") }
        if let spiral {
            if !spiral.progress.isFinite || !(0...1).contains(spiral.progress) { return ("spiral", "progress not 0 to 1: \(spiral.progress)") }
            if !spiral.holdElapsed.isFinite || spiral.holdElapsed < 0 || spiral.holdElapsed >= Self.maxHoldElapsed {
                return ("spiral", "hold not 0 to \(Self.maxHoldElapsed) s: \(spiral.holdElapsed)")
            }
            if let reason = Self.nameProblem(spiral.pattern) { return ("spiral", "pattern: \(reason)") }
        }
        return nil
    }

    /// Names are identifiers: letters, digits, '.', '_', '-', starting with
    /// a letter or digit (so "-", the record's "not set", is never one).
    static func nameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard let first = bytes.first else { return "empty" }
        guard bytes.count <= maxNameLength else { return "longer than \(maxNameLength) bytes" }
        guard isAlphanumeric(first), bytes.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }) else {
            return "not a name (letters, digits, '.', '_', '-'): '\(name.prefix(maxNameLength))'"
        }
        return nil
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
