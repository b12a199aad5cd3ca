import ChakraScenes
import Foundation
import Testing

/// DriftParameters.swift was transcribed by hand from drift-params.json; a
/// copy of the JSON sits beside these tests and every value is checked
/// against it.
@Suite("Drift parameters match drift-params.json")
struct DriftParametersTests {
    typealias P = DriftParameters
    let json: [String: Any]

    init() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestFiles.resource("drift-params.json")))
        json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func object(_ key: String, in parent: [String: Any]? = nil) -> [String: Any] { (parent ?? json)[key] as? [String: Any] ?? [:] }
    func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }
    func numbers(_ value: Any?) -> [Double] { (value as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? [] }
    func hex(_ c: P.Color) -> String { String(format: "#%02x%02x%02x", Int(c.r), Int(c.g), Int(c.b)) }
    func anchor(_ h: P.Horizontal, _ v: P.Vertical) -> [String: Double] {
        var result: [String: Double] = [:]
        switch h { case .left(let x): result["left"] = x; case .right(let x): result["right"] = x }
        switch v { case .top(let y): result["top"] = y; case .bottom(let y): result["bottom"] = y }
        return result
    }
    func anchor(_ value: Any?) -> [String: Double] { (value as? [String: Any] ?? [:]).mapValues { number($0) ?? .nan } }

    @Test func layerOrder() {
        #expect(json["layers_bottom_to_top"] as? [String] == ["background", "grid", "float1", "float2", "float3", "float4", "deco1", "deco2"])
    }

    @Test func backgroundAndGrid() {
        let stops = object("background")["stops"] as? [[Any]] ?? []
        #expect(stops.map { number($0[0]) } == P.Background.stops.map(\.0))
        #expect(stops.map { $0[1] as? String } == P.Background.stops.map { hex($0.1) })
        let grid = object("grid")
        #expect(number(grid["tile_px"]) == P.Grid.tile)
        #expect(number(grid["dot_diameter_px"]) == P.Grid.dotDiameter)
        #expect(numbers(grid["dot_center_in_tile_px"]) == [P.Grid.dotCenterInTile.x, P.Grid.dotCenterInTile.y])
        #expect(grid["dot_color"] as? String == hex(P.Grid.dotColor))
        #expect(number(grid["layer_opacity"]) == P.Grid.layerOpacity)
    }

    @Test func floats() {
        let items = json["floats"] as? [[String: Any]] ?? []
        #expect(items.count == P.floats.count)
        for (item, float) in zip(items, P.floats) {
            #expect(number(item["size_px"]) == float.size)
            #expect(item["color"] as? String == hex(float.color))
            #expect(anchor(item["anchor"]) == anchor(float.horizontal, float.vertical))
            #expect(number(item["static_opacity"]) == float.staticOpacity)
            #expect(number(item["blur_px"]) == float.blur)
            #expect(item["animation"] as? String == (float.animation == .float ? "float" : "float-slow"))
            #expect(number(item["duration_s"]) == float.duration && number(item["delay_s"]) == float.delay)
        }
    }

    @Test func decos() {
        let items = json["decos"] as? [[String: Any]] ?? []
        #expect(items.count == P.decos.count)
        for (item, deco) in zip(items, P.decos) {
            #expect(number(item["size_px"]) == deco.size)
            #expect(item["gradient"] as? [String] == [hex(deco.color), "transparent"])
            #expect(anchor(item["anchor"]) == anchor(deco.horizontal, deco.vertical))
            #expect(number(item["opacity"]) == deco.opacity && number(item["blur_px"]) == deco.blur)
            #expect(number(item["duration_s"]) == deco.duration && number(item["delay_s"]) == deco.delay)
            #expect(item["direction"] as? String == (deco.reversed ? "reverse" : "normal"))
        }
    }

    @Test func animations() {
        let animations = object("animations")
        for name in ["float", "float-slow", "pulse-glow", "rotate-move"] {
            #expect(object(name, in: animations)["easing"] as? String == "ease-in-out")
        }
        #expect(numbers((object("conventions")["easing_curves"] as? [String: Any])?["ease-in-out"]) == [0.42, 0, 0.58, 1])
        let float = object("float", in: animations)["keyframes_translate_px"] as? [[Any]] ?? []
        #expect(float.map { [number($0[0])!] + numbers($0[1]) } == P.FloatKeyframes.keyframes.map { [$0.0, $0.1.0, $0.1.1] })
        let slow = object("float-slow", in: animations)["keyframes_translate_px_scale"] as? [[Any]] ?? []
        #expect(slow.map { [number($0[0])!] + numbers($0[1]) + [number($0[2])!] } == P.FloatSlowKeyframes.keyframes.map { [$0.0, $0.1.0, $0.1.1, $0.2] })
        let pulse = object("pulse-glow", in: animations)
        #expect(number(pulse["duration_s"]) == P.PulseGlow.duration && number(pulse["delay_s"]) == P.PulseGlow.delay)
        #expect((pulse["keyframes_opacity"] as? [[Any]] ?? []).map(numbers) == P.PulseGlow.keyframes.map { [$0.0, $0.1] })
        let rotate = object("rotate-move", in: animations)["keyframes"] as? [[Any]] ?? []
        #expect(rotate.map { [number($0[0])!, number($0[1])!] + numbers($0[2]) } == P.RotateMove.keyframes.map { [$0.0, $0.1, $0.2.0, $0.2.1] })
    }
}
