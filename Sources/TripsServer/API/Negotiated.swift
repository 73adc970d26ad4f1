import TripsDomain

/// The representation of `Value` that negotiation chose for a response.
///
/// It keeps its position in the declared order too, which is how the representation
/// cache files responses (an array slot per representation, not a dictionary lookup).
struct Negotiated<Value: Transferable>: Sendable {
    /// Where the representation stands in `Value.transferRepresentations`.
    let position: Int

    var representation: TransferRepresentation<Value> { Value.transferRepresentations[position] }
    var mediaType: MediaType { representation.mediaType }
}
