import ChakraConfig
import ChakraSessions
import Testing

/// [sessions] is read by ChakraConfig, which does not depend on this
/// module: its defaults and ranges must agree with what the log does.
@Suite("[sessions] and the session log agree")
struct SessionConfigAgreementTests {
    @Test("the defaults are the log's defaults")
    func defaults() {
        let configured = ChakraConfig().sessions
        #expect(SessionRetention(retentionDays: configured.retentionDays, maxBytes: configured.maxSize) == SessionRetention())
    }

    @Test("every configurable bound is taken as it is, and a file that large can be opened")
    func ranges() {
        let days = ChakraConfig.Sessions.retentionDaysRange, sizes = ChakraConfig.Sessions.maxSizeRange
        for (day, size) in [(days.lowerBound, sizes.lowerBound), (days.upperBound, sizes.upperBound)] {
            let retention = SessionRetention(retentionDays: day, maxBytes: size)
            #expect(retention.retentionDays == day && retention.maxBytes == size)
        }
        // Appends stop at twice the bound (while compaction fails).
        #expect(2 * sizes.upperBound <= SessionLog.largestFile)
    }
}
