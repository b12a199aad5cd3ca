import Testing
@testable import ChakraControlServer

/// The idle rules on virtual time: who is closed when, and who makes room.
@Suite("Idle connections")
struct IdleConnectionsTests {
    typealias Activity = IdleConnections.Activity

    let connections = [
        Activity(id: 1, lastRequest: 10, subscribed: false, requestInFlight: false),
        Activity(id: 2, lastRequest: 5, subscribed: true, requestInFlight: false),    // a subscriber: never idle
        Activity(id: 3, lastRequest: 12, subscribed: false, requestInFlight: false),
        Activity(id: 4, lastRequest: 2, subscribed: false, requestInFlight: true),    // waiting for its answer
        Activity(id: 5, lastRequest: 10, subscribed: false, requestInFlight: false),  // as idle as 1, connected later
    ]

    @Test func expiryCountsFromTheLastCompleteRequest() {
        #expect(IdleConnections.expired(connections, now: 69.9, timeout: 60).isEmpty)
        #expect(IdleConnections.expired(connections, now: 70, timeout: 60) == [1, 5])
        #expect(IdleConnections.expired(connections, now: 1000, timeout: 60) == [1, 3, 5])
        #expect(IdleConnections.nextExpiry(connections, timeout: 60) == 70)
    }

    @Test func theLongestIdleMakesRoomAndTiesGoToTheFirstConnected() {
        #expect(IdleConnections.evictee(connections) == 1)
        #expect(IdleConnections.evictee(connections.filter { $0.id != 1 }) == 5)
        // Only subscribers and busy connections: no room, the new one is refused.
        #expect(IdleConnections.evictee(connections.filter { $0.id == 2 || $0.id == 4 }) == nil)
        #expect(IdleConnections.nextExpiry(connections.filter { $0.id == 2 || $0.id == 4 }, timeout: 60) == nil)
    }
}
