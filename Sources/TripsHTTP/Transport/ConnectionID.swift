/// Identifies a connection on its loop: its descriptor and a serial number that is never reused,
/// so a late response for a closed connection is not delivered to a new one on the same descriptor.
package struct ConnectionID: Sendable, Hashable {
    var descriptor: Int32
    var serial: UInt64
}
