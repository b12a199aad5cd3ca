import Glibc

/// The descriptors systemd passed to this process (sd_listen_fds(3) and
/// sd_listen_fds_with_names(3), without libsystemd): $LISTEN_PID names the
/// process they are for, $LISTEN_FDS how many there are, from descriptor
/// 3 on, and $LISTEN_FDNAMES their names, ':'-separated (FDNAME= when
/// they were stored, FileDescriptorName= for sockets).
///
/// Reading the variables is pure (`init(environment:processID:)`), so it
/// is tested against dictionaries; `adopt` then makes the descriptors
/// close-on-exec and clears the variables from the process's environment.
/// The set owns what it holds until a caller `take`s it: whatever nobody
/// took is closed by `closeRemaining`, so a device (a DRM master) is never
/// kept open by a descriptor no one uses.
public struct PassedDescriptors: Equatable, Sendable {
    /// One passed descriptor.
    public struct Entry: Equatable, Sendable {
        public let name: String
        public let fd: Int32

        public init(name: String, fd: Int32) { (self.name, self.fd) = (name, fd) }
    }

    /// SD_LISTEN_FDS_START: the first passed descriptor.
    public static let firstDescriptor: Int32 = 3
    /// More than this many is garbage, not a store chakrad filled (it keeps
    /// a handful); systemd's own ceiling is far above any real unit's.
    public static let maxCount = 1024
    /// The variables, cleared once read so a child never takes our
    /// descriptors for its own.
    public static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// In the order passed: descriptor 3 first.
    public private(set) var entries: [Entry]
    /// $LISTEN_PID named another process (a parent's variables inherited):
    /// its pid. Nothing is ours then, and nothing may be touched.
    public let meantForProcess: Int32?

    /// Nothing passed.
    public static let none = PassedDescriptors(entries: [], meantForProcess: nil)

    private init(entries: [Entry], meantForProcess: Int32?) {
        (self.entries, self.meantForProcess) = (entries, meantForProcess)
    }

    /// Reads the variables as sd_listen_fds does: no $LISTEN_PID or no
    /// $LISTEN_FDS means nothing was passed; a $LISTEN_PID of another
    /// process means nothing is ours (`meantForProcess`). Without
    /// $LISTEN_FDNAMES every descriptor is "unknown", as systemd names them.
    /// Values that cannot be systemd's (not numbers, a count beyond
    /// `maxCount`, names that do not match the count or are not names)
    /// throw; the error says which descriptors are ours all the same
    /// (`PassedDescriptorsError.owned`), so the caller can close them.
    public init(environment: [String: String], processID: Int32) throws(PassedDescriptorsError) {
        guard let pidText = environment["LISTEN_PID"], let countText = environment["LISTEN_FDS"] else {
            self = .none
            return
        }
        guard let pid = Self.decimal(pidText), pid > 0, pid <= Int(Int32.max) else {
            throw PassedDescriptorsError(problem: .badPID(pidText), owned: 0)
        }
        guard pid == Int(processID) else {
            self.init(entries: [], meantForProcess: Int32(pid))
            return
        }
        guard let count = Self.decimal(countText), count <= Self.maxCount else {
            throw PassedDescriptorsError(problem: .badCount(countText), owned: 0)
        }
        var names: [String]
        if let namesText = environment["LISTEN_FDNAMES"] {
            // "" is no names at all (as systemd splits it), not one empty name.
            names = namesText.isEmpty ? [] : namesText.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard names.count == count else {
                throw PassedDescriptorsError(problem: .namesDoNotMatch(count: count, names: names.count), owned: count)
            }
            for (index, name) in names.enumerated() {
                if let problem = DescriptorName.problem(in: name) {
                    throw PassedDescriptorsError(problem: .badName(index: index, DescriptorNameError(name: name, problem: problem)), owned: count)
                }
            }
        } else {
            names = Array(repeating: "unknown", count: count)
        }
        self.init(entries: names.enumerated().map { Entry(name: $1, fd: Self.firstDescriptor + Int32($0)) }, meantForProcess: nil)
    }

    /// A plain decimal number as systemd writes it: digits only, no sign
    /// or spaces, at most ten of them (no overflow).
    private static func decimal(_ text: String) -> Int? {
        let bytes = text.utf8
        guard (1...10).contains(bytes.count), bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(text)
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// Every name passed, in order, once each.
    public var names: [String] {
        var seen = Set<String>()
        return entries.map(\.name).filter { seen.insert($0).inserted }
    }

    /// The descriptors named `name`, in order, without taking them.
    public func descriptors(named name: String) -> [Int32] {
        entries.filter { $0.name == name }.map(\.fd)
    }

    /// Takes the descriptors named `name` out of the set: the caller owns
    /// them now.
    public mutating func take(_ name: String) -> [Int32] {
        let taken = descriptors(named: name)
        entries.removeAll { $0.name == name }
        return taken
    }

    /// Closes every descriptor nobody took (a name this version does not
    /// know, one left over from a failed hand-over) and returns what it
    /// closed, for the log.
    @discardableResult
    public mutating func closeRemaining() -> [Entry] {
        let closing = entries
        for entry in closing { Descriptor.close(entry.fd) }
        entries = []
        return closing
    }
}

extension PassedDescriptors {
    /// The process's passed descriptors: read from `environment` (the
    /// process's own, as given at start), each made close-on-exec (systemd
    /// passes them inheritable), and the variables cleared. A descriptor
    /// that is not open throws. Call it first thing, before the process
    /// opens anything: until then descriptors from 3 on are systemd's. On
    /// any error the descriptors that were ours
    /// are closed before the error is thrown, and the error says so: a
    /// daemon that cannot name its descriptors cannot use them, and must
    /// not keep a device open behind its own back.
    public static func adopt(environment: [String: String], processID: Int32 = getpid()) throws(PassedDescriptorsError) -> PassedDescriptors {
        defer { for variable in variables { unsetenv(variable) } }
        let passed: PassedDescriptors
        do throws(PassedDescriptorsError) {
            passed = try PassedDescriptors(environment: environment, processID: processID)
        } catch {
            throw closing(error)
        }
        for (index, entry) in passed.entries.enumerated() {
            do throws(SystemError) {
                try Syscall.check("fcntl(F_SETFD, passed fd \(entry.fd))") { fcntl(entry.fd, F_SETFD, FD_CLOEXEC) }
            } catch {
                // The count was wrong: only the descriptors before the gap
                // are known to be ours; one after it may be anyone's.
                throw closing(PassedDescriptorsError(problem: .notOpen(name: entry.name, fd: entry.fd, error), owned: index))
            }
        }
        return passed
    }

    /// Closes the descriptors `error` says are ours; the error, marked so.
    private static func closing(_ error: PassedDescriptorsError) -> PassedDescriptorsError {
        guard error.owned > 0 else { return error }
        for offset in 0..<Int32(error.owned) { Descriptor.close(firstDescriptor + offset) }
        var closed = error
        closed.closed = true
        return closed
    }
}

/// Why the passed descriptors could not be taken.
public struct PassedDescriptorsError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        /// $LISTEN_PID is not a process id.
        case badPID(String)
        /// $LISTEN_FDS is not a count (or more than `PassedDescriptors.maxCount`).
        case badCount(String)
        /// $LISTEN_FDNAMES has another number of names than $LISTEN_FDS says.
        case namesDoNotMatch(count: Int, names: Int)
        /// The name at `index` (from 0) is not one systemd writes.
        case badName(index: Int, DescriptorNameError)
        /// A descriptor said to be passed is not open.
        case notOpen(name: String, fd: Int32, SystemError)
    }

    public let problem: Problem
    /// How many descriptors, from 3, were ours all the same ($LISTEN_PID
    /// was this process and $LISTEN_FDS a count): the caller closes them.
    public let owned: Int
    /// `adopt` closed them already.
    public internal(set) var closed = false

    public var description: String {
        let what = switch problem {
        case .badPID(let text): "LISTEN_PID='\(text.prefix(40))' is not a process id"
        case .badCount(let text): "LISTEN_FDS='\(text.prefix(40))' is not a count from 0 to \(PassedDescriptors.maxCount)"
        case .namesDoNotMatch(let count, let names): "LISTEN_FDS says \(count) descriptors but LISTEN_FDNAMES names \(names)"
        case .badName(let index, let error): "LISTEN_FDNAMES, name \(index + 1): \(error)"
        case .notOpen(let name, let fd, let error): "passed descriptor \(fd) ('\(name)') is not usable: \(error)"
        }
        guard owned > 0 else { return "systemd's passed descriptors ignored: \(what)" }
        let them = owned == 1 ? "descriptor 3" : "descriptors 3 to \(PassedDescriptors.firstDescriptor + Int32(owned) - 1)"
        return "systemd's passed descriptors not used: \(what); \(them) " + (closed ? "closed" : "to be closed")
    }
}
