import ChakraRaster

/// From device coordinates to the pixels the scene draws, in three steps:
///
/// 1. Normalise by the axes' absinfo ranges: a device value v on an axis of
///    minimum..maximum becomes (v − minimum + ½) / (maximum − minimum + 1).
///    This is libinput's scaling (evdev_device_transform_x: range + 1, so
///    that a device of 640 units on a 640-pixel screen maps unit i to pixel
///    i) plus half a unit: each value lands in the middle of its cell, so
///    that every value, at every rotation, falls inside the screen.
/// 2. The calibration matrix [a b c d e f], as libinput's
///    LIBINPUT_CALIBRATION_MATRIX, on those normalised coordinates:
///    x' = a·x + b·y + c, y' = d·x + e·y + f. It describes the touch
///    panel against the display panel (mounted turned or mirrored, or a
///    touch area that overhangs the picture), so it comes before the
///    rotation: its result is a position on the display panel, 0..1 across
///    its memory's width and height, whatever the rotation.
/// 3. The rotation the picture is drawn with (`PixelBuffer.rotated`, one
///    setting for picture and touch): scene pixel (x, y) of a W×H scene
///    lives in the panel's memory at (column, row)
///      0°:   (x, y)
///      90°:  (H−1−y, x)     the scene's top runs down the panel's right edge
///      180°: (W−1−x, H−1−y)
///      270°: (y, W−1−x)     the scene's top runs up the panel's left edge
///    and a touch at panel position (u, v) (0..1, v down) is therefore at
///    scene position (s, t) (0..1 of the scene's width and height):
///      0°:   s = u,     t = v
///      90°:  s = v,     t = 1 − u   (a touch at the panel's right edge is
///                                    at the scene's top; its top edge is
///                                    the scene's left)
///      180°: s = 1 − u, t = 1 − v   (right edge → scene's left; top → bottom)
///      270°: s = 1 − v, t = u       (right edge → scene's bottom; top → right)
///    then pixels: (s·W, t·H), W×H the scene's size (the panel's size with
///    width and height swapped at 90° and 270°).
///
/// The result is in pixel units with pixel (i, j) covering [i, i+1) ×
/// [j, j+1); a calibration that pushes a touch off the screen is held at
/// the nearest edge (inside the last pixel). A value type, rebuilt when the
/// display's size or rotation changes.
public struct TouchMapping: Sendable, Equatable {
    /// The device's X and Y axes: absinfo minimum and maximum.
    public struct Axes: Sendable, Equatable {
        public var minX: Int32, maxX: Int32, minY: Int32, maxY: Int32
        public init(x: ClosedRange<Int32>, y: ClosedRange<Int32>) {
            (minX, maxX, minY, maxY) = (x.lowerBound, x.upperBound, y.lowerBound, y.upperBound)
        }
    }

    public let axes: Axes
    /// The display panel's size in its own orientation (the output's mode).
    public let panelWidth: Int
    public let panelHeight: Int
    public let rotation: Rotation
    public let calibration: Calibration

    public init(axes: Axes, panelWidth: Int, panelHeight: Int, rotation: Rotation = .none, calibration: Calibration = .identity) {
        (self.axes, self.panelWidth, self.panelHeight, self.rotation, self.calibration) =
            (axes, max(panelWidth, 1), max(panelHeight, 1), rotation, calibration)
    }

    /// The scene's size: the panel's, turned.
    public var sceneWidth: Int { rotation.swapsAxes ? panelHeight : panelWidth }
    public var sceneHeight: Int { rotation.swapsAxes ? panelWidth : panelHeight }

    /// Where the device position (x, y) is in the scene, in pixels.
    @inline(__always)
    public func map(x: Int32, y: Int32) -> (x: Double, y: Double) {
        let nx = Self.normalise(x, axes.minX, axes.maxX)
        let ny = Self.normalise(y, axes.minY, axes.maxY)
        let (u, v) = calibration.apply(nx, ny)
        let (s, t): (Double, Double)
        switch rotation {
        case .none: (s, t) = (u, v)
        case .clockwise90: (s, t) = (v, 1 - u)
        case .upsideDown: (s, t) = (1 - u, 1 - v)
        case .clockwise270: (s, t) = (1 - v, u)
        }
        let w = Double(sceneWidth), h = Double(sceneHeight)
        return (Self.clamp(s * w, below: w), Self.clamp(t * h, below: h))
    }

    @inline(__always)
    static func normalise(_ value: Int32, _ minimum: Int32, _ maximum: Int32) -> Double {
        let range = Double(Int64(maximum) - Int64(minimum) + 1)
        guard range > 0 else { return 0.5 }
        return (Double(Int64(value) - Int64(minimum)) + 0.5) / range
    }

    @inline(__always)
    static func clamp(_ value: Double, below limit: Double) -> Double {
        guard value.isFinite else { return 0 }
        return min(max(value, 0), limit.nextDown)
    }
}

/// libinput's calibration matrix: the first two rows of a 3×3 matrix on
/// normalised coordinates (the third is 0 0 1).
public struct Calibration: Sendable, Equatable, CustomStringConvertible {
    public var a, b, c, d, e, f: Double

    public static let identity = Calibration(a: 1, b: 0, c: 0, d: 0, e: 1, f: 0)

    public init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }

    /// Six numbers [a b c d e f]; nil unless exactly six finite ones.
    public init?(_ values: [Double]) {
        guard values.count == 6, values.allSatisfy(\.isFinite) else { return nil }
        self.init(a: values[0], b: values[1], c: values[2], d: values[3], e: values[4], f: values[5])
    }

    public var isIdentity: Bool { self == .identity }

    @inline(__always)
    public func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        (a * x + b * y + c, d * x + e * y + f)
    }

    public var description: String { "[\(a) \(b) \(c) \(d) \(e) \(f)]" }
}
