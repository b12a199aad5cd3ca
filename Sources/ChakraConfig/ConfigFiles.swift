import Glibc

/// The main file and its drop-ins: /etc/chakra/chakra.toml, then every
/// /etc/chakra/chakra.toml.d/*.toml in byte order of the names, each laid
/// over the files before it key by key (`LoadedConfig.lay`). Drop-ins let
/// a provisioning tool (an Ansible template, a site package) change a few
/// keys without owning, or rewriting, the whole file.
public enum ConfigFiles {
    /// `<file>.d`, beside the file.
    public static func dropInDirectory(for path: String) -> String { path + ".d" }

    /// Reads `path` and its drop-ins. A missing main file is an error when
    /// `required` (`--config FILE`), else it counts as empty: the defaults
    /// with the drop-ins laid over them. Every problem in every file is
    /// reported at once, each naming its file.
    public static func load(path: String, required: Bool) throws(ConfigError) -> LoadedConfig {
        var issues: [ConfigIssue] = []
        var merged = LoadedConfig(config: ChakraConfig())
        if required || access(path, F_OK) == 0 {
            do { merged = try ConfigParser.loadPart(path: path) } catch { issues += error.issues }
        }
        let dropIns: [String]
        do { dropIns = try self.dropIns(of: path) } catch {
            issues += error.issues
            dropIns = []
        }
        for dropIn in dropIns {
            do { merged.lay(try ConfigParser.loadPart(path: dropIn)) } catch { issues += error.issues }
        }
        guard issues.isEmpty else { throw ConfigError(issues) }
        return try ConfigParser.checkWhole(merged)
    }

    /// The drop-ins of `path`, in the order they are laid: names ending in
    /// .toml, not hidden, sorted by their bytes (not by locale, so that
    /// 10-x.toml comes before 9-x.toml everywhere, as with systemd's). Other
    /// names are skipped, so that editor and package-manager leftovers
    /// (x.toml~, x.toml.dpkg-old, .x.toml.swp) are never read. No directory:
    /// no drop-ins.
    public static func dropIns(of path: String) throws(ConfigError) -> [String] {
        let directory = dropInDirectory(for: path)
        guard let dir = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw ConfigError([ConfigIssue(file: directory, message: "cannot read the drop-in directory: \(String(cString: strerror(errno)))")])
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(".") || !name.hasSuffix(".toml") { continue }
            names.append(name)
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { directory + "/" + $0 }
    }
}
