// Gradient colour stops, interpolated in premultiplied sRGB as CSS Images 4
// asks for legacy colours (so "transparent" fades keep their hue).

/// One colour stop: a position along the gradient (0...1) and a premultiplied colour.
public struct GradientStop: Sendable, Equatable {
    public var offset: Float
    public var color: RGBA
    public init(_ offset: Float, _ color: RGBA) {
        self.offset = offset
        self.color = color
    }
}

/// An ordered list of stops. Before the first stop the first colour holds,
/// after the last the last colour (CSS).
public struct GradientStops: Sendable, Equatable {
    public private(set) var stops: [GradientStop]

    public init(_ stops: [GradientStop]) {
        precondition(!stops.isEmpty, "a gradient needs at least one stop")
        // CSS fixes up out-of-order stops by clamping each to the largest before it.
        var fixed = stops
        for index in fixed.indices.dropFirst() where fixed[index].offset < fixed[index - 1].offset {
            fixed[index].offset = fixed[index - 1].offset
        }
        self.stops = fixed
    }

    /// Evenly spaced stops, as CSS places stops without positions.
    public init(evenlySpaced colors: [RGBA]) {
        let last = Float(max(colors.count - 1, 1))
        self.init(colors.enumerated().map { GradientStop(Float($0.offset) / last, $0.element) })
    }

    public func color(at t: Float) -> RGBA {
        stops.withUnsafeBufferPointer { Self.color(at: t, in: $0) }
    }

    @inline(__always)
    static func color(at t: Float, in stops: UnsafeBufferPointer<GradientStop>) -> RGBA {
        if t <= stops[0].offset { return stops[0].color }
        for index in 1..<stops.count where t < stops[index].offset {
            let a = stops[index - 1], b = stops[index]
            let span = b.offset - a.offset
            let f = span > 0 ? (t - a.offset) / span : 1
            return a.color + (b.color - a.color) * f
        }
        return stops[stops.count - 1].color
    }

    /// Replaces one stop's colour in place (no allocation when the stops are
    /// not shared): for colours that animate every frame.
    public mutating func setColor(_ color: RGBA, at index: Int) {
        stops[index].color = color
    }

    /// The same stops with every colour scaled by `k` (e.g. an opacity).
    public func scaled(by k: Float) -> GradientStops {
        GradientStops(stops.map { GradientStop($0.offset, $0.color * k) })
    }
}
