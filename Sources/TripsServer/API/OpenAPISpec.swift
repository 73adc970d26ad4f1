import TripsDomain
import TripsFormats

/// The service's OpenAPI document, compiled in from the repository's `openapi.yaml`
/// (`Resources/openapi.yaml` links to it), so the binary serves exactly that file.
struct OpenAPISpec: Transferable {
    static let yaml = MediaType(type: "application", subtype: "yaml")

    static let transferRepresentations: [TransferRepresentation<OpenAPISpec>] = [
        TransferRepresentation(yaml) { _ in PackageResources.openapi_yaml }
    ]
}
