import ChakraDisplay

// Stand-in until bl_power lands from the power branch (deleted at its merge).
extension Backlight {
    func setPower(on: Bool) -> DisplayPowerReport {
        DisplayPowerReport(part: "backlight", on: on, method: "bl_power", check: .unchecked("not written yet"))
    }
}
