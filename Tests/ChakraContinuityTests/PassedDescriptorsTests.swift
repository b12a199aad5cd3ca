import ChakraSystem
import Glibc
import Testing

private func read(_ environment: [String: String], pid: Int32 = 4242) -> Result<PassedDescriptors, PassedDescriptorsError> {
    do throws(PassedDescriptorsError) {
        return .success(try PassedDescriptors(environment: environment, processID: pid))
    } catch {
        return .failure(error)
    }
}

private func failure(_ environment: [String: String]) -> PassedDescriptorsError? {
    if case .failure(let error) = read(environment) { return error }
    return nil
}

@Suite("Descriptors passed by systemd ($LISTEN_*)")
struct PassedDescriptorsTests {
    @Test func namedDescriptorsFromThree() throws {
        var passed = try PassedDescriptors(environment: ["LISTEN_PID": "4242", "LISTEN_FDS": "4", "LISTEN_FDNAMES": "drm:control:state:state"],
                                           processID: 4242)
        #expect(passed.entries.map(\.fd) == [3, 4, 5, 6])
        #expect(passed.names == ["drm", "control", "state"])
        #expect(passed.descriptors(named: "state") == [5, 6])
        #expect(passed.descriptors(named: "fb") == [])
        #expect(passed.meantForProcess == nil)
        #expect(passed.take("drm") == [3])
        #expect(passed.take("drm") == [])
        #expect(passed.entries.map(\.name) == ["control", "state", "state"])
    }

    @Test func nothingPassed() throws {
        #expect(read([:]) == .success(.none))
        #expect(read(["PATH": "/usr/bin"]) == .success(.none))
        // sd_listen_fds reads nothing without both.
        #expect(read(["LISTEN_FDS": "2"]) == .success(.none))
        #expect(read(["LISTEN_PID": "4242"]) == .success(.none))
        #expect(read(["LISTEN_PID": "4242", "LISTEN_FDS": "0"]) == .success(.none))
        #expect(read(["LISTEN_PID": "4242", "LISTEN_FDS": "0", "LISTEN_FDNAMES": ""]) == .success(.none))
    }

    @Test func meantForAnotherProcess() throws {
        let passed = try PassedDescriptors(environment: ["LISTEN_PID": "17", "LISTEN_FDS": "3", "LISTEN_FDNAMES": "a:b:c"], processID: 4242)
        #expect(passed.isEmpty)
        #expect(passed.meantForProcess == 17)
        // Even a count that is garbage is not ours to judge.
        #expect((try? PassedDescriptors(environment: ["LISTEN_PID": "17", "LISTEN_FDS": "lots"], processID: 4242))?.meantForProcess == 17)
    }

    @Test func withoutNamesEachIsUnknown() throws {
        let passed = try PassedDescriptors(environment: ["LISTEN_PID": "4242", "LISTEN_FDS": "2"], processID: 4242)
        #expect(passed.entries == [.init(name: "unknown", fd: 3), .init(name: "unknown", fd: 4)])
    }

    @Test func countsThatDoNotMatchTheNames() {
        let fewer = failure(["LISTEN_PID": "4242", "LISTEN_FDS": "3", "LISTEN_FDNAMES": "drm:state"])
        #expect(fewer?.problem == .namesDoNotMatch(count: 3, names: 2))
        #expect(fewer?.owned == 3)
        #expect(fewer?.description == "systemd's passed descriptors not used: LISTEN_FDS says 3 descriptors but LISTEN_FDNAMES names 2; descriptors 3 to 5 to be closed")
        #expect(failure(["LISTEN_PID": "4242", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "a:b"])?.problem == .namesDoNotMatch(count: 1, names: 2))
        #expect(failure(["LISTEN_PID": "4242", "LISTEN_FDS": "1", "LISTEN_FDNAMES": ""])?.problem == .namesDoNotMatch(count: 1, names: 0))
        #expect(failure(["LISTEN_PID": "4242", "LISTEN_FDS": "0", "LISTEN_FDNAMES": "state"])?.problem == .namesDoNotMatch(count: 0, names: 1))
        // An empty name between colons is a name (systemd allows it): two here.
        #expect(read(["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": ":state"]).map(\.entries)
            == .success([.init(name: "", fd: 3), .init(name: "state", fd: 4)]))
    }

    @Test func garbage() {
        for pid in ["", "-1", "0", "+4242", " 4242", "4242 ", "42a", "99999999999", "4294967296", "٤٢"] {
            #expect(failure(["LISTEN_PID": pid, "LISTEN_FDS": "1"])?.problem == .badPID(pid), "LISTEN_PID=\(pid)")
            #expect(failure(["LISTEN_PID": pid, "LISTEN_FDS": "1"])?.owned == 0)
        }
        for count in ["", "-1", "one", "1.0", "0x3", "1025", "18446744073709551616", " 2"] {
            #expect(failure(["LISTEN_PID": "4242", "LISTEN_FDS": count])?.problem == .badCount(count), "LISTEN_FDS=\(count)")
        }
        #expect(read(["LISTEN_PID": "4242", "LISTEN_FDS": "1024"]).map(\.entries.count) == .success(1024))
        let control = failure(["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "drm:st\u{1}ate"])
        #expect(control?.problem == .badName(index: 1, DescriptorNameError(name: "st\u{1}ate", problem: .notPrintableASCII(at: 2))))
        #expect(control?.owned == 2)
        let long = String(repeating: "x", count: 256)
        #expect(failure(["LISTEN_PID": "4242", "LISTEN_FDS": "1", "LISTEN_FDNAMES": long])?.problem
            == .badName(index: 0, DescriptorNameError(name: long, problem: .tooLong(bytes: 256))))
        #expect(failure(["LISTEN_PID": "4242", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "état"])?.problem
            == .badName(index: 0, DescriptorNameError(name: "état", problem: .notPrintableASCII(at: 0))))
    }

    /// `adopt` on this very process: variables for another process touch
    /// no descriptor, and are cleared all the same.
    @Test func adoptClearsTheVariables() throws {
        setenv("LISTEN_PID", "1", 1)
        setenv("LISTEN_FDS", "2", 1)
        setenv("LISTEN_FDNAMES", "a:b", 1)
        let passed = try PassedDescriptors.adopt(environment: ["LISTEN_PID": "1", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "a:b"])
        #expect(passed.isEmpty)
        #expect(passed.meantForProcess == 1)
        for variable in PassedDescriptors.variables { #expect(getenv(variable) == nil) }
    }

    @Test func namesFollowSystemdsRule() throws {
        #expect(try DescriptorName("state").text == "state")
        #expect(try DescriptorName("with space, and ~!").text == "with space, and ~!")
        #expect(try DescriptorName(String(repeating: "n", count: 255)).text.count == 255)
        func problem(_ text: String) -> DescriptorNameError.Problem? {
            do throws(DescriptorNameError) {
                _ = try DescriptorName(text)
                return nil
            } catch {
                return error.problem
            }
        }
        #expect(problem("") == .empty)
        #expect(problem(String(repeating: "n", count: 256)) == .tooLong(bytes: 256))
        #expect(problem("drm:0") == .colon(at: 3))
        #expect(problem("line\nbreak") == .notPrintableASCII(at: 4))
        #expect(problem("tab\t") == .notPrintableASCII(at: 3))
        #expect(problem("del\u{7f}") == .notPrintableASCII(at: 3))
        #expect(problem("ü") == .notPrintableASCII(at: 0))
        let error = DescriptorNameError(name: "a:b", problem: .colon(at: 1))
        #expect(error.description == "invalid descriptor name 'a:b': it has a ':' (byte 1), which separates names in $LISTEN_FDNAMES")
        #expect(DescriptorNameError(name: "x\ny", problem: .notPrintableASCII(at: 1)).description
            == "invalid descriptor name 'x\\u{a}y': byte 1 is a control character or not ASCII")
    }
}
