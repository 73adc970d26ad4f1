// The files the server carries in its binary, so that nothing is looked up at run time: the
// API's description, the page's assets and words (Sources/TripsServer/Resources) and the
// sample trips' photos (Sources/TripsStore/Resources/SamplePhotos).
//
// Compiled in by TripsResources.c with C23's #embed, which reads a file straight into an
// initializer. SwiftPM's own `.embedInCode` writes each file as a Swift array literal of
// decimal numbers, which took a debug build over two minutes of one core (300 KB of files).
#ifndef TRIPS_RESOURCES_H
#define TRIPS_RESOURCES_H

#include <stddef.h>

/// A file's bytes, in read-only memory for the life of the process.
typedef struct {
    const unsigned char *_Nonnull start;
    size_t count;
} TripsResource;

/// Sources/TripsServer/Resources/openapi.yaml (a link to the repository's openapi.yaml).
TripsResource trips_resource_openapi_yaml(void);

/// Sources/TripsServer/Resources/page/trips.css, trips.js and trips.svg.
TripsResource trips_resource_page_css(void);
TripsResource trips_resource_page_js(void);
TripsResource trips_resource_page_svg(void);

/// Sources/TripsServer/Resources/page/words/<tag>.json, by the language's tag (en, fr, de,
/// es, pt-BR, ja, pl); no bytes for any other tag.
TripsResource trips_resource_page_words(const char *_Nonnull tag);

/// Sources/TripsStore/Resources/SamplePhotos/trip-<id>.jpg, for the sample trips' ids 1 to 6;
/// no bytes for any other id.
TripsResource trips_resource_sample_photo(int id);

#endif
