/// A value the service answered with, and the validators that came with it: the `ETag` to
/// send as `ifMatch` with the next change, and the list's revision (`Trips-Revision`) to
/// follow the changes from.
public struct Versioned<Value: Sendable>: Sendable {
    public var value: Value
    /// The representation's strong entity tag, quotes included (`"trip-2-v7-json"`).
    public var etag: String?
    /// The list's revision the answer shows (for a trip: the revision it last changed at).
    public var revision: UInt64?

    public init(value: Value, etag: String?, revision: UInt64?) {
        self.value = value
        self.etag = etag
        self.revision = revision
    }
}

extension Versioned: Equatable where Value: Equatable {}
