import Foundation
import Testing

/// `make install DESTDIR=...` with the binaries this test run built
/// (tests/install/run.sh: layout, modes, filled-in units, a kept
/// chakra.toml, `systemd-analyze verify` where installed).
@Suite("make install", .enabled(if: Binaries.directory != nil, "build chakrad and chakractl first"))
struct InstallTests {
    @Test func installLaysOutTheExpectedFiles() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["BUILD_DIR"] = Binaries.directory
        let outcome = try Binaries.run("/bin/bash", [Binaries.repository.appendingPathComponent("tests/install/run.sh").path],
                                       environment: environment)
        #expect(outcome.status == 0, "\(outcome.output)\(outcome.error)")
        #expect(outcome.output.contains(" passed, 0 failed"), "\(outcome.output)")
    }
}
