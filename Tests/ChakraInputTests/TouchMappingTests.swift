import ChakraRaster
import Testing
@testable import ChakraInput

/// Device coordinates to scene pixels. Expected values are worked out by
/// hand below each case, from the rule: normalise to (v − min + ½) /
/// (max − min + 1), calibrate, turn, scale by the scene's size.
@Suite("TouchMapping")
struct TouchMappingTests {
    /// A device of 1000 × 500 units (x 0...999, y 0...499) on an 800×400 panel.
    let axes = TouchMapping.Axes(x: 0...999, y: 0...499)

    func map(_ x: Int32, _ y: Int32, rotation: Rotation = .none, calibration: Calibration = .identity) -> [Double] {
        let point = TouchMapping(axes: axes, panelWidth: 800, panelHeight: 400, rotation: rotation, calibration: calibration).map(x: x, y: y)
        return [point.x, point.y]
    }

    func close(_ got: [Double], _ want: [Double]) -> Bool {
        zip(got, want).allSatisfy { Swift.abs($0 - $1) < 1e-9 }
    }

    @Test func unrotated() {
        // (0, 0): (0.5/1000·800, 0.5/500·400) = (0.4, 0.4): inside the first pixel.
        #expect(close(map(0, 0), [0.4, 0.4]))
        // (999, 499): (999.5/1000·800, 499.5/500·400) = (799.6, 399.6): inside the last.
        #expect(close(map(999, 499), [799.6, 399.6]))
        // (500, 250): (500.5·0.8, 250.5·0.8) = (400.4, 200.4).
        #expect(close(map(500, 250), [400.4, 200.4]))
        // The scene is the panel.
        let mapping = TouchMapping(axes: axes, panelWidth: 800, panelHeight: 400)
        #expect(mapping.sceneWidth == 800 && mapping.sceneHeight == 400)
    }

    /// Turned 90° clockwise: the scene is 400 wide, 800 tall, drawn with its
    /// top row down the panel's right edge (scene pixel (0, 0) is memory
    /// column 399, row 0). So the panel's top-right corner is the scene's
    /// top-left, and the panel's right edge is the scene's top.
    @Test func rotated90() {
        // Device (999, 0): u = 0.9995, v = 0.001 → s = v = 0.001 → x = 0.4;
        // t = 1 − u = 0.0005 → y = 0.4. The scene's top-left.
        #expect(close(map(999, 0, rotation: .clockwise90), [0.4, 0.4]))
        // Device (0, 0), the panel's top-left: s = 0.001 → 0.4; t = 0.9995 → 799.6: the scene's bottom-left.
        #expect(close(map(0, 0, rotation: .clockwise90), [0.4, 799.6]))
        // Device (999, 499), the panel's bottom-right: s = 0.999 → 399.6; t = 0.0005 → 0.4: the scene's top-right.
        #expect(close(map(999, 499, rotation: .clockwise90), [399.6, 0.4]))
        let mapping = TouchMapping(axes: axes, panelWidth: 800, panelHeight: 400, rotation: .clockwise90)
        #expect(mapping.sceneWidth == 400 && mapping.sceneHeight == 800)
    }

    /// Upside down: the panel's right edge is the scene's left, its top the scene's bottom.
    @Test func rotated180() {
        // Device (999, 0): s = 1 − 0.9995 = 0.0005 → 0.4; t = 1 − 0.001 = 0.999 → 399.6.
        #expect(close(map(999, 0, rotation: .upsideDown), [0.4, 399.6]))
        // Device (0, 499): s = 0.9995 → 799.6; t = 0.001 → 0.4: the scene's top-right.
        #expect(close(map(0, 499, rotation: .upsideDown), [799.6, 0.4]))
    }

    /// Turned 270° (90° counter-clockwise): the scene's top row runs up the
    /// panel's left edge; the panel's right edge is the scene's bottom, its
    /// top edge the scene's right.
    @Test func rotated270() {
        // Device (999, 0): s = 1 − v = 0.999 → 399.6; t = u = 0.9995 → 799.6: the scene's bottom-right.
        #expect(close(map(999, 0, rotation: .clockwise270), [399.6, 799.6]))
        // Device (0, 499), the panel's bottom-left: s = 1 − 0.999 = 0.001 → 0.4; t = 0.0005 → 0.4: the scene's top-left.
        #expect(close(map(0, 499, rotation: .clockwise270), [0.4, 0.4]))
    }

    /// The property the rotation rule exists for: a finger on the panel
    /// lands on the scene pixel drawn under it. A device with one unit per
    /// panel pixel (a 16×8 panel), every unit, every rotation: the scene
    /// pixel the touch maps to is stored, by the renderer's own rotated
    /// PixelBuffer, at the memory column and row that were touched.
    @Test func touchesLandOnThePixelDrawnUnderTheFinger() {
        let (width, height) = (16, 8)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: width * height * 4, alignment: 16)
        defer { memory.deallocate() }
        let panel = PixelBuffer(base: memory, width: width, height: height, stride: width * 4, format: .xrgb8888)
        for rotation in Rotation.allCases {
            let view = panel.rotated(rotation)
            let mapping = TouchMapping(axes: TouchMapping.Axes(x: 0...Int32(width - 1), y: 0...Int32(height - 1)),
                                       panelWidth: width, panelHeight: height, rotation: rotation)
            for column in 0..<width {
                for row in 0..<height {
                    let point = mapping.map(x: Int32(column), y: Int32(row))
                    let (x, y) = (Int(point.x), Int(point.y))
                    let offset = view.address(x: x, y: y).pointer - memory
                    #expect(offset == row * width * 4 + column * 4, "rotation \(rotation.rawValue), touch (\(column), \(row)) → scene (\(x), \(y))")
                }
            }
        }
    }

    @Test func rangesWithAnOffsetMinimum() {
        // x −100...99 (200 units) onto 400 pixels: −100 → 0.5/200·400 = 1; 99 → 199.5/200·400 = 399.
        let mapping = TouchMapping(axes: TouchMapping.Axes(x: -100...99, y: 1000...1999), panelWidth: 400, panelHeight: 100)
        let low = mapping.map(x: -100, y: 1000), high = mapping.map(x: 99, y: 1999)
        #expect(close([low.x, low.y, high.x, high.y], [1, 0.05, 399, 99.95]))
    }

    @Test func calibrationMatrix() {
        // libinput's matrix for a touch panel mounted upside down against the
        // display: [−1 0 1 0 −1 1]. Device (0, 0): u = 0.0005, v = 0.001 →
        // (1 − 0.0005, 1 − 0.001) = (0.9995, 0.999) → (799.6, 399.6).
        let flipped = Calibration([-1, 0, 1, 0, -1, 1])!
        #expect(close(map(0, 0, calibration: flipped), [799.6, 399.6]))
        // The touch area covering the middle half of the picture's width:
        // x' = 0.5·x + 0.25. Device x 999: 0.5·0.9995 + 0.25 = 0.74975 → 599.8;
        // x 0: 0.5·0.0005 + 0.25 = 0.25025 → 200.2. y unchanged (250 → 200.4).
        let middle = Calibration([0.5, 0, 0.25, 0, 1, 0])!
        #expect(close(map(999, 250, calibration: middle), [599.8, 200.4]))
        #expect(close(map(0, 250, calibration: middle), [200.2, 200.4]))
    }

    /// The calibration is about the touch panel against the display panel,
    /// so it comes first; the picture's rotation then applies to its result.
    @Test func calibrationThenRotation() {
        // Axes swapped by the calibration [0 1 0 1 0 0], picture turned 90°.
        // Device (999, 0): (u, v) = (0.9995, 0.001) → calibrated (0.001, 0.9995)
        // → 90°: s = 0.9995 → ·400 = 399.8; t = 1 − 0.001 = 0.999 → ·800 = 799.2.
        let swap = Calibration([0, 1, 0, 1, 0, 0])!
        #expect(close(map(999, 0, rotation: .clockwise90, calibration: swap), [399.8, 799.2]))
    }

    /// On a square panel (the scene keeps its size when turned) the usual
    /// calibration matrices for turned touch panels do what the rotations
    /// do: [0 1 0 −1 0 1] is x' = y, y' = 1 − x, i.e. s = v, t = 1 − u.
    @Test func rotationMatricesMatchTheRotations() {
        let square = TouchMapping.Axes(x: 0...99, y: 0...99)
        let matrices: [(Rotation, [Double])] = [(.clockwise90, [0, 1, 0, -1, 0, 1]), (.upsideDown, [-1, 0, 1, 0, -1, 1]),
                                                (.clockwise270, [0, -1, 1, 1, 0, 0])]
        for (rotation, matrix) in matrices {
            let turned = TouchMapping(axes: square, panelWidth: 300, panelHeight: 300, rotation: rotation)
            let calibrated = TouchMapping(axes: square, panelWidth: 300, panelHeight: 300, calibration: Calibration(matrix)!)
            for (x, y) in [(Int32(0), Int32(0)), (99, 0), (10, 70), (99, 99)] {
                let a = turned.map(x: x, y: y), b = calibrated.map(x: x, y: y)
                #expect(close([a.x, a.y], [b.x, b.y]), "rotation \(rotation.rawValue), (\(x), \(y))")
            }
        }
    }

    @Test func offScreenIsHeldAtTheEdge() {
        // Shifted right by half the width: device x 999 → 1.4995 → past the edge.
        let shifted = Calibration([1, 0, 0.5, 0, 1, 0])!
        let point = map(999, 0, calibration: shifted)
        #expect(point[0] < 800 && point[0] > 799.99)
        #expect(Int(point[0]) == 799)
        let negative = map(0, 0, calibration: Calibration([1, 0, -0.5, 0, 1, 0])!)
        #expect(negative[0] == 0)
    }

    @Test func calibrationNeedsSixFiniteNumbers() {
        #expect(Calibration([1, 0, 0, 0, 1]) == nil)
        #expect(Calibration([1, 0, 0, 0, 1, .nan]) == nil)
        #expect(Calibration([1, 0, 0, 0, 1, 0])?.isIdentity == true)
    }
}

@Suite("Contact lines")
struct ContactLineTests {
    @Test func oneDecimalHalfAwayFromZero() {
        let event = TouchContactEvent(phase: .down, id: 3, x: 320.3125, y: 0.05, time: 1.5, deviceX: 512, deviceY: -7, device: 1)
        #expect(event.description == "down id=3 x=320.3 y=0.1 device=512,-7")
        #expect(TouchContactEvent.format(-0.25) == "-0.3")
        #expect(TouchContactEvent.format(639.6875) == "639.7")
    }
}
