import ChakraScenes
import ChakraSpiral
import ChakraText
import Glibc

/// The scenes the daemon shows: the ambient catalog's, and the spiral
/// exercise, which needs the [spiral] and [text] settings and a session
/// the daemon feeds with touches (so it is made here, not by
/// `SceneCatalog`).
public enum DaemonScenes {
    public static let names = SceneCatalog.names + [SpiralScene.name]

    /// `name` at `width`×`height` (the frame as seen), or nil when no such
    /// scene exists. Throws when the spiral's font cannot be opened.
    static func make(_ name: String, width: Int, height: Int, configuration: DaemonConfiguration) throws -> Scene? {
        if name == SpiralScene.name {
            return try SpiralScene(width: width, height: height, settings: configuration.settings, threads: configuration.threads,
                                   spiral: configuration.config.spiral, text: configuration.config.text,
                                   catalogDirectory: configuration.catalogDirectory)
        }
        return SceneCatalog.make(name, width: width, height: height, settings: configuration.settings, threads: configuration.threads)
    }

    /// Where the string catalogs are: the installed /etc/chakra/lang, or
    /// etc/chakra/lang of the working directory when run from a checkout.
    public static func defaultCatalogDirectory() -> String {
        if access(StringCatalog.defaultDirectory, R_OK) == 0 { return StringCatalog.defaultDirectory }
        if access("etc/chakra/lang/en.toml", R_OK) == 0 { return "etc/chakra/lang" }
        return StringCatalog.defaultDirectory
    }
}
