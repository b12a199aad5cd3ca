/// The scene times a scene is made for: 0 to a billion seconds.
///
/// A scene's time is seconds since it started (the daemon's uptime, at
/// most), so anything past a few years is a mistake or an attack: at
/// 1e20 s the spiral's orbit index and at 1e300 s the heart's mist
/// keyframe index no longer fit an Int, and the conversion traps
/// (SIGILL). A billion seconds (about 31.7 years) is far past any uptime
/// and still leaves a Double 0.1 µs of resolution, so every scene animates
/// smoothly up to it (ChakraScenesTests renders each scene there). Times
/// from outside (`chakrad render --time`, `run --pin-time`, spiral
/// options) are checked against it before they reach a scene.
public enum SceneTime {
    /// The largest scene time accepted, in seconds.
    public static let maximum: Double = 1e9

    /// True for a finite time within 0...`maximum` (-0 included).
    public static func isValid(_ seconds: Double) -> Bool {
        seconds.isFinite && seconds >= 0 && seconds <= maximum
    }

    /// Why `seconds` is refused for `option` (a usage error's message), or
    /// nil when it is accepted.
    public static func problem(_ seconds: Double, option: String) -> String? {
        isValid(seconds) ? nil : "\(option) must be a number of seconds from 0 to 1e9 (about 31 years), not \(seconds)"
    }
}
