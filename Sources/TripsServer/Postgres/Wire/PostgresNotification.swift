/// A NOTIFY delivered to a session that LISTENs on its channel.
struct PostgresNotification: Sendable, Hashable {
    /// The process ID of the session that sent the NOTIFY.
    let processID: Int32
    let channel: String
    let payload: String
}
