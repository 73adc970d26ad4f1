#!/usr/bin/env python3
"""Writes the image fixtures of Tests/TripsFormatsTests/Fixtures/ and the seed corpus of
Fuzz/Corpus/FuzzImages/: small JPEG, PNG and WebP files carrying the metadata the service
removes (Exif with a GPS position, XMP, comments, PNG text chunks), made here so that their
origin and license are plain (CC0 1.0, like the rest of the fixtures).

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install Pillow piexif
    /tmp/venv/bin/python scripts/lib/make-image-fixtures.py

Deterministic for one Pillow version (the committed files were made with Pillow 13.0.0 and
piexif 1.1.3); the tests read the committed files, so running this again is only needed to
change them.
"""

import io
from pathlib import Path

import piexif
from PIL import Image, ImageCms, ImageDraw, PngImagePlugin

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "Tests/TripsFormatsTests/Fixtures"
CORPUS = ROOT / "Fuzz/Corpus/FuzzImages"

XMP = (
    b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
    b'<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="47,22.2057N" '
    b'exif:GPSLongitude="8,32.5460E"/></rdf:RDF></x:xmpmeta>'
)


def picture(width, height, mode="RGB"):
    """A sky over a hill: smooth areas and one edge, so every encoder has something to do."""
    image = Image.new(mode, (width, height))
    draw = ImageDraw.Draw(image)
    for y in range(height):
        shade = 255 - y * 120 // height
        draw.line([(0, y), (width, y)], fill=(shade // 3, shade // 2, shade, 255)[: len(mode)])
    draw.ellipse([width // 3, height // 2, width * 2, height * 2], fill=(60, 130, 60, 255)[: len(mode)])
    draw.ellipse([width // 8, height // 8, width // 3, height // 3], fill=(250, 210, 80, 255)[: len(mode)])
    return image


def exif_with_gps(thumbnail=True):
    """Exif as a phone writes it: camera, time, a GPS position, and a thumbnail of its own."""
    gps = {
        piexif.GPSIFD.GPSVersionID: (2, 3, 0, 0),
        piexif.GPSIFD.GPSLatitudeRef: b"N",
        piexif.GPSIFD.GPSLatitude: ((47, 1), (22, 1), (1234, 100)),
        piexif.GPSIFD.GPSLongitudeRef: b"E",
        piexif.GPSIFD.GPSLongitude: ((8, 1), (32, 1), (3276, 100)),
        piexif.GPSIFD.GPSAltitude: (408, 1),
    }
    zeroth = {
        piexif.ImageIFD.Make: b"Trips",
        piexif.ImageIFD.Model: b"Fixture Phone",
        piexif.ImageIFD.Software: b"make-image-fixtures.py",
    }
    exif = {piexif.ExifIFD.DateTimeOriginal: b"2027:03:05 09:30:00"}
    data = {"0th": zeroth, "Exif": exif, "GPS": gps, "1st": {}, "thumbnail": None}
    if thumbnail:
        small = io.BytesIO()
        picture(16, 12).save(small, "JPEG", quality=50)
        data["1st"] = {piexif.ImageIFD.JPEGInterchangeFormat: 0, piexif.ImageIFD.JPEGInterchangeFormatLength: 0}
        data["thumbnail"] = small.getvalue()
    return piexif.dump(data)


def srgb_profile():
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


def png_text():
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "Trips fixture")
    info.add_text("Comment", "taken at 47.3701 N, 8.5424 E", zip=True)
    info.add_itxt("Description", "Zürich, by the lake", lang="de", tkey="Beschreibung")
    return info


def save(image, path, fmt, **options):
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, fmt, **options)
    print(f"{path.relative_to(ROOT)}: {path.stat().st_size} bytes")


def main():
    gps = exif_with_gps()
    save(
        picture(64, 48), FIXTURES / "phone-gps.jpg", "JPEG", quality=80, exif=gps, xmp=XMP,
        icc_profile=srgb_profile(), comment=b"Trips fixture", restart_marker_rows=1,
    )
    save(picture(40, 30), FIXTURES / "progressive-gps.jpg", "JPEG", quality=75, progressive=True, exif=gps, comment=b"Trips")
    save(picture(48, 32, "RGBA"), FIXTURES / "text-chunks.png", "PNG", pnginfo=png_text(), exif=gps)
    save(picture(33, 17), FIXTURES / "plain.png", "PNG")
    save(picture(64, 48), FIXTURES / "lossy-exif-xmp.webp", "WEBP", quality=70, exif=gps, xmp=XMP)
    save(picture(48, 32, "RGBA"), FIXTURES / "lossless-exif-icc.webp", "WEBP", lossless=True, exif=gps, icc_profile=srgb_profile())
    save(picture(33, 17), FIXTURES / "lossy.webp", "WEBP", quality=60)
    save(picture(33, 17), FIXTURES / "lossless.webp", "WEBP", lossless=True)

    small = exif_with_gps(thumbnail=False)
    save(picture(8, 8), CORPUS / "baseline.jpg", "JPEG", quality=50, exif=small, comment=b"c", restart_marker_rows=1)
    save(picture(8, 8), CORPUS / "progressive.jpg", "JPEG", quality=50, progressive=True, xmp=b"<x/>")
    save(picture(8, 8), CORPUS / "text.png", "PNG", pnginfo=png_text(), exif=small)
    save(picture(8, 8, "RGBA"), CORPUS / "alpha.png", "PNG")
    save(picture(8, 8), CORPUS / "lossy-exif-xmp.webp", "WEBP", quality=50, exif=small, xmp=b"<x/>")
    save(picture(8, 8, "RGBA"), CORPUS / "lossless-exif.webp", "WEBP", lossless=True, exif=small)
    save(picture(8, 8), CORPUS / "lossy.webp", "WEBP", quality=50)
    save(picture(8, 8), CORPUS / "lossless.webp", "WEBP", lossless=True)


if __name__ == "__main__":
    main()
