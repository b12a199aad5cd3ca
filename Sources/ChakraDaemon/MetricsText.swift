import ChakraControl
/// The daemon's status in Prometheus's text exposition format, for
/// node_exporter's textfile collector (`chakra.prom`, `TextfileWriter`).
/// Pure: the same status gives the same text, families always in the same
/// order. Made every `[metrics] interval` seconds, never per frame, so it
/// may allocate.
///
/// Names start with `chakra_`; state is a gauge (0 or 1, or an `_info`
/// gauge whose labels carry the value, always 1), so that a fleet can sum
/// and count kiosks by state with PromQL.
public enum MetricsText {
    public static func render(_ status: DaemonStatus, version: String) -> String {
        var text = Builder()
        text.family("chakra_build_info", .gauge, "The chakrad version running (always 1).")
        text.sample("chakra_build_info", labels: [("version", version)], 1)
        text.family("chakra_uptime_seconds", .gauge, "Seconds since chakrad started.")
        text.sample("chakra_uptime_seconds", status.uptime)

        text.family("chakra_frames_presented_total", .counter, "Frames put on screen since chakrad started.")
        text.sample("chakra_frames_presented_total", Double(status.frames.presented))
        text.family("chakra_fps", .gauge, "Frames per second presented, over the last couple of seconds.")
        text.sample("chakra_fps", status.fps)
        text.family("chakra_fps_target", .gauge, "The frame rate aimed at: the cap, or the display's refresh.")
        text.sample("chakra_fps_target", status.fpsTarget)
        // Gauges with a quantile label, not a summary: the quantiles cover
        // only the last frames (a ring of `FrameTimes.capacity`), and there
        // is no count or sum since start. A summary's _count and _sum must
        // be counters (rate() is taken of them); these would not be.
        text.quantiles("chakra_frame_draw_milliseconds", "Milliseconds to draw a frame, over the last frames drawn.",
                       status.frameTimes, samplesHelp: "Frames the drawing-time quantiles are taken over.")
        text.quantiles("chakra_touch_latency_milliseconds",
                       "Milliseconds from a touch to the frame showing it on screen, over the last touches shown.",
                       status.touchLatency, samplesHelp: "Touches the latency quantiles are taken over.")

        text.family("chakra_start", .gauge,
                    "How this chakrad process started: 1 for its kind (fresh, restarted with the picture kept, restarted without it).")
        for kind in StartReport.Kind.allCases {
            text.sample("chakra_start", labels: [("kind", kind.rawValue)], status.start.kind == kind ? 1 : 0)
        }
        text.family("chakra_display_power", .gauge, "The screen's power: 1 for the state it is in (on, dimmed or off).")
        for state in [ScreenPower.on, .dimmed, .off] {
            text.sample("chakra_display_power", labels: [("state", state.rawValue)], status.display.screen.power == state ? 1 : 0)
        }
        text.family("chakra_display_check_failed", .gauge,
                    "1 when a part of the display chain (output, backlight, TV) was read back not in the power state asked.")
        text.sample("chakra_display_check_failed", status.display.check == "failed" ? 1 : 0)
        text.family("chakra_scene_info", .gauge, "The scene shown (always 1).")
        text.sample("chakra_scene_info", labels: [("scene", status.scene)], 1)
        text.family("chakra_low_power", .gauge, "1 while low power is on.")
        text.sample("chakra_low_power", status.settings.lowPower ? 1 : 0)
        text.family("chakra_reduce_motion", .gauge, "1 while reduce motion is on.")
        text.sample("chakra_reduce_motion", status.settings.reduceMotion ? 1 : 0)
        text.family("chakra_paused", .gauge, "1 while the scene is paused.")
        text.sample("chakra_paused", status.paused ? 1 : 0)
        text.family("chakra_vt_active", .gauge, "1 while chakrad's virtual terminal is in front.")
        text.sample("chakra_vt_active", status.vtActive ? 1 : 0)
        if let brightness = status.brightness {
            text.family("chakra_brightness_percent", .gauge, "The backlight's brightness asked for, in percent.")
            text.sample("chakra_brightness_percent", Double(brightness))
        }
        text.family("chakra_sessions_started_total", .counter, "Breathing exercises begun by a touch since chakrad started.")
        text.sample("chakra_sessions_started_total", Double(status.sessions.started))
        text.family("chakra_sessions_finished_total", .counter, "Breathing exercises ended since chakrad started, by outcome.")
        text.sample("chakra_sessions_finished_total", labels: [("outcome", "completed")], Double(status.sessions.completed))
        text.sample("chakra_sessions_finished_total", labels: [("outcome", "abandoned")], Double(status.sessions.abandoned))
        text.family("chakra_sessions_breathed_seconds_total", .counter,
                    "Seconds with a finger on the light, over the exercises ended since chakrad started.")
        text.sample("chakra_sessions_breathed_seconds_total", status.sessions.breathedSeconds)
        text.family("chakra_errors_total", .counter, "Errors since chakrad started, by kind (each is in the journal too).")
        for kind in ErrorKind.allCases {
            text.sample("chakra_errors_total", labels: [("kind", kind.rawValue)], Double(status.errors[kind]))
        }
        if let schedule = status.schedule {
            text.family("chakra_schedule_info", .gauge, "What the opening hours say now, and from which window (always 1).")
            text.sample("chakra_schedule_info", labels: [("action", schedule.action), ("window", schedule.window)], 1)
        }
        return text.output
    }

    /// A label value as the format writes it between double quotes:
    /// backslash, double quote and line feed escaped.
    public static func escapeLabel(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A sample's value: whole numbers without a fraction, the rest as
    /// Swift writes a Double (shortest round-trip), and the format's own
    /// words for infinities and NaN.
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    enum Kind: String { case counter, gauge }

    /// The text, family by family.
    struct Builder {
        var output = ""

        init() { output.reserveCapacity(4096) }

        /// HELP and TYPE of a family (help texts here have no backslash or
        /// line feed, the two characters HELP escapes).
        mutating func family(_ name: String, _ kind: Kind, _ help: String) {
            output += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
        }

        mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: Double) {
            output += name
            if !labels.isEmpty {
                output += "{" + labels.map { "\($0.0)=\"\(MetricsText.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
            }
            output += " " + MetricsText.number(value) + "\n"
        }

        /// The median and 99th percentile of `summary` as `name{quantile=…}`,
        /// and how many samples they cover as `name_samples`.
        mutating func quantiles(_ name: String, _ help: String, _ summary: FrameTimes.Summary, samplesHelp: String) {
            family(name, .gauge, help)
            // NaN before the first sample (as client libraries' summaries
            // say it): 0 ms would read as a fast frame.
            let none = summary.samples == 0
            sample(name, labels: [("quantile", "0.5")], none ? .nan : summary.median)
            sample(name, labels: [("quantile", "0.99")], none ? .nan : summary.p99)
            family(name + "_samples", .gauge, samplesHelp)
            sample(name + "_samples", Double(summary.samples))
        }
    }
}
