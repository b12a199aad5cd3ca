import ChakraSystem
import Glibc

/// What the power sequence needs of a CEC adapter: `CECAdapter` on a real
/// one, a scripted bus in the unit tests (with a clock of its own, so
/// the seconds a TV takes to settle cost the tests nothing).
public protocol CECBus: AnyObject {
    /// The adapter's logical and physical address as they are now: a TV
    /// that drops its hotplug line takes them away, and gives them back.
    func addresses() throws(SystemError) -> CECAddresses
    /// Sends `message` and waits until it is acknowledged or not, then,
    /// with `reply`, for that answer (or a Feature Abort) for up to
    /// `timeoutMilliseconds`.
    func transmit(_ message: CECMessage, awaiting reply: CECOpcode?, timeoutMilliseconds: UInt32) throws(SystemError) -> CECTransmitResult
    func now() -> Double
    func pause(_ seconds: Double)
}

public struct CECAddresses: Sendable, Equatable {
    /// nil while unconfigured (no physical address, or no free address).
    public var logical: UInt8?
    public var physical: CECPhysicalAddress

    public init(logical: UInt8?, physical: CECPhysicalAddress) {
        (self.logical, self.physical) = (logical, physical)
    }
}

/// The TV to standby or out of it, and the read-back that says whether it
/// went: off is Standby; on is Image View On, then Active Source so the
/// TV shows our input. Then Give Device Power Status until the TV reports
/// the state asked for, for up to `settleTime` (TVs report "in
/// transition", or still the old state, for a few seconds). Blocking, for
/// seconds at worst: it runs on CECController's thread. Public for the
/// fuzz target (tests/fuzz/targets/fuzz-cec), which plays the bus.
public struct CECPowerSequence {
    public let bus: any CECBus
    public var settleTime = 5.0
    public var retryPause = 0.5
    /// The CEC specification gives a follower 1 s to answer.
    public var replyTimeout: UInt32 = 1000

    public init(bus: any CECBus) { self.bus = bus }

    public static let part = "cec"
    public static let hotplugDropped = "Standby acknowledged; then the TV dropped its hotplug line (as many do in standby) and took our CEC address with it: it cannot be asked its power status"
    static let noAddress = "no CEC logical address: the adapter has no physical address (the HDMI cable out, or the TV off with its hotplug line low)"

    public func run(on: Bool) -> DisplayPowerReport {
        on ? wake() : standby()
    }

    private func standby() -> DisplayPowerReport {
        let check: DisplayPowerCheck
        do throws(SystemError) {
            if let me = try bus.addresses().logical {
                let sent = try bus.transmit(.standby(from: me), awaiting: nil, timeoutMilliseconds: 0)
                if let failure = sent.sendFailure {
                    check = .failed(Self.refusal(failure, of: .standby))
                } else {
                    check = readBack(wanted: .standby, after: .standby)
                }
            } else {
                check = .failed(Self.noAddress)
            }
        } catch {
            check = .failed(Self.describe(error))
        }
        return DisplayPowerReport(part: Self.part, on: false, method: "CEC Standby", check: check)
    }

    private func wake() -> DisplayPowerReport {
        var check: DisplayPowerCheck
        var announced: Bool?
        do throws(SystemError) {
            // With no logical address, as Unregistered: the one case the
            // kernel lets through, so that a TV in standby that dropped
            // the hotplug line can still be woken.
            let me = try bus.addresses().logical ?? CECAddress.unregistered
            let sent = try bus.transmit(.imageViewOn(from: me), awaiting: nil, timeoutMilliseconds: 0)
            if let failure = sent.sendFailure {
                check = .failed(Self.refusal(failure, of: .imageViewOn))
            } else {
                // Active Source needs our physical address, which a
                // waking TV may only now hand out: tried again before
                // each question until sent.
                announced = try announce()
                check = readBack(wanted: .on, after: .imageViewOn) { () throws(SystemError) in
                    if announced != true { announced = try announce() }
                }
            }
        } catch {
            check = .failed(Self.describe(error))
        }
        if announced == false, case .confirmed(let detail) = check {
            check = .confirmed(detail + "; Active Source not sent (no physical address)")
        }
        return DisplayPowerReport(part: Self.part, on: true, method: "CEC Image View On", check: check)
    }

    /// Broadcasts Active Source if the adapter has its addresses. A
    /// broadcast cannot be refused by an absent TV, so only the kernel's
    /// errors count.
    private func announce() throws(SystemError) -> Bool {
        let addresses = try bus.addresses()
        guard let me = addresses.logical, addresses.physical.isValid else { return false }
        _ = try bus.transmit(.activeSource(from: me, physicalAddress: addresses.physical), awaiting: nil, timeoutMilliseconds: 0)
        return true
    }

    /// Asks the TV its power state until it is `wanted` or the settle time
    /// is over. `beforeAsking` runs first each round.
    private func readBack(wanted: CECPowerStatus, after step: CECOpcode,
                          beforeAsking: () throws(SystemError) -> Void = {}) -> DisplayPowerCheck {
        let deadline = bus.now() + settleTime
        var last = DisplayPowerCheck.failed("the TV did not answer Give Device Power Status")
        while true {
            do throws(SystemError) {
                try beforeAsking()
                guard let me = try bus.addresses().logical else {
                    // Many TVs drop the hotplug line in standby, and the
                    // source's address goes with it: nobody left to ask,
                    // but a sign the TV did go.
                    if wanted == .standby { return .unchecked(Self.hotplugDropped) }
                    throw SystemError(call: "CEC_ADAP_G_LOG_ADDRS", errno: ENONET)
                }
                let result = try bus.transmit(.giveDevicePowerStatus(from: me), awaiting: .reportPowerStatus,
                                              timeoutMilliseconds: replyTimeout)
                if let failure = result.sendFailure {
                    last = .failed(Self.refusal(failure, of: .giveDevicePowerStatus))
                } else {
                    switch result.answer {
                    case .reply where result.reply?.initiator != CECAddress.tv:
                        // The kernel takes as the reply only a frame from
                        // the question's destination; from anyone else
                        // (a bus that does not check, a soundbar) it is
                        // not the TV's word.
                        let from = result.reply.map { "device \($0.initiator), not the TV (\($0))" } ?? "?"
                        last = .failed("Give Device Power Status answered by \(from)")
                    case .reply(.powerStatus(let status)) where status == wanted:
                        return .confirmed("TV reports \(status)")
                    case .reply(.powerStatus(let status)):
                        last = .failed("TV reports \(status) \(Self.seconds(settleTime)) s after \(step.name)")
                    case .reply(.featureAbort(let opcode, let reason)) where opcode == CECOpcode.giveDevicePowerStatus.rawValue:
                        // It heard us and cannot tell: nothing more to learn.
                        return .unchecked("\(step.name) acknowledged; the TV refuses Give Device Power Status (\(reason.map { "\($0)" } ?? "no reason"))")
                    case .reply(.featureAbort(let opcode, _)):
                        // A refusal of something else (a late one of the
                        // Standby just sent): no answer to this question.
                        let refused = CECOpcode(rawValue: opcode)?.name ?? "opcode 0x\(String(opcode, radix: 16))"
                        last = .failed("the TV answered Give Device Power Status with a Feature Abort of \(refused)")
                    case .reply(.other(let message)):
                        last = .failed("the TV answered Give Device Power Status with \(message)")
                    case .none:
                        last = .failed("the TV did not answer Give Device Power Status")
                    case .aborted:
                        last = .failed("Give Device Power Status aborted (HDMI disconnected or the adapter unconfigured)")
                    }
                }
            } catch {
                last = .failed(Self.describe(error))
            }
            if bus.now() + retryPause >= deadline { return last }
            bus.pause(retryPause)
        }
    }

    /// "the TV did not acknowledge Standby"; other failures with their cause.
    static func refusal(_ failure: String, of opcode: CECOpcode) -> String {
        failure == "not acknowledged" ? "the TV did not acknowledge \(opcode.name)" : "\(opcode.name): \(failure)"
    }

    /// ENONET is the common case and means the cable or the TV, not us.
    static func describe(_ error: SystemError) -> String {
        error.errno == ENONET ? noAddress : "\(error)"
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

extension CECOpcode {
    /// The specification's name: "Give Device Power Status".
    public var name: String {
        switch self {
        case .featureAbort: "Feature Abort"
        case .imageViewOn: "Image View On"
        case .standby: "Standby"
        case .activeSource: "Active Source"
        case .giveDevicePowerStatus: "Give Device Power Status"
        case .reportPowerStatus: "Report Power Status"
        }
    }
}
