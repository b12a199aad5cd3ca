import ChakraConfig
import ChakraRaster
import ChakraScenes

/// Where the exercise's parts go on a W×H screen (docs/spiral-params.json,
/// "layout"). The spiral is centred and scaled by u = min(W, H)/390
/// (docs/design.md, Layout). On portrait-like screens the texts stack above and below it; where
/// the screen is too short for that but has room beside the spiral, they
/// go in columns left and right of it; where neither fits, the whole stack
/// is scaled down by k to fit the height.
public struct SpiralLayout: Sendable, Equatable {
    public enum Mode: String, Sendable { case stacked, side }
    typealias L = SpiralParameters.Layout

    public let width: Double, height: Double
    public let mode: Mode
    /// Screen px per design px for this scene: u·k.
    public let scale: Double
    /// The fit factor k (1 unless the stack had to shrink).
    public let fit: Double
    public let centre: Point
    /// Outer edge of the spiral's stroke, design px.
    public let outerRadius: Double
    /// Widest a text line may be, screen px.
    public let textMaxWidth: Double
    /// Stacked: where each block is centred. Side: x of the left (texts)
    /// and right (counter, bar) columns; the scene anchors the text blocks
    /// on `centre.y ± gap` by their heights.
    public let guidance: Point, hint: Point, counter: Point, bar: Point
    public let barWidth: Double
    public let sideGap: Double

    public init(width: Int, height: Int, config: ChakraConfig.Spiral) {
        let design = DesignLayout(width: width, height: height)
        self.width = design.width
        self.height = design.height
        let u = design.u
        centre = design.center
        outerRadius = config.startRadius + config.spacing * config.rotations + config.lineWidth / 2
        let half = Self.stackedHalfHeight(config: config)
        let column = (design.width / 2 - outerRadius * u) / u
        if design.height >= 2 * half * u {
            (mode, fit) = (.stacked, 1)
        } else if column >= L.sideMinColumn {
            (mode, fit) = (.side, 1)
        } else {
            (mode, fit) = (.stacked, design.height / (2 * half * u))
        }
        let s = u * fit
        scale = s
        sideGap = L.sideGap * s
        let c = design.center
        switch mode {
        case .stacked:
            textMaxWidth = min(design.width, DesignLayout.designWidth * s) - 2 * L.textMargin * s
            guidance = c - Point(0, (outerRadius + L.guidanceOffset) * s)
            hint = c + Point(0, (outerRadius + L.hintOffset) * s)
            bar = c + Point(0, (outerRadius + L.barOffset) * s)
            counter = c + Point(0, (outerRadius + L.counterOffset) * s)
        case .side:
            let leftX = (design.width / 2 - outerRadius * s) / 2
            textMaxWidth = 2 * leftX - 2 * L.textMargin * s
            guidance = Point(leftX, c.y)
            hint = Point(leftX, c.y)
            counter = Point(design.width - leftX, c.y + L.sideCounterDY * s)
            bar = Point(design.width - leftX, c.y + L.sideBarDY * s)
        }
        barWidth = min(SpiralParameters.Bar.width * s, textMaxWidth)
    }

    /// Half the height the stack needs, design px: the spiral's outer edge,
    /// then the counter below it (316 with the default geometry).
    public static func stackedHalfHeight(config: ChakraConfig.Spiral) -> Double {
        let outer = config.startRadius + config.spacing * config.rotations + config.lineWidth / 2
        return outer + L.counterOffset + SpiralParameters.Text.counterSize / 2 + L.stackedBelowMargin
    }
}

extension SpiralGeometry {
    /// The configured spiral as a layout places it: centred, scaled by u·k,
    /// tracking lost beyond the configured proximity.
    public init(config: ChakraConfig.Spiral, layout: SpiralLayout, pointsPerTurn: Int = SpiralGeometry.defaultPointsPerTurn) {
        self.init(startRadius: config.startRadius, spacing: config.spacing, rotations: config.rotations, scale: layout.scale,
                  centre: layout.centre, lostDistance: config.proximity * layout.scale, pointsPerTurn: pointsPerTurn)
    }
}
