import TripsPostgres

extension PostgresStoreError {
    /// What the store does when a transaction fails with this error.
    package enum Handling: Equatable {
        /// It lost a race (a serialization failure, a deadlock, a lock it waited too long
        /// for): run it again from `BEGIN`, a few times, before answering 503.
        case retry
        /// The server ended the session before the transaction committed (57P01, 57P02: a
        /// restart or a crash of another backend), most often on an idle connection kept
        /// from before a restart: run it once more on a new connection, which fails to
        /// connect (503) while the database is still down.
        case reconnect
        /// The database cannot serve now (gone, restarting, read-only, too slow, out of
        /// connections): 503 with `Retry-After`; the pool reconnects.
        case unavailable
        /// A value of one change could not be sent (`PostgresEncodingError`, such as U+0000 in
        /// a string): nothing of it reached the server, and retrying cannot mend it. The
        /// writes of the batch are made one transaction each, so that only that change is
        /// refused (422) and the store stays ready.
        case refuseChange
        /// Something the store did not expect (a missing table, a refused password, a
        /// constraint it should never break, damaged rows): 500 and a log line. Retrying the
        /// same request cannot help.
        case fault
    }

    /// From the SQLSTATE when the server refused a statement (`SQLState` says why each).
    package var handling: Handling {
        switch self {
        case .connections, .commitOutcomeUnknown: return .unavailable
        case .migration, .damaged: return .fault
        case .database(let error):
            if case .encoding = error { return .refuseChange }
            guard case .server(let refusal) = error else { return .unavailable }  // socket, timeout, closed
            let state = refusal.sqlState
            switch state {
            case .serializationFailure, .deadlockDetected, .lockNotAvailable: return .retry
            case .adminShutdown, .crashShutdown: return .reconnect
            case .queryCanceled, .readOnlySQLTransaction: return .unavailable
            default:
                // 08 connection exception, 53 insufficient resources, 57 operator intervention.
                return ["08", "53", "57"].contains(state.errorClass) ? .unavailable : .fault
            }
        }
    }
}
