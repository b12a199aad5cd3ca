/// A force-feedback rumble (FF_RUMBLE): two motor magnitudes (0...0xffff;
/// single-motor vibrators such as pwm-vibra use the strong one, gpio-vibra
/// is on whenever either is non-zero) and a duration.
public struct Rumble: Sendable, Equatable {
    public var strong: UInt16
    public var weak: UInt16
    /// Milliseconds.
    public var length: UInt16

    public init(strong: UInt16, weak: UInt16, length: UInt16) {
        (self.strong, self.weak, self.length) = (strong, weak, length)
    }

    /// The spiral's tracing tick (UIImpactFeedbackGenerator .light in the
    /// design): short and soft, felt as a click under the finger.
    public static let tick = Rumble(strong: 0x5000, weak: 0x3000, length: 12)
    /// One beat of the heartbeat pattern, played every hapticBeatInterval
    /// during the hold's inhale phase: longer and firmer than a tick, short
    /// enough (≤ 0.25 s default interval) that beats stay apart.
    public static let beat = Rumble(strong: 0xC000, weak: 0x8000, length: 70)
}
