import ChakraContinuity
import ChakraControl
import ChakraDisplay
import ChakraSystem

/// What a start takes over from a previous process (issue 30,
/// docs/seams.md): the descriptors systemd passed, the continuation record
/// among them, and the store the record is kept in from now on. Without
/// systemd (no $NOTIFY_SOCKET, nothing passed) it is empty and nothing
/// changes.
final class ContinuityStart {
    /// The record to continue from; nil: a fresh start.
    let record: ContinuationRecord?
    /// How the process started; `picture` says what became of the screen
    /// once the output is open.
    private(set) var report: StartReport
    /// Where the core's records go; nil without systemd's store.
    let saver: ContinuationSaver?
    /// The DRM device the last process left (`drm`), for the output.
    var drm: Int32?
    /// The framebuffer the last process left (`fb`), checked to be one,
    /// for the output; closed (`closeFramebuffer`) once the output is open,
    /// which keeps a descriptor of its own.
    private(set) var framebuffer: Int32?
    /// What became of the screen passed on, as the report says it.
    private(set) var picture: StartDecision.Picture = .opening
    /// What the report is made of (`StartDecision`).
    private let storedNames: [String], adoptError: String?, recordOutcome: StartDecision.Record?

    init(record: ContinuationRecord?, saver: ContinuationSaver?, storedNames: [String] = [], adoptError: String? = nil,
         recordOutcome: StartDecision.Record? = nil) {
        (self.record, self.saver, self.storedNames, self.adoptError, self.recordOutcome) = (record, saver, storedNames, adoptError, recordOutcome)
        report = StartDecision.report(storedNames: storedNames, adoptError: adoptError, record: recordOutcome, picture: picture)
    }

    static var none: ContinuityStart { ContinuityStart(record: nil, saver: nil) }

    /// What became of the screen passed on: the report says so.
    func picture(_ picture: StartDecision.Picture) {
        self.picture = picture
        report = StartDecision.report(storedNames: storedNames, adoptError: adoptError, record: recordOutcome, picture: picture)
    }

    /// Takes the screen's devices the last process left out of `passed`:
    /// `drm` as it is (the DRM output checks it), `fb` once it is known to
    /// be a framebuffer (`takeFramebuffer`). Another descriptor under the
    /// same name (names need not be unique) is closed.
    func takeScreenDevices(from passed: inout PassedDescriptors, notifier: SystemdNotifier?, logger: Logger) {
        let devices = Self.screenDevices(from: &passed)
        drm = devices.drm.first
        for extra in devices.framebuffers.dropFirst() { Descriptor.close(extra) }
        if let fd = devices.framebuffers.first { takeFramebuffer(fd, notifier: notifier, logger: logger) }
    }

    /// The descriptors passed as `drm` and as `fb`, taken out of `passed` by
    /// their names (pure: nothing is looked at or closed).
    static func screenDevices(from passed: inout PassedDescriptors) -> (drm: [Int32], framebuffers: [Int32]) {
        (passed.take(StoredDescriptors.drm.text), passed.take(StoredDescriptors.framebuffer.text))
    }

    /// The descriptor passed as `fb`, kept for the output when it is a
    /// framebuffer device (`PassedFramebuffer`). Anything else is closed,
    /// leaves systemd's store, and the start says why; the output then
    /// opens its device as on a fresh start. Never a crash.
    func takeFramebuffer(_ fd: Int32, notifier: SystemdNotifier?, logger: Logger) {
        guard let problem = PassedFramebuffer.problem(with: fd) else {
            framebuffer = fd
            return
        }
        Descriptor.close(fd)
        logger.warning("continuity: the descriptor passed as fb is not a framebuffer: \(problem); closed, the framebuffer is opened anew")
        notUsed(StoredDescriptors.framebuffer, "the fb descriptor passed is not a framebuffer: \(problem)", notifier: notifier, logger: logger)
    }

    /// A screen's device passed but not used (`why`): it leaves systemd's
    /// store (a DRM master kept there would keep the card's next open from
    /// becoming master), and the start says why the picture was not kept.
    func notUsed(_ name: DescriptorName, _ why: String, notifier: SystemdNotifier?, logger: Logger) {
        picture(.notKept(why))
        do { try notifier?.removeStored(name) } catch { logger.warning("continuity: \(error)") }
    }

    /// The DRM device passed is not for this run's output: closed (it is
    /// DRM master) and out of systemd's store, and the start says so.
    func letGoOfDRM(notifier: SystemdNotifier?, logger: Logger) {
        guard let fd = drm else { return }
        drm = nil
        Descriptor.close(fd)
        logger.info("continuity: the DRM device the last process left is not for this output: closed")
        notUsed(StoredDescriptors.drm, "the DRM device passed was not used", notifier: notifier, logger: logger)
    }

    /// The output is open (it took the framebuffer over with a descriptor
    /// of its own, or did not use it): the one passed is closed.
    func closeFramebuffer() {
        guard let fd = framebuffer else { return }
        framebuffer = nil
        Descriptor.close(fd)
    }

    /// Reads the `state` record out of `passed` (taking it), and keeps the
    /// record from now on in the same memory file (systemd still holds
    /// it) or a new one, when `notifier` reaches systemd. The record's
    /// errors are logged and the start is a fresh one; never a crash.
    static func take(from passed: inout PassedDescriptors, adoptError: PassedDescriptorsError?, notifier: SystemdNotifier?,
                     logger: Logger) -> ContinuityStart {
        let stored = passed.names.filter { StoredDescriptors.all.map(\.text).contains($0) }
        let states = passed.take(StoredDescriptors.state.text)
        // Names need not be unique, but chakrad keeps one record (it reuses
        // the descriptor passed): the first is read, any other closed.
        for extra in states.dropFirst() { Descriptor.close(extra) }
        let stateFD = states.first
        var record: Result<ContinuationRecord, ContinuationStoreError>?
        if let stateFD { record = Result { () throws(ContinuationStoreError) in try ContinuationStore.read(from: stateFD) } }
        var continued: ContinuationRecord?
        switch record {
        case .success(let read)?:
            continued = read
            logger.info("continuity: the last process's record: \(read.scene) at \(read.sceneTime) s, taken \(read.takenAt) s after boot")
        case .failure(let error)?:
            logger.warning("continuity: the last process's record is not usable (\(error)); starting fresh")
        case nil:
            break
        }
        let kept = continued
        func start(saver: ContinuationSaver?) -> ContinuityStart {
            ContinuityStart(record: kept, saver: saver, storedNames: stored, adoptError: adoptError?.description,
                            recordOutcome: record.map(outcome))
        }
        guard let notifier else {
            if let stateFD { Descriptor.close(stateFD) }
            return start(saver: nil)
        }
        // The same memory file again, unless it was not one (then a new
        // one, and the old one leaves the store).
        var reuse = stateFD
        if case .failure(.file)? = record, let stateFD {
            Descriptor.close(stateFD)
            reuse = nil
            do { try notifier.removeStored(StoredDescriptors.state) } catch { logger.warning("continuity: \(error)") }
        }
        do {
            let store = try ContinuationStore(notifier: notifier, reusing: reuse)
            return start(saver: ContinuationSaver(store: store, logger: logger))
        } catch {
            logger.warning("continuity: the record cannot be kept (\(error)); a restart starts fresh")
            return start(saver: nil)
        }
    }

    private static func outcome(_ result: Result<ContinuationRecord, ContinuationStoreError>) -> StartDecision.Record {
        switch result {
        case .success: .read
        case .failure(let error): .unusable("\(error)")
        }
    }
}

/// Keeps the core's records in the store; a failure is logged once until
/// a save succeeds again (a full memory would otherwise fill the journal).
final class ContinuationSaver: ContinuationOutput {
    let store: ContinuationStore
    private let logger: Logger
    private var failing = false
    /// Saves done, for the log at exit.
    private(set) var saves = 0

    init(store: ContinuationStore, logger: Logger) {
        (self.store, self.logger) = (store, logger)
    }

    func save(_ record: ContinuationRecord) {
        do {
            try store.save(record)
            saves += 1
            if failing { logger.info("continuity: the record is saved again") }
            failing = false
        } catch {
            if !failing { logger.warning("continuity: the record was not saved (\(error)); a restart may continue from an older one") }
            failing = true
        }
    }
}

/// How the process started, from what the previous one left (pure).
enum StartDecision {
    /// What became of the screen passed on.
    enum Picture: Equatable {
        /// The output is not open yet: a screen's device passed is expected
        /// to be taken over (a client asking for the status mid-restart is
        /// not told otherwise for the moment the opening takes).
        case opening
        /// No descriptor of the screen's device was passed: `drm` (also
        /// for the headless output) or `fb` (the fbdev output).
        case notPassed(DescriptorName)
        /// The output took it over: the picture stayed up.
        case kept
        /// Passed, but not used, and why.
        case notKept(String)
    }

    /// The `state` record passed.
    enum Record: Equatable {
        case read
        /// Not a record this version reads, and why.
        case unusable(String)
    }

    /// `storedNames`: the names of `StoredDescriptors` passed; `record`:
    /// the `state` record read, or why not (nil: none passed).
    static func report(storedNames: [String], adoptError: String?, record: Record?, picture: Picture) -> StartReport {
        if let adoptError { return StartReport(kind: .restartedWithoutPicture, reason: "the passed descriptors: \(adoptError)") }
        if storedNames.isEmpty { return .fresh }
        switch record {
        case nil: return StartReport(kind: .restartedWithoutPicture, reason: "no state record passed")
        case .unusable(let why)?: return StartReport(kind: .restartedWithoutPicture, reason: why)
        case .read?: break
        }
        switch picture {
        case .opening:
            let screens = [StoredDescriptors.drm, StoredDescriptors.framebuffer].map(\.text)
            if storedNames.contains(where: screens.contains) { return StartReport(kind: .restarted) }
            return StartReport(kind: .restartedWithoutPicture, reason: "no drm or fb descriptor passed")
        case .kept: return StartReport(kind: .restarted)
        case .notPassed(let name): return StartReport(kind: .restartedWithoutPicture, reason: "no \(name.text) descriptor passed")
        case .notKept(let why): return StartReport(kind: .restartedWithoutPicture, reason: why)
        }
    }
}
