// libFuzzer target: bytes as the $LISTEN_PID, $LISTEN_FDS and
// $LISTEN_FDNAMES a process is started with (`PassedDescriptors`, the
// pure reading; no descriptor is touched). Built and run by
// tests/fuzz/run.sh.
//
// The input: a first byte whose low three bits say which variables are
// set, then their values separated by NUL bytes. The process id is 4242.
import ChakraSystem

private let ownPID: Int32 = 4242

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzListen(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let flags = bytes.first else { return 0 }
    let values = bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    var environment: [String: String] = [:]
    for (bit, variable) in PassedDescriptors.variables.enumerated() where flags & (1 << bit) != 0 {
        environment[variable] = bit < values.count ? values[bit] : ""
    }
    do throws(PassedDescriptorsError) {
        let passed = try PassedDescriptors(environment: environment, processID: ownPID)
        check(passed, environment)
    } catch {
        guard (0...PassedDescriptors.maxCount).contains(error.owned), !error.description.isEmpty else { fatalError("error: \(error)") }
    }
    return 0
}

/// What was read agrees with the variables: ours from descriptor 3 on,
/// as many as $LISTEN_FDS says, named as $LISTEN_FDNAMES says in order,
/// and every name taken exactly once.
private func check(_ passed: PassedDescriptors, _ environment: [String: String]) {
    if let other = passed.meantForProcess {
        guard passed.isEmpty, other != ownPID, Int(environment["LISTEN_PID"] ?? "") == Int(other) else { fatalError("another's descriptors kept") }
        return
    }
    guard passed.entries.enumerated().allSatisfy({ $1.fd == PassedDescriptors.firstDescriptor + Int32($0) }) else { fatalError("not from 3 in order") }
    if passed.isEmpty { return }
    guard Int(environment["LISTEN_PID"] ?? "") == Int(ownPID), Int(environment["LISTEN_FDS"] ?? "") == passed.entries.count else { fatalError("count") }
    if let names = environment["LISTEN_FDNAMES"] {
        guard passed.entries.map(\.name).joined(separator: ":") == names else { fatalError("names") }
    }
    var taking = passed
    var taken = 0
    for name in passed.names { taken += taking.take(name).count }
    guard taken == passed.entries.count, taking.isEmpty else { fatalError("take lost or kept descriptors") }
}
