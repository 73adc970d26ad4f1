/// A NOTIFY delivered to a session that LISTENs on its channel.
package struct PostgresNotification: Sendable, Hashable {
    /// The process ID of the session that sent the NOTIFY.
    package let processID: Int32
    package let channel: String
    package let payload: String
}
