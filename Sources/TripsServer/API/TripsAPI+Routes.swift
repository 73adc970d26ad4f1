import TripsDomain
import TripsFormats
import TripsHTTP

extension TripsAPI {
    /// Every route the API answers: the one place a path, a method or a body type is added.
    /// openapi.yaml lists the same operations and body types (`OpenAPIDriftTests` checks).
    /// `HEAD` goes with every `GET`, `OPTIONS` with every path. A template's first route
    /// fixes its place: its metric label, and where `/metrics` lists it.
    static let routes = RouteTable(
        [
            Route(.get, "/trips", .showsTheList) { (api, request) throws(APIError) in
                .now(try api.listTrips(request))
            },
            Route(.post, "/trips", accepts: NewTrips.importMediaTypes) { (api, request) throws(APIError) in
                try api.createTrips(request)
            },
            Route(.patch, "/trips", accepts: ReorderDifference.importMediaTypes) { (api, request) throws(APIError) in
                try api.reorder(request)
            },
            Route(.delete, "/trips") { (api, request) throws(APIError) in
                try api.deleteTrips(request)
            },
            Route(.get, "/trips/changes") { (api, request) throws(APIError) in
                try api.changes(request)
            },
            Route(.post, "/trips/reorder", accepts: ReorderDifference.importMediaTypes) { (api, request) throws(APIError) in
                try api.reorder(request)
            },
            Route(.post, "/trips/sort", accepts: TripSortKey.importMediaTypes) { (api, request) throws(APIError) in
                try api.sortTrips(request)
            },
            Route(.get, "/trips/{id}", .showsTheList) { (api, id, request) throws(APIError) in
                .now(try api.showTrip(id, request))
            },
            Route(.put, "/trips/{id}", accepts: tripReplacementTypes) { (api, id, request) throws(APIError) in
                try api.replaceTrip(id, request)
            },
            Route(.patch, "/trips/{id}", accepts: tripPatchTypes) { (api, id, request) throws(APIError) in
                try api.patchTrip(id, request)
            },
            Route(.delete, "/trips/{id}") { (api, id, request) throws(APIError) in
                try api.deleteTrip(id, request)
            },
            Route(.get, "/trips/{id}/photo") { (api, id, request) throws(APIError) in
                .now(try api.showPhoto(id, request))
            },
            Route(.put, "/trips/{id}/photo", accepts: photoTypes, .takesAPhoto) { (api, id, request) throws(APIError) in
                try api.putPhoto(id, request)
            },
            Route(.delete, "/trips/{id}/photo") { (api, id, request) throws(APIError) in
                try api.deletePhoto(id, request)
            },
            Route(.get, "/photos/{photo}") { (api: TripsAPI, name: PhotoName, request: HTTPRequest) throws(APIError) in
                .now(try api.servePhoto(name, request))
            },
            Route(.get, "/favorites", .showsTheList) { (api, request) throws(APIError) in
                .now(try api.listFavorites(request))
            },
            Route(.patch, "/favorites", accepts: FavoriteDrop.importMediaTypes) { (api, request) throws(APIError) in
                try api.dropFavorites(request)
            },
            Route(.post, "/favorites", accepts: FavoriteDrop.importMediaTypes) { (api, request) throws(APIError) in
                try api.dropFavorites(request)
            },
            Route(.put, "/favorites/{id}") { (api, id, request) throws(APIError) in
                try api.setFavorite(id, true, request)
            },
            Route(.delete, "/favorites/{id}") { (api, id, request) throws(APIError) in
                try api.setFavorite(id, false, request)
            },
            Route(.get, "/health", .needsNoCredentials) { (api, request) throws(APIError) in
                .now(try api.health(request))
            },
            Route(.get, "/livez", .needsNoCredentials) { (api, request) throws(APIError) in
                .now(try api.livez(request))
            },
            Route(.get, "/readyz", .needsNoCredentials) { (api, request) throws(APIError) in
                .now(try api.readyz(request))
            },
            Route(.get, "/metrics") { (api, request) throws(APIError) in
                try api.metrics(request)
            },
            Route(.get, "/openapi.yaml") { (api, request) throws(APIError) in
                .now(try api.openAPI(request))
            },
            Route(.get, "/") { (api, request) throws(APIError) in
                .now(api.root(request))
            },
            Route(.get, PageAsset.wordsPath, .needsNoCredentials) { (api, request) throws(APIError) in
                .now(try api.serveWords(request))
            },
        ]
            + PageAsset.files.map { asset in
                Route(.get, asset.path, .needsNoCredentials) { (api, request) throws(APIError) in
                    .now(try api.serveAsset(asset, request))
                }
            }
            + [
                Route(.get, "/session", .needsNoCredentials) { (api, request) throws(APIError) in
                    .now(try api.showSession(request))
                },
                Route(.post, "/session", accepts: [.formURLEncoded], [.needsNoCredentials, .takesASessionForm]) {
                    (api, request) throws(APIError) in
                    .now(try api.signIn(request))
                },
                Route(.post, "/session/end", accepts: [.formURLEncoded], [.needsNoCredentials, .takesASessionForm]) {
                    (api, request) throws(APIError) in
                    .now(try api.signOut(request))
                },
                Route(.get, "/problems/{kind}", .needsNoCredentials) {
                    (api: TripsAPI, type: ProblemType, request: HTTPRequest) throws(APIError) in
                    .now(try api.describeProblem(type, request))
                },
            ])
}
