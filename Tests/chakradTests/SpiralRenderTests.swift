import ArgumentParser
import Foundation
import Testing
@testable import chakrad

/// `chakrad render --scene spiral ...`: parsed, and a frame written.
@Suite("chakrad render --scene spiral")
struct SpiralRenderTests {
    @Test func parsesAndRenders() throws {
        let path = NSTemporaryDirectory() + "chakra-spiral-\(getpid()).png"
        let catalogs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("etc/chakra/lang").path
        let command = try #require(try Chakrad.parseAsRoot(["render", "--scene", "spiral", "--spiral-state", "hold", "--hold-elapsed", "7",
                                                            "--language", "de", "--lang-dir", catalogs, "--size", "390x844", "-o", path]) as? RenderCommand)
        #expect(command.spiral.spiralState == .hold && command.spiral.holdElapsed == 7 && command.spiral.language == "de")
        try command.run()
        #expect(FileManager.default.fileExists(atPath: path))
        try? FileManager.default.removeItem(atPath: path)
        #expect(throws: (any Error).self) { try Chakrad.parseAsRoot(["render", "--scene", "spiral", "--progress", "2", "-o", path]) }
        #expect(throws: (any Error).self) { try Chakrad.parseAsRoot(["render", "--scene", "spiral", "--spiral-state", "nap", "-o", path]) }
        #expect(throws: (any Error).self) { try Chakrad.parseAsRoot(["render", "--scene", "spiral", "--pattern", "square", "-o", path]) }
        let box = try #require(try Chakrad.parseAsRoot(["render", "--scene", "spiral", "--pattern", "box", "-o", path]) as? RenderCommand)
        #expect(box.spiral.spiralConfig.selectedPattern.name == "box")
        // The daemon shows the spiral too; unknown names are refused.
        #expect(throws: Never.self) { try Chakrad.parseAsRoot(["run", "--scene", "spiral"]) }
        #expect(throws: (any Error).self) { try Chakrad.parseAsRoot(["run", "--scene", "spirale"]) }
    }
}
