import Testing
@testable import TripsHTTP
@testable import TripsPlatform
@testable import TripsPostgres
@testable import TripsServer
@testable import TripsStore

/// What the store does with each way a transaction can fail: retry it, answer 503, or
/// answer 500.
@Suite struct PostgresStoreErrorHandlingTests {
    private static func refused(_ code: String) -> PostgresStoreError {
        let diagnostic = try! PostgresDiagnostic(fields: [
            .localizedSeverity: "ERROR", .severity: "ERROR", .sqlState: code, .message: "refused",
        ])
        return .database(.server(PostgresServerError(diagnostic: diagnostic)))
    }

    @Test(arguments: [
        // (SQLSTATE, handling)
        ("40001", PostgresStoreError.Handling.retry),  // serialization failure
        ("40P01", .retry),  // deadlock
        ("55P03", .retry),  // lock_timeout
        ("57014", .unavailable),  // statement timeout, cancel
        ("25006", .unavailable),  // read-only standby
        ("57P01", .reconnect),  // admin shutdown: the session ended, its transaction uncommitted
        ("57P02", .reconnect),  // crash shutdown: the same
        ("57P03", .unavailable),  // starting up
        ("53300", .unavailable),  // too many connections
        ("08006", .unavailable),  // connection failure
        ("23505", .fault),  // unique violation: the store planned wrong
        ("42P01", .fault),  // a missing table
        ("42601", .fault),  // a syntax error
        ("22P02", .fault),  // invalid text for a type
    ])
    func aRefusalIsHandledByItsSQLState(code: String, handling: PostgresStoreError.Handling) {
        #expect(Self.refused(code).handling == handling)
    }

    @Test func connectionsThatFailOrCannotBeHadAreUnavailableAndDamageIsAFault() {
        #expect(PostgresStoreError.database(.closedByServer).handling == .unavailable)
        #expect(PostgresStoreError.database(.socket(.timedOut)).handling == .unavailable)
        #expect(PostgresStoreError.connections(.unreachable(.closedByServer)).handling == .unavailable)
        #expect(PostgresStoreError.connections(.busy(capacity: 3)).handling == .unavailable)
        #expect(PostgresStoreError.damaged("change 4 follows 2").handling == .fault)
    }

    @Test func aValueThatCannotBeSentRefusesItsChangeAlone() {
        #expect(PostgresStoreError.database(.encoding(.nulCharacter(in: .parameter(3)))).handling == .refuseChange)
    }

    @Test func aDatabaseFaultIsA500WithoutRetryAfterAndUnavailabilityA503WithIt() {
        let fault = APIError(.storage(.databaseFault(reason: "42P01")), pathID: nil)
        #expect(fault.status == .internalServerError)
        #expect(fault.headerFields[.retryAfter] == nil)
        let unavailable = APIError(.storage(.database(reason: "gone")), pathID: nil)
        #expect(unavailable.status == .serviceUnavailable)
        #expect(unavailable.headerFields[.retryAfter] == "1")
    }
}
