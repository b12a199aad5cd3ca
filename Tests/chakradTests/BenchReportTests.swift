import ChakraControl
import ChakraRaster
import Testing
@testable import chakrad

/// `chakrad bench --json`: the figures a report tool reads.
@Suite("chakrad bench report")
struct BenchReportTests {
    @Test func oneObjectPerMeasurementWithTheTableFigures() throws {
        // Eleven frames of 1..11 ms: median 6, p99 (rank round(10 × 0.99) = 10) 11.
        let times = BenchReport.Times(wall: (1...11).map(Double.init), cpuPerFrame: 2.345678)
        let object = BenchReport.object(scene: "heart", size: ScreenSize(width: 800, height: 480), threads: 2, times: times,
                                        floor: 0.123456789, format: .xrgb8888, cores: 4, mode: ["low-power"])
        let parsed = try JSONValue.parse(Array(object.encoded.utf8)).get()
        #expect(parsed["scene"] == "heart" && parsed["width"] == 800 && parsed["height"] == 480 && parsed["threads"] == 2)
        // (Numbers as JSON has them: 6.0 reads back as 6.)
        #expect(parsed["frames"] == 11 && parsed["median_ms"]?.doubleValue == 6 && parsed["p99_ms"]?.doubleValue == 11)
        #expect(parsed["cpu_ms_per_frame"]?.doubleValue == 2.3457 && parsed["memcpy_ms"]?.doubleValue == 0.1235)
        #expect(parsed["format"] == "XRGB8888" && parsed["cores"] == 4 && parsed["mode"] == ["low-power"])
        #expect(!object.encoded.contains("\n"))
    }

    @Test func theJSONFlagParses() throws {
        let command = try #require(try Chakrad.parseAsRoot(["bench", "--json", "--scene", "calm"]) as? BenchCommand)
        #expect(command.json)
        #expect(try #require(try Chakrad.parseAsRoot(["bench"]) as? BenchCommand).json == false)
    }
}
