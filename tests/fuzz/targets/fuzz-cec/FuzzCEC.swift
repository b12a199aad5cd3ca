// libFuzzer target: what chakrad reads from the HDMI-CEC bus. A scripted
// `CECBus` answers every call of `CECPowerSequence` from the fuzzer's
// bytes (addresses that come and go, any tx/rx status bits, reply frames
// 0-16 bytes long from anyone, the kernel's errors), on a virtual clock
// moved only by `pause` and by the time each transmit takes; the sequence
// runs for off and for on, one after the other on the same bus, as the
// controller's thread does. Built and run by tests/fuzz/run.sh.
//
// Input: byte 0 bit 0 says which runs first (1: on). The script follows,
// read as the calls come (all zeros once it runs out):
//   addresses(): a < 0xA0: logical a & 0xF, physical the next two bytes
//                (big-endian; ff ff is none); 0xA0-0xBF: no logical
//                address, physical the next two; 0xC0-0xDF: logical
//                a & 0xF, physical none; 0xE0-0xFF: an error, errno byte.
//   transmit():  t >= 0xF0: an error, errno byte; else tx_status,
//                rx_status, n, then n % 17 reply bytes. With a reply
//                awaited, an answer in time takes (t & 0xF)/15 of the
//                time-out, none the whole of it.
// errno byte: 0-9 ENONET EINVAL EBUSY ETIMEDOUT ENODEV EIO EINTR ENXIO
// EPERM ENOTTY, else the byte itself.
import ChakraDisplay
import ChakraSystem
import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCEC(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkFrames(bytes)
    guard let first = bytes.first else { return 0 }
    let bus = FuzzBus(script: bytes.dropFirst())
    let onFirst = first & 1 != 0
    for on in [onFirst, !onFirst] {
        run(on: on, bus: bus)
    }
    return 0
}

/// Every prefix of the input as a frame: taken iff 1 to 16 bytes, the
/// fields and the words never trap.
private func checkFrames(_ bytes: [UInt8]) {
    for length in 0...min(bytes.count, CECMessage.maxLength + 4) {
        let prefix = Array(bytes.prefix(length))
        guard let message = CECMessage(bytes: prefix) else {
            if (1...CECMessage.maxLength).contains(length) { fatalError("a \(length)-byte frame refused") }
            continue
        }
        guard (1...CECMessage.maxLength).contains(length) else { fatalError("a \(length)-byte frame taken") }
        guard message.bytes == prefix else { fatalError("frame changed") }
        let text = message.description
        guard text.utf8.count == 3 * length - 1 else { fatalError("description \(text) for \(length) bytes") }
        _ = (message.initiator, message.destination, message.opcode, message.operands, message.isBroadcast)
        _ = "\(CECReply(message))"
    }
    if bytes.count >= 2 {
        let result = CECTransmitResult(sent: .init(rawValue: bytes[0]), received: .init(rawValue: bytes[1]),
                                       reply: CECMessage(bytes: Array(bytes.dropFirst(2).prefix(16))))
        guard (result.sendFailure == nil) == result.sent.contains(.ok) else { fatalError("tx_status \(bytes[0]) misread") }
        if let failure = result.sendFailure, failure.isEmpty { fatalError("a failure without words") }
        _ = result.answer
        let physical = CECPhysicalAddress(raw: UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
        _ = physical.description
    }
}

private let verbose = getenv("FUZZ_CEC_VERBOSE") != nil

/// What must hold whatever the bus does.
private func run(on: Bool, bus: FuzzBus) {
    bus.startRun()
    let sequence = CECPowerSequence(bus: bus)
    let report = sequence.run(on: on)
    let elapsed = bus.clock - bus.runStart
    // What happened, in words: built only for a failure (or verbose).
    func where_() -> String { "\(on ? "on" : "off"): \(report.summary)\n\(bus.log())" }
    // To read what an input does: FUZZ_CEC_VERBOSE=1 fuzz-cec <file>.
    if verbose { print(where_() + "\n") }

    // It ends, after a bounded number of calls, in bounded (virtual) time:
    // the settle time, then at most one more round (one reply time-out,
    // the frames of one round) begun just before the deadline.
    guard bus.calls <= FuzzBus.maxCalls else { fatalError("\(bus.calls) bus calls; \(where_())") }
    let bound = sequence.settleTime + Double(sequence.replyTimeout) / 1000 + 4 * FuzzBus.frameTime
    guard elapsed <= bound + 1e-9 else { fatalError("\(elapsed) s on the bus (bound \(bound) s); \(where_())") }

    // The report is for the part and the request.
    guard report.part == "cec", report.on == on else { fatalError("report for something else; \(where_())") }
    guard report.method == (on ? "CEC Image View On" : "CEC Standby") else { fatalError("method; \(where_())") }
    guard !report.check.detail.isEmpty else { fatalError("a report without a detail; \(where_())") }

    // What was sent: off never wakes the TV, on never sends it to standby;
    // each frame from the address just read (Image View On may come from
    // Unregistered when there is none), to the TV, Active Source alone
    // broadcast with the physical address just read.
    for sent in bus.sent {
        let opcode = sent.message.opcode.flatMap(CECOpcode.init(rawValue:))
        switch opcode {
        case .standby: guard !on else { fatalError("Standby while waking; \(where_())") }
        case .imageViewOn, .activeSource: guard on else { fatalError("\(opcode!.name) while going to standby; \(where_())") }
        case .giveDevicePowerStatus: break
        default: fatalError("sent \(sent.message); \(where_())")
        }
        let expectedFrom = sent.addresses?.logical ?? (opcode == .imageViewOn ? CECAddress.unregistered : nil)
        guard let from = expectedFrom, sent.message.initiator == from else {
            fatalError("\(sent.message) sent with addresses \(String(describing: sent.addresses)); \(where_())")
        }
        if opcode == .activeSource {
            guard let physical = sent.addresses?.physical, physical.isValid, sent.message.isBroadcast,
                  Array(sent.message.operands) == [UInt8(physical.raw >> 8), UInt8(physical.raw & 0xFF)] else {
                fatalError("Active Source \(sent.message) with addresses \(String(describing: sent.addresses)); \(where_())")
            }
        } else if sent.message.destination != CECAddress.tv {
            fatalError("\(sent.message) not to the TV; \(where_())")
        }
        guard sent.awaited == (opcode == .giveDevicePowerStatus ? .reportPowerStatus : nil) else {
            fatalError("\(sent.message) awaiting \(String(describing: sent.awaited)); \(where_())")
        }
    }

    // A confirmation is the TV's word: the first step acknowledged, then a
    // Report Power Status with the state asked for, from the TV, to the
    // question. Unchecked is a Feature Abort of that question by the TV,
    // or (for standby) the address gone after an acknowledged Standby.
    let wanted: UInt8 = on ? 0 : 1
    let firstAcknowledged = bus.sent.first.map { $0.result?.isAcknowledged == true } ?? false
    let answers = bus.sent.filter { $0.message.opcode == CECOpcode.giveDevicePowerStatus.rawValue && $0.result?.isAcknowledged == true }
        .compactMap { sent -> CECMessage? in
            guard let result = sent.result, !result.received.contains(.aborted),
                  !result.received.isDisjoint(with: [.ok, .featureAbort]) else { return nil }
            return result.reply
        }
    switch report.check {
    case .confirmed:
        guard firstAcknowledged, answers.contains(where: { $0.initiator == CECAddress.tv && $0.bytes.dropFirst().starts(with: [0x90, wanted]) }) else {
            fatalError("confirmed without the TV saying so; \(where_())")
        }
    case .unchecked(let detail):
        if detail == CECPowerSequence.hotplugDropped {
            guard !on, firstAcknowledged, let last = bus.lastAddresses, last.logical == nil else { fatalError("hotplug drop made up; \(where_())") }
        } else {
            guard firstAcknowledged, answers.contains(where: { $0.initiator == CECAddress.tv && $0.opcode == 0x00 && $0.operands.first == 0x8F }) else {
                fatalError("unchecked without a Feature Abort from the TV; \(where_())")
            }
        }
    case .failed:
        break
    }
}

/// The bus, played from the fuzzer's bytes.
private final class FuzzBus: CECBus {
    /// Far more than the sequence needs (about 6 calls a round, 10 rounds).
    static let maxCalls = 100
    /// A frame on the wire: start bit and a few bytes, about 50 ms.
    static let frameTime = 0.05

    struct Sent {
        let message: CECMessage
        let awaited: CECOpcode?
        /// The addresses last read before it (nil: none read yet, or an error).
        let addresses: CECAddresses?
        let result: CECTransmitResult?
    }

    private var script: ArraySlice<UInt8>
    private(set) var clock = 1000.0
    private(set) var runStart = 1000.0
    private(set) var calls = 0
    private(set) var sent: [Sent] = []
    private(set) var lastAddresses: CECAddresses?
    /// The calls of this run, kept as they came and put in words only for
    /// a report (words for every input would halve the executions).
    private enum Event {
        case addresses(Result<CECAddresses, SystemError>)
        case transmit(Int, SystemError?)
        case pause(Double)
    }
    private var events: [(time: Double, event: Event)] = []

    init(script: ArraySlice<UInt8>) { self.script = script }

    func startRun() {
        (runStart, calls, sent, lastAddresses, events) = (clock, 0, [], nil, [])
    }

    private func next() -> UInt8 { script.popFirst() ?? 0 }

    private func count(_ event: Event) {
        calls += 1
        // Well past the bound: a sequence that does not end is reported
        // here, not as a libFuzzer time-out.
        if calls > 10 * Self.maxCalls { fatalError("the sequence does not end:\n\(log(last: 20))") }
        events.append((clock, event))
    }

    private static func words(_ it: Sent) -> String {
        let result = it.result!
        return "transmit \(it.message) awaiting \(it.awaited.map { "\($0)" } ?? "nothing"): tx \(result.sent.rawValue) rx \(result.received.rawValue) reply \(result.reply.map { "\($0)" } ?? "none")"
    }

    func log(last: Int = 200) -> String {
        events.suffix(last).map { time, event in
            let text = switch event {
            case .addresses(.success(let addresses)): "addresses: \(addresses.logical.map { "\($0)" } ?? "none") \(addresses.physical)"
            case .addresses(.failure(let error)): "addresses: \(error)"
            case .transmit(let index, let error?): "transmit \(sent[index].message): \(error)"
            case .transmit(let index, nil): Self.words(sent[index])
            case .pause(let seconds): "pause \(seconds)"
            }
            return "\(((time - runStart) * 1000).rounded() / 1000) s: \(text)"
        }.joined(separator: "\n")
    }

    private func errno(_ byte: UInt8) -> Int32 {
        let common = [ENONET, EINVAL, EBUSY, ETIMEDOUT, ENODEV, EIO, EINTR, ENXIO, EPERM, ENOTTY]
        return byte < common.count ? common[Int(byte)] : Int32(byte)
    }

    func addresses() throws(SystemError) -> CECAddresses {
        let a = next()
        let addresses: CECAddresses
        switch a {
        case ..<0xA0: addresses = CECAddresses(logical: a & 0xF, physical: CECPhysicalAddress(raw: UInt16(next()) << 8 | UInt16(next())))
        case ..<0xC0: addresses = CECAddresses(logical: nil, physical: CECPhysicalAddress(raw: UInt16(next()) << 8 | UInt16(next())))
        case ..<0xE0: addresses = CECAddresses(logical: a & 0xF, physical: .invalid)
        default:
            let error = SystemError(call: "CEC_ADAP_G_LOG_ADDRS", errno: errno(next()))
            count(.addresses(.failure(error)))
            lastAddresses = nil
            throw error
        }
        count(.addresses(.success(addresses)))
        lastAddresses = addresses
        return addresses
    }

    func transmit(_ message: CECMessage, awaiting reply: CECOpcode?, timeoutMilliseconds: UInt32) throws(SystemError) -> CECTransmitResult {
        let t = next()
        clock += Self.frameTime
        if t >= 0xF0 {
            let error = SystemError(call: "CEC_TRANSMIT", errno: errno(next()))
            sent.append(Sent(message: message, awaited: reply, addresses: lastAddresses, result: nil))
            count(.transmit(sent.count - 1, error))
            throw error
        }
        let tx = next(), rx = next()
        let length = Int(next() % 17)
        var frame: [UInt8] = []
        for _ in 0..<length { frame.append(next()) }
        let result = CECTransmitResult(sent: .init(rawValue: tx), received: .init(rawValue: rx), reply: CECMessage(bytes: frame))
        if reply != nil {
            let share = result.answer == .none ? 1 : Double(t & 0xF) / 15
            clock += Double(timeoutMilliseconds) / 1000 * share
        }
        sent.append(Sent(message: message, awaited: reply, addresses: lastAddresses, result: result))
        count(.transmit(sent.count - 1, nil))
        return result
    }

    func now() -> Double { clock }

    func pause(_ seconds: Double) {
        count(.pause(seconds))
        guard seconds.isFinite, seconds > 0 else { fatalError("pause(\(seconds))") }
        clock += seconds
    }
}
