import ArgumentParser
import ChakraDisplay
import ChakraPNG
import ChakraRaster
import ChakraScenes
import ChakraSpiral
import ChakraSystem

/// `chakrad render`: one frame of a scene at a scene time, to a PNG file.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "render", abstract: "Render one frame of a scene to a PNG (or PPM) file.")

    @Option(help: "Scene to render (\(OfflineSceneName.names.joined(separator: ", "))).")
    var scene = OfflineSceneName("heart")

    @Option(help: "Scene time in seconds, 0 to 1e9 (spiral: seconds after the state was reached).")
    var time = 0.0

    @OptionGroup var spiral: SpiralOptions

    @Option(help: "Frame size, WIDTHxHEIGHT.")
    var size = ScreenSize(width: 1280, height: 720)

    @OptionGroup var options: SceneSettingsOptions

    @Option(help: ArgumentHelp("The frame's pixel format before it is written, as a display gets it (the final pass's dither and packing): \(PixelFormat.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "format"),
            transform: { try optionValue($0) { PixelFormat(rawValue: $0.uppercased()) } })
    var format = PixelFormat.bgr888

    @Option(name: .shortAndLong, help: "Output path: a PNG file, or a binary PPM (P6) when it ends in .ppm (exact bytes, nothing compressed: comparisons).")
    var output: String

    func validate() throws {
        if let problem = SceneTime.problem(time, option: "--time") { throw ValidationError(problem) }
        // A directory, FIFO, device or dangling link: refused before a frame
        // is drawn (exit 64), and never opened.
        do throws(OutputFileError) {
            _ = try OutputFile.destination(of: output)
        } catch where error.refusesTarget {
            throw ValidationError(error.description)
        } catch {}   // what the system says is reported by the write

    }

    func run() throws {
        let renderer: Scene
        var sceneTime = time
        if scene.name == SpiralScene.name {
            let (made, reached) = try spiral.makeScene(width: size.width, height: size.height, settings: options.settings, threads: 1)
            // The clock goes on from the state's start: the hold counts on while touching.
            made.session.advance(to: reached + time)
            (renderer, sceneTime) = (made, reached + time)
            var phase = ""
            if made.session.state == .hold {
                let moment = made.session.holdPhase(elapsed: made.session.holdElapsed(at: sceneTime))
                phase = " (\(moment.kind.rawValue) at \(String(moment.fraction, decimals: 2)))"
            }
            print("spiral: \(made.session.state) progress \(String(made.session.progress, decimals: 3)), pattern \(made.session.pattern.name)\(phase), hold left \(String(made.session.holdRemaining(at: sceneTime), decimals: 2)) s, \(made.layout.mode) layout")
        } else {
            guard let made = SceneCatalog.make(scene.name, width: size.width, height: size.height, settings: options.settings) else {
                throw ValidationError("unknown scene '\(scene.name)'")
            }
            renderer = made
        }
        // BGR888 (the default) is bytes R, G, B in memory: what PNG wants,
        // dithered to 8 bits. Other formats go through their own packing
        // (the SIMD paths a DRM buffer gets) and are read back as RGB.
        let frame = FrameBuffer(width: size.width, height: size.height, format: format)
        renderer.render(time: sceneTime, into: frame.pixels)
        let rgb = frame.rgbBytes()
        // Encoded in memory and written by OutputFile, not by libpng's file
        // writer: that one opens whatever is there and removes the path
        // when a write fails.
        let bytes = output.hasSuffix(".ppm") ? Array("P6\n\(size.width) \(size.height)\n255\n".utf8) + rgb
                                             : try PNGImage.encode(PNGImage.RGB(width: size.width, height: size.height, bytes: rgb))
        try OutputFile.write(bytes, to: output)
        print("wrote \(output): \(scene.name) at t=\(time)s, \(size)\(format == .bgr888 ? "" : ", \(format.rawValue)")\(options.reduceMotion ? ", reduce-motion" : "")\(options.lowPower ? ", low-power" : "")")
    }
}
