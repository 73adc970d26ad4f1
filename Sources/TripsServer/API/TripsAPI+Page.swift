import TripsDomain
import TripsFormats
import TripsHTTP

/// The browser page's endpoints and answers: `GET /` sends a browser to the list, the
/// assets come from the binary, and every page carries the headers that keep a trip's text
/// from ever running as code.
extension TripsAPI {
    /// What a page's answer carries besides its content: scripts and styles only from this
    /// server (no inline ones), never framed. Images may also be `blob:` URLs, which only a
    /// script of this page can make: the preview of a photo dropped from the desktop before
    /// it is sent. (Every answer says `X-Content-Type-Options: nosniff`: the connection
    /// writes it.)
    static let pageSecurityFields: HTTPFields = [
        .contentSecurityPolicy: "default-src 'self'; img-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        .referrerPolicy: "same-origin",
    ]

    /// 200 with a rendered page, its validator, language and the revision it shows.
    func representPage(_ html: [UInt8], etag: EntityTag, revision: UInt64, language: Language?) -> HTTPResponse {
        var fields = Self.pageSecurityFields
        fields[.tripsRevision] = String(revision)
        fields[.contentType] = MediaType.html.contentTypeValue
        Self.describeLanguage(language, in: &fields)
        fields[.etag] = etag.headerValue
        return HTTPResponse(status: .ok, headerFields: fields, body: html)
    }

    /// `Link` to the API's description (RFC 8631), which `/` and the list carry.
    static let serviceDescriptionLink = #"</openapi.yaml>; rel="service-desc""#

    /// `GET /`: 303 to the list, which a browser shows as the page.
    func root(_ request: HTTPRequest) -> HTTPResponse {
        HTTPResponse(status: .seeOther, headerFields: [.location: "/trips", .link: Self.serviceDescriptionLink])
    }

    /// `GET /assets/words.js?lang=TAG`: the page's words in one language, for the script.
    func serveWords(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let tags = request.queryItems.filter { $0.name == "lang" }.map(\.value)
        guard tags.count == 1, let language = Language.allCases.first(where: { $0.tag == tags[0] }) else {
            let known = Language.allCases.map(\.tag).joined(separator: ", ")
            throw APIError(.badRequest, "lang names one of the page's languages, once: \(known).")
        }
        return try serveAsset(.words(language), request)
    }

    /// `GET /assets/…`: the stylesheet or the script, 304 while the browser's copy is current;
    /// each answer made once per coding.
    func serveAsset(_ asset: PageAsset, _ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        _ = try choosePosition(for: request) { [asset.mediaType] }
        let fields: HTTPFields = [.cacheControl: "no-cache"]
        let compressible = ResponseCompression.isCompressible(asset.mediaType)
        if let notModified = try notModified(request, current: asset.etag, compressible: compressible, fields: fields) {
            return notModified
        }
        return cache.asset(asset, coding: ResponseCompression.coding(for: request)) {
            var fields = fields
            fields[.etag] = asset.etag.headerValue
            fields[.contentType] = asset.mediaType.contentTypeValue
            return HTTPResponse(status: .ok, headerFields: fields, body: asset.bytes)
        }
    }
}
