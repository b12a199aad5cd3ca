import Glibc

/// Text to a descriptor, unbuffered, every byte (EINTR and short writes
/// retried): messages on standard error and event lines into pipes.
func writeAll(_ text: String, to fd: Int32) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let count = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return }
        offset += count
    }
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
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw fail("create", errno) }
    var offset = 0
    while offset < bytes.count {
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else {
            let code = count < 0 ? errno : ENOSPC
            close(fd)
            unlink(temporary)
            throw fail("write", code)
        }
        offset += count
    }
    guard close(fd) == 0 else {
        let code = errno
        unlink(temporary)
        throw fail("close", code)
    }
    guard rename(temporary, path) == 0 else {
        let code = errno
        unlink(temporary)
        throw fail("rename", code)
    }
}
