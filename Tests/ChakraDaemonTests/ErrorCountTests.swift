import ChakraConfig
import Testing
@testable import ChakraDaemon

/// `errors` in status and `chakra_errors_total` count each kind in one
/// place, the core, whichever way the error came.
@Suite("Error counts: every refusal counted once, whichever way it came")
struct ErrorCountTests {
    /// The errors of a file that cannot be read as a configuration.
    static func unreadable(_ text: String) -> ConfigError? {
        do throws(ConfigError) {
            _ = try ConfigParser.parse(text, file: "/test.toml")
            return nil
        } catch {
            return error
        }
    }

    /// A file read, naming a scene this build does not have.
    static var unknownScene: LoadedConfig {
        var config = ChakraConfig()
        config.scene.defaultScene = "nope"
        return LoadedConfig(config: config, lines: try! TOML.read("[scene]\ndefault = \"nope\"\n").lines, file: "/test.toml")
    }

    @Test("SIGHUP and `reload`, a file that cannot be read or one this build refuses: each refusal counts one")
    func everyRefusedReload() throws {
        let driver = try CoreDriver()
        driver.run(until: 101)
        let broken = try #require(Self.unreadable("[[[\n"))
        driver.send(.command(.signalReload(.failure(broken))), at: 101)
        #expect(driver.core.status().errors[.configReload] == 1, "SIGHUP, unreadable")
        #expect(driver.published.last?.errors[.configReload] == 1, "published at once, though nothing else changed")
        driver.send(.command(.signalReload(.success(Self.unknownScene))), at: 102)
        #expect(driver.core.status().errors[.configReload] == 2, "SIGHUP, refused")

        let refused = driver.command { .refuseConfiguration(broken, reply: $0) }
        guard case .failure(.configInvalid(let why))? = refused else { Issue.record("not refused: \(String(describing: refused))"); return }
        #expect(why == broken.description, "the client reads the file's errors")
        #expect(driver.core.status().errors[.configReload] == 3, "reload, unreadable")
        #expect(driver.published.last?.errors[.configReload] == 3, "published with the answer")
        let invalid = driver.command { .applyConfiguration(Self.unknownScene, reply: $0) }
        #expect((try? invalid?.get()) == nil)
        #expect(driver.core.status().errors[.configReload] == 4, "reload, refused")

        let good = driver.command { .applyConfiguration(LoadedConfig(config: ChakraConfig(), file: "/test.toml"), reply: $0) }
        #expect((try? good?.get()) != nil)
        driver.send(.command(.signalReload(.success(LoadedConfig(config: ChakraConfig(), file: "/test.toml")))), at: 103)
        #expect(driver.core.status().errors[.configReload] == 4, "an accepted reload counts nothing")
        #expect(driver.core.status().errors.total == 4, "and nothing else")
    }
}
