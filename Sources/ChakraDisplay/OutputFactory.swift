import ChakraRaster
import ChakraSystem

/// Opens the output the user asked for; `auto` tries DRM, fbdev, then
/// headless and logs why each earlier one was passed over (docs/design.md,
/// Display).
public enum OutputFactory {
    public static func open(_ requested: OutputKind, options: OutputOptions, logger: Logger) throws -> DisplayOutput {
        var kind = requested
        if kind == .auto, let device = options.device {
            // A device path names one backend's node.
            guard let owner = OutputKind.owning(device: device) else {
                throw DisplayError.invalidArgument("--device '\(device)': not a DRM (/dev/dri/cardN) or framebuffer (/dev/fbN) node; say which with --output")
            }
            kind = owner
        }
        let (output, skipped) = try OutputSelection.open(kind) { candidate throws -> DisplayOutput in
            switch candidate {
            case .drm: return try DRMOutput.open(options: options, logger: logger)
            case .fbdev: return try FBDevOutput(options: options, logger: logger)
            case .headless, .auto:
                return HeadlessOutput(width: options.headlessWidth, height: options.headlessHeight,
                                      format: options.format ?? .xrgb8888,
                                      pngDirectory: options.headlessPNGDirectory, pngEvery: options.headlessPNGEvery, logger: logger)
            }
        }
        for skip in skipped { logger.info("output: \(skip)") }
        logger.info("output: \(output.summary)\(requested == .auto ? " (auto)" : "")")
        return output
    }
}
