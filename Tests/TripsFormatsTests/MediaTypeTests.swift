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

    /// The `Content-Type` written for each type, made with it: text says UTF-8, in lowercase.
    @Test func theContentTypeValueSaysUTF8ForText() {
        #expect(MediaType.json.contentTypeValue == "application/json")
        #expect(MediaType.problemJSON.contentTypeValue == "application/problem+json")
        #expect(MediaType(type: "Text", subtype: "HTML").contentTypeValue == "text/html; charset=utf-8")
        #expect(MediaType.problemJSON.suffixBase?.contentTypeValue == "application/json")
        #expect(MediaType(type: "image", subtype: "png").contentTypeValue == "image/png")
    }
}
