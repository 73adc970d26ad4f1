// The files of include/TripsResources.h, read in by the compiler (#embed). Each #embed path
// is relative to this file, and the compiler names the files among this object's
// dependencies, so a changed file is compiled in again.
#include "TripsResources.h"

#include <string.h>

// #embed is C23; the toolchain's clang has it in every language mode, with this warning.
#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char openapi_yaml[] = {
#embed "../TripsServer/Resources/openapi.yaml"
};
static const unsigned char page_css[] = {
#embed "../TripsServer/Resources/page/trips.css"
};
static const unsigned char page_js[] = {
#embed "../TripsServer/Resources/page/trips.js"
};
static const unsigned char page_svg[] = {
#embed "../TripsServer/Resources/page/trips.svg"
};

static const unsigned char words_en[] = {
#embed "../TripsServer/Resources/page/words/en.json"
};
static const unsigned char words_fr[] = {
#embed "../TripsServer/Resources/page/words/fr.json"
};
static const unsigned char words_de[] = {
#embed "../TripsServer/Resources/page/words/de.json"
};
static const unsigned char words_es[] = {
#embed "../TripsServer/Resources/page/words/es.json"
};
static const unsigned char words_pt_br[] = {
#embed "../TripsServer/Resources/page/words/pt-BR.json"
};
static const unsigned char words_ja[] = {
#embed "../TripsServer/Resources/page/words/ja.json"
};
static const unsigned char words_pl[] = {
#embed "../TripsServer/Resources/page/words/pl.json"
};

static const unsigned char photo_1[] = {
#embed "../TripsStore/Resources/SamplePhotos/trip-1.jpg"
};
static const unsigned char photo_2[] = {
#embed "../TripsStore/Resources/SamplePhotos/trip-2.jpg"
};
static const unsigned char photo_3[] = {
#embed "../TripsStore/Resources/SamplePhotos/trip-3.jpg"
};
static const unsigned char photo_4[] = {
#embed "../TripsStore/Resources/SamplePhotos/trip-4.jpg"
};
static const unsigned char photo_5[] = {
#embed "../TripsStore/Resources/SamplePhotos/trip-5.jpg"
};
static const unsigned char photo_6[] = {
#embed "../TripsStore/Resources/SamplePhotos/trip-6.jpg"
};

#define FILE_OF(array) {.start = (array), .count = sizeof(array)}
// What a name or id without a file answers: no bytes, at a valid address.
static const TripsResource none = {.start = page_svg, .count = 0};

TripsResource trips_resource_openapi_yaml(void) { return (TripsResource)FILE_OF(openapi_yaml); }
TripsResource trips_resource_page_css(void) { return (TripsResource)FILE_OF(page_css); }
TripsResource trips_resource_page_js(void) { return (TripsResource)FILE_OF(page_js); }
TripsResource trips_resource_page_svg(void) { return (TripsResource)FILE_OF(page_svg); }

TripsResource trips_resource_page_words(const char *tag) {
    static const struct {
        const char *tag;
        TripsResource file;
    } catalogs[] = {
        {"en", FILE_OF(words_en)}, {"fr", FILE_OF(words_fr)},       {"de", FILE_OF(words_de)}, {"es", FILE_OF(words_es)},
        {"pt-BR", FILE_OF(words_pt_br)}, {"ja", FILE_OF(words_ja)}, {"pl", FILE_OF(words_pl)},
    };
    for (size_t index = 0; index < sizeof catalogs / sizeof catalogs[0]; index++) {
        if (strcmp(catalogs[index].tag, tag) == 0) return catalogs[index].file;
    }
    return none;
}

TripsResource trips_resource_sample_photo(int id) {
    static const TripsResource photos[] = {
        FILE_OF(photo_1), FILE_OF(photo_2), FILE_OF(photo_3), FILE_OF(photo_4), FILE_OF(photo_5), FILE_OF(photo_6),
    };
    if (id < 1 || id > (int)(sizeof photos / sizeof photos[0])) return none;
    return photos[id - 1];
}
