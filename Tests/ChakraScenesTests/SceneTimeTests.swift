import ChakraRaster
import ChakraScenes
import Testing

/// The range of scene times accepted from outside (issue 27).
@Suite("Scene time range")
struct SceneTimeTests {
    @Test func finiteTimesFromZeroToABillionSeconds() {
        for ok: Double in [0, -0.0, 0.5, 72, 86_400 * 365 * 31, 1e9] {
            #expect(SceneTime.isValid(ok), "\(ok)")
            #expect(SceneTime.problem(ok, option: "--time") == nil)
        }
        for bad: Double in [1e9.nextUp, 1e20, 1e300, .greatestFiniteMagnitude, .infinity, -.infinity, .nan, -.nan, -1, -1e-300, -1e300, 9.223372036854775807e18] {
            #expect(!SceneTime.isValid(bad), "\(bad)")
        }
        #expect(SceneTime.problem(1e300, option: "--pin-time") == "--pin-time must be a number of seconds from 0 to 1e9 (about 31 years), not 1e+300")
    }

    /// Every scene draws at the bound (a billion seconds keeps 0.1 µs of a
    /// Double's resolution); 1e20 and 1e300 trapped in the spiral and the heart.
    @Test(arguments: ["heart", "drift", "calm"])
    func everySceneRendersAtTheBound(name: String) throws {
        let scene = try #require(SceneCatalog.make(name, width: 64, height: 36, settings: RenderSettings()))
        let frame = FrameBuffer(width: 64, height: 36, format: .xrgb8888)
        scene.render(time: SceneTime.maximum, into: frame.pixels)
    }
}
