import Foundation
import Testing
@testable import ChakraSpiral

/// SpiralParameters.swift transcribes docs/spiral-params.json; every value
/// is checked against the file.
@Suite("Spiral parameters match docs/spiral-params.json")
struct SpiralParametersTests {
    typealias P = SpiralParameters
    let json: [String: Any]

    init() throws {
        let data = try Data(contentsOf: repository.appendingPathComponent("docs/spiral-params.json"))
        json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func object(_ path: String...) -> [String: Any] {
        var node: Any = json
        for key in path { node = (node as? [String: Any])?[key] ?? [:] }
        return node as? [String: Any] ?? [:]
    }
    func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }
    func numbers(_ value: Any?) -> [Double] { (value as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? [] }
    func hex(_ c: P.Color) -> String { String(format: "#%02x%02x%02x", Int(c.r), Int(c.g), Int(c.b)) }
    func stops(_ value: Any?) -> [String] { ((value as? [[Any]]) ?? []).map { "\(number($0[0]) ?? .nan) \($0[1] as? String ?? "")" } }
    func stops(_ list: [(Double, P.Color)]) -> [String] { list.map { "\($0.0) \(hex($0.1))" } }

    @Test func colors() {
        #expect(json["schema_version"] as? Int == 1)
        #expect(stops(object("background")["stops"]) == stops(P.background))
        #expect(object("track")["color"] as? String == hex(P.Track.color))
        #expect(number(object("track")["opacity"]) == P.Track.opacity)
        #expect(stops(object("progress")["stops"]) == stops(P.progressStops))
        #expect(stops(object("hold_bar")["fill_stops"]) == stops(P.Bar.fillStops))
        #expect(object("hold_bar")["track_color"] as? String == hex(P.Bar.trackColor))
        #expect(object("hold_bar", "shimmer")["color"] as? String == hex(P.Bar.shimmerColor))
        #expect(object("text")["color"] as? String == hex(P.Text.color))
        #expect(object("text")["hint_color"] as? String == hex(P.Text.hintColor))
        #expect(object("head", "highlight")["color"] as? String == hex(P.Head.highlightColor))
        #expect((object("celebration")["colors"] as? [String]) == P.Celebration.colors.map(hex))
    }

    @Test func head() {
        let highlight = object("head", "highlight"), glow = object("head", "glow")
        #expect(number(highlight["radius_fraction"]) == P.Head.highlightRadiusFraction)
        #expect(number(highlight["opacity"]) == P.Head.highlightOpacity)
        #expect(number(highlight["blur_fraction"]) == P.Head.highlightBlurFraction)
        #expect(number(object("head")["edge_blur_px"]) == P.Head.edgeBlur)
        #expect(number(glow["radius_factor"]) == P.Head.glowRadiusFactor)
        #expect(number(glow["blur_px"]) == P.Head.glowBlur)
        #expect(number(glow["opacity"]) == P.Head.glowOpacity)
        let idle = object("idle_orb")
        #expect(number(idle["pulse_scale"]) == P.IdleOrb.pulseScale)
        #expect(number(idle["leg_duration_s"]) == P.IdleOrb.legDuration)
        #expect(numbers(idle["glow_opacity"]) == [P.IdleOrb.glowOpacity.low, P.IdleOrb.glowOpacity.high])
        #expect(numbers(object("hold_pulse")["reduce_motion_glow_opacity"])
                == [P.HoldPulse.reduceMotionGlowOpacity.low, P.HoldPulse.reduceMotionGlowOpacity.high])
    }

    @Test func barTextLayout() {
        let bar = object("hold_bar"), shimmer = object("hold_bar", "shimmer")
        #expect([number(bar["width_px"]), number(bar["height_px"]), number(bar["corner_radius_px"])] == [P.Bar.width, P.Bar.height, P.Bar.cornerRadius])
        #expect([number(shimmer["opacity"]), number(shimmer["width_px"]), number(shimmer["period_s"])]
                == [P.Bar.shimmerOpacity, P.Bar.shimmerWidth, P.Bar.shimmerPeriod])
        let text = object("text")
        #expect([number(text["guidance_size_px"]), number(text["hint_size_px"]), number(text["counter_size_px"])]
                == [P.Text.guidanceSize, P.Text.hintSize, P.Text.counterSize])
        #expect(number(text["line_height"]) == P.Text.lineHeight && number(text["fade_in_s"]) == P.Text.fadeIn)
        let layout = object("layout")
        #expect([number(layout["guidance_offset_px"]), number(layout["hint_offset_px"]), number(layout["bar_offset_px"]), number(layout["counter_offset_px"])]
                == [P.Layout.guidanceOffset, P.Layout.hintOffset, P.Layout.barOffset, P.Layout.counterOffset])
        #expect(number(layout["stacked_half_height_px"]) == P.Layout.stackedHalfHeight)
        #expect(number(layout["side_min_column_px"]) == P.Layout.sideMinColumn)
        #expect(number(layout["text_margin_px"]) == P.Layout.textMargin)
        #expect([number(layout["side_gap_px"]), number(layout["side_counter_dy_px"]), number(layout["side_bar_dy_px"])]
                == [P.Layout.sideGap, P.Layout.sideCounterDY, P.Layout.sideBarDY])
    }

    @Test func celebration() {
        let c = object("celebration")
        #expect(c["particles"] as? Int == P.Celebration.particles)
        #expect((c["seed"] as? NSNumber)?.uint64Value == P.Celebration.seed)
        #expect(numbers(c["distance_px"]) == [P.Celebration.distance.lowerBound, P.Celebration.distance.upperBound])
        #expect(numbers(c["radius_px"]) == [P.Celebration.radius.lowerBound, P.Celebration.radius.upperBound])
        #expect(number(c["blur_fraction"]) == P.Celebration.blurFraction)
        #expect([number(c["drift_px"]), number(c["duration_s"])] == [P.Celebration.drift, P.Celebration.duration])
        // howruBouncy (docs/design.md, Motion).
        #expect(P.Celebration.springResponse == 0.4 && P.Celebration.springDampingFraction == 0.6)
        #expect((c["spring"] as? String)?.contains("response 0.4 s, damping fraction 0.6") == true)
    }
}
