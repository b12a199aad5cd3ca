import ChakraConfig
import ChakraRaster

extension TouchInput.Settings {
    /// The [input] section of chakra.toml, for a display of `panelWidth` ×
    /// `panelHeight` (the output's mode) drawn with `displayRotation`:
    /// `input.rotation` "display" (nil) turns touches with the picture.
    public init(config: ChakraConfig.Input, displayRotation: Rotation, panelWidth: Int, panelHeight: Int) {
        let rotation = config.rotation.flatMap(Rotation.init(rawValue:)) ?? displayRotation
        self.init(panelWidth: panelWidth, panelHeight: panelHeight, rotation: rotation,
                  calibration: Calibration(config.calibration) ?? .identity,
                  device: DeviceChoice(config.device), grab: config.grab)
    }
}

extension DeviceChoice {
    /// `input.haptics`: nil for "none".
    public static func haptics(_ choice: HapticsChoice) -> DeviceChoice? {
        switch choice {
        case .auto: .automatic
        case .disabled: nil
        case .device(let device): DeviceChoice(device)
        }
    }
}
