import Testing
import TripsFormats

@Suite struct MediaTypeTests {
    /// The spelling `RequestBody` takes without parsing: the description, byte for byte.
    @Test func onlyTheBareLowercaseSpellingIsExact() {
        #expect(MediaType.json.isSpelled(exactlyBy: "application/json"))
        #expect(MediaType.mergePatchJSON.isSpelled(exactlyBy: "application/merge-patch+json"))
        for other in [
            "Application/JSON", "application/json; charset=utf-8", "application/jso", "application/jsonx", "applicationXjson", "",
            "text/json",
        ] {
            #expect(!MediaType.json.isSpelled(exactlyBy: other), "\(other)")
        }
    }
}
