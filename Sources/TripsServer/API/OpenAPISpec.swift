import TripsDomain
import TripsFormats
import TripsPlatform
import TripsResources

/// The service's OpenAPI document, compiled in from the repository's `openapi.yaml`
/// (`Resources/openapi.yaml` links to it), so the binary serves exactly that file.
struct OpenAPISpec: Transferable {
    static let yaml = MediaType(type: "application", subtype: "yaml")

    static let transferRepresentations: [TransferRepresentation<OpenAPISpec>] = [
        TransferRepresentation(yaml) { _ in document }
    ]

    /// The file's bytes.
    static let document = trips_resource_openapi_yaml().bytes
}
