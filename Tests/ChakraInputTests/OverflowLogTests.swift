import Testing
@testable import ChakraInput

/// When an overflowing touchscreen is logged: the 1st, 10th, 100th... drop,
/// also when one read sees several.
@Suite("SYN_DROPPED log cadence")
struct OverflowLogTests {
    @Test func saidWhenTheCountPassesAPowerOfTen() {
        #expect(TouchInput.passesPowerOfTen(from: 0, to: 1))
        #expect(TouchInput.passesPowerOfTen(from: 0, to: 2))     // two drops in one read: said
        #expect(!TouchInput.passesPowerOfTen(from: 1, to: 2))
        #expect(!TouchInput.passesPowerOfTen(from: 2, to: 9))
        #expect(TouchInput.passesPowerOfTen(from: 9, to: 10))
        #expect(TouchInput.passesPowerOfTen(from: 8, to: 12))
        #expect(!TouchInput.passesPowerOfTen(from: 10, to: 99))
        #expect(TouchInput.passesPowerOfTen(from: 99, to: 100))
        #expect(!TouchInput.passesPowerOfTen(from: 3, to: 3))      // no new drop
    }
}
