import ChakraSystem
import Glibc

/// Text to a descriptor, unbuffered, every byte (EINTR and short writes
/// retried): messages on standard error and event lines into pipes.
func writeAll(_ text: String, to fd: Int32) {
    let bytes = Array(text.utf8)
    bytes.withUnsafeBytes { raw in _ = try? Descriptor.writeAll(fd, raw.baseAddress!, count: raw.count) }
}

/// Why a file could not be written: the path and the system's reason.
struct FileWriteFailure: Error, CustomStringConvertible {
    let description: String
}

/// Writes `bytes` to `path` so that a reader sees the old file or the whole
/// new one, never a part: a temporary file beside it, then rename(2).
func writeFileAtomically(_ bytes: [UInt8], to path: String) throws(FileWriteFailure) {
    let temporary = path + ".chakractl-\(getpid())"
    func fail(_ what: String, _ code: Int32) -> FileWriteFailure {
        FileWriteFailure(description: "cannot write \(path): \(what): \(String(cString: strerror(code)))")
    }
    let fd: Int32
    do {
        fd = try Descriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
    } catch {
        throw fail("create", error.errno)
    }
    do {
        try bytes.withUnsafeBytes { raw throws in
            guard let base = raw.baseAddress else { return }
            try Descriptor.writeAll(fd, base, count: raw.count)
        }
    } catch {
        Descriptor.close(fd)
        try? FileSystem.unlink(temporary)
        throw fail("write", (error as? SystemError)?.errno ?? EIO)
    }
    if let error = Descriptor.close(fd) {
        try? FileSystem.unlink(temporary)
        throw fail("close", error.errno)
    }
    do {
        try FileSystem.rename(temporary, to: path)
    } catch {
        try? FileSystem.unlink(temporary)
        throw fail("rename", error.errno)
    }
}
