#!/usr/bin/env python3
"""Draws the sample trips' photos: one 480 x 320 picture per trip of
Sources/TripsDomain/TripList+Samples.swift, a sky, a light and a silhouette in the colours of
the place, written as baseline JPEGs (quality 70, no metadata) to
Sources/TripsStore/Resources/SamplePhotos/trip-<id>.jpg (the names SwiftPM turns into
`PackageResources.trip_<id>_jpg`, see Sources/TripsStore/SampleTrips.swift).

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install Pillow
    /tmp/venv/bin/python scripts/lib/make-sample-photos.py

Deterministic: no randomness but a seeded generator for the stars. The committed files were
made with Pillow 13.0.0; the pictures are the project's own, dedicated to the public domain
(CC0 1.0, see the README beside them).
"""

import random
from pathlib import Path

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "Sources/TripsStore/Resources/SamplePhotos"
WIDTH, HEIGHT = 480, 320
SCALE = 2  # drawn at twice the size, then scaled down, for smooth edges
W, H = WIDTH * SCALE, HEIGHT * SCALE


def mix(a, b, t):
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))


def sky(draw, top, bottom, horizon=H):
    for y in range(horizon):
        draw.line([(0, y), (W, y)], fill=mix(top, bottom, y / max(horizon - 1, 1)))


def disc(draw, x, y, r, colour):
    draw.ellipse([x - r, y - r, x + r, y + r], fill=colour)


def ridge(draw, points, colour):
    """A filled silhouette through `points` (x, y as fractions of the picture) down to the bottom."""
    outline = [(0, H)] + [(x * W, y * H) for x, y in points] + [(W, H)]
    draw.polygon(outline, fill=colour)


def snow(draw, points, colour=(240, 244, 250)):
    """A snowcap: the polygon through `points` (fractions of the picture) alone."""
    draw.polygon([(x * W, y * H) for x, y in points], fill=colour)


def water(draw, top, colour_top, colour_bottom, glints=()):
    for y in range(int(top * H), H):
        draw.line([(0, y), (W, y)], fill=mix(colour_top, colour_bottom, (y - top * H) / (H - top * H)))
    for x, y, length, colour in glints:
        draw.line([(x * W - length, y * H), (x * W + length, y * H)], fill=colour, width=3 * SCALE)


def towers(draw, base, specs, colour, windows=None):
    """Rectangles standing on `base`: (left, width, height) as fractions; lit windows optional."""
    for left, width, height in specs:
        x0, x1, y0 = left * W, (left + width) * W, (base - height) * H
        draw.rectangle([x0, y0, x1, base * H], fill=colour)
        if windows:
            for wy in range(int(y0) + 10 * SCALE, int(base * H) - 6 * SCALE, 14 * SCALE):
                for wx in range(int(x0) + 6 * SCALE, int(x1) - 6 * SCALE, 12 * SCALE):
                    if (wx // SCALE * 7 + wy // SCALE * 3) % 5 < 2:
                        draw.rectangle([wx, wy, wx + 4 * SCALE, wy + 5 * SCALE], fill=windows)


def seattle(draw):
    sky(draw, (86, 120, 160), (232, 190, 160))
    disc(draw, 0.78 * W, 0.42 * H, 34 * SCALE, (250, 226, 190))
    ridge(draw, [(0.45, 0.62), (0.62, 0.34), (0.68, 0.31), (0.74, 0.35), (0.9, 0.6), (1, 0.66)], (196, 206, 222))
    snow(draw, [(0.6, 0.4), (0.62, 0.34), (0.68, 0.31), (0.74, 0.35), (0.77, 0.4), (0.72, 0.37), (0.68, 0.4), (0.64, 0.37)])
    water(draw, 0.78, (70, 98, 128), (40, 60, 86), [(0.78, 0.84, 30 * SCALE, (230, 200, 170))])
    towers(draw, 0.78, [(0.05, 0.06, 0.2), (0.12, 0.05, 0.28), (0.18, 0.07, 0.22), (0.3, 0.05, 0.17)], (40, 50, 70))
    # The Space Needle: a thin column, a saucer, a spike.
    draw.rectangle([0.245 * W, 0.36 * H, 0.255 * W, 0.78 * H], fill=(40, 50, 70))
    draw.ellipse([0.215 * W, 0.33 * H, 0.285 * W, 0.39 * H], fill=(40, 50, 70))
    draw.line([(0.25 * W, 0.33 * H), (0.25 * W, 0.25 * H)], fill=(40, 50, 70), width=2 * SCALE)


def vancouver(draw):
    sky(draw, (120, 180, 210), (214, 236, 238))
    ridge(draw, [(0, 0.5), (0.15, 0.3), (0.3, 0.45), (0.48, 0.26), (0.66, 0.44), (0.82, 0.32), (1, 0.48)], (92, 128, 140))
    snow(draw, [(0.42, 0.32), (0.48, 0.26), (0.53, 0.31), (0.5, 0.3), (0.47, 0.32), (0.45, 0.31)])
    ridge(draw, [(0, 0.62), (0.2, 0.5), (0.42, 0.6), (0.7, 0.52), (1, 0.64)], (46, 92, 76))
    towers(draw, 0.74, [(0.08, 0.05, 0.2), (0.14, 0.04, 0.26), (0.56, 0.06, 0.24), (0.63, 0.05, 0.3), (0.7, 0.04, 0.2)],
           (120, 160, 180))
    water(draw, 0.74, (60, 130, 150), (30, 80, 100), [(0.3, 0.82, 40 * SCALE, (180, 220, 230)), (0.8, 0.9, 25 * SCALE, (160, 210, 220))])


def atacama(draw):
    sky(draw, (10, 14, 40), (70, 50, 90), horizon=int(0.72 * H))
    stars = random.Random(3)
    for _ in range(140):
        x, y = stars.random() * W, stars.random() * 0.68 * H
        disc(draw, x, y, stars.choice([1, 1, 2]) * SCALE, (255, 250, 230))
    ridge(draw, [(0, 0.7), (0.22, 0.62), (0.38, 0.4), (0.46, 0.38), (0.56, 0.6), (0.8, 0.58), (1, 0.66)], (120, 70, 60))
    snow(draw, [(0.37, 0.42), (0.38, 0.4), (0.46, 0.38), (0.48, 0.42), (0.45, 0.41), (0.42, 0.43)], (230, 220, 220))
    ridge(draw, [(0, 0.8), (0.3, 0.74), (0.7, 0.78), (1, 0.72)], (170, 100, 70))


def new_york(draw):
    sky(draw, (70, 60, 120), (250, 160, 90))
    disc(draw, 0.5 * W, 0.7 * H, 60 * SCALE, (255, 200, 120))
    dark = (40, 30, 60)
    towers(draw, 0.86, [(0.0, 0.08, 0.34), (0.09, 0.06, 0.46), (0.16, 0.09, 0.3), (0.27, 0.05, 0.52), (0.34, 0.07, 0.38),
                        (0.58, 0.06, 0.42), (0.65, 0.09, 0.32), (0.75, 0.05, 0.56), (0.81, 0.08, 0.36), (0.9, 0.1, 0.28)],
           dark, windows=(255, 210, 130))
    # The Empire State Building: stepped, with its mast.
    for left, width, top in [(0.44, 0.1, 0.4), (0.46, 0.06, 0.3), (0.475, 0.03, 0.22)]:
        draw.rectangle([left * W, top * H, (left + width) * W, 0.86 * H], fill=dark)
    draw.line([(0.49 * W, 0.22 * H), (0.49 * W, 0.1 * H)], fill=dark, width=2 * SCALE)
    # The High Line: a green rail over the street.
    draw.rectangle([0, 0.86 * H, W, H], fill=(50, 40, 60))
    draw.rectangle([0, 0.88 * H, W, 0.91 * H], fill=(90, 140, 80))


def kyoto(draw):
    sky(draw, (250, 200, 150), (250, 236, 210))
    disc(draw, 0.25 * W, 0.3 * H, 30 * SCALE, (255, 246, 226))
    ridge(draw, [(0, 0.6), (0.25, 0.48), (0.5, 0.56), (0.75, 0.44), (1, 0.55)], (200, 150, 130))
    dark = (70, 40, 40)
    # A five-storey pagoda: roofs narrowing upwards, a spire on top.
    x = 0.68 * W
    for storey in range(5):
        y = (0.82 - storey * 0.1) * H
        half = (62 - storey * 8) * SCALE
        draw.polygon([(x - half, y), (x + half, y), (x + half * 0.6, y - 14 * SCALE), (x - half * 0.6, y - 14 * SCALE)], fill=dark)
        draw.rectangle([x - half * 0.45, y, x + half * 0.45, y + 0.1 * H - 14 * SCALE], fill=dark)
    draw.line([(x, 0.4 * H), (x, 0.26 * H)], fill=dark, width=3 * SCALE)
    # Maples in autumn.
    for cx, cy, r, colour in [(0.08, 0.8, 60, (200, 60, 40)), (0.22, 0.86, 50, (230, 110, 40)), (0.92, 0.86, 56, (190, 50, 50))]:
        disc(draw, cx * W, cy * H, r * SCALE, colour)
    ridge(draw, [(0, 0.92), (1, 0.9)], (90, 60, 50))


def zurich(draw):
    sky(draw, (30, 40, 90), (120, 120, 170))
    ridge(draw, [(0, 0.5), (0.12, 0.36), (0.24, 0.46), (0.38, 0.3), (0.52, 0.44), (0.7, 0.32), (0.86, 0.42), (1, 0.38)],
          (220, 226, 240))
    dark = (30, 30, 50)
    towers(draw, 0.72, [(0.05, 0.1, 0.12), (0.16, 0.08, 0.16), (0.5, 0.12, 0.14), (0.64, 0.1, 0.1), (0.8, 0.12, 0.13)], dark,
           windows=(255, 214, 140))
    # Two church towers with spires, as on the Limmat.
    for left in (0.3, 0.38):
        draw.rectangle([left * W, 0.4 * H, (left + 0.05) * W, 0.72 * H], fill=dark)
        draw.polygon([(left * W, 0.4 * H), ((left + 0.05) * W, 0.4 * H), ((left + 0.025) * W, 0.3 * H)], fill=dark)
    water(draw, 0.72, (40, 50, 100), (20, 24, 60), [(0.2, 0.8, 20 * SCALE, (255, 214, 140)), (0.7, 0.86, 24 * SCALE, (255, 214, 140))])
    # Market lights strung along the shore.
    for index in range(24):
        disc(draw, (0.02 + index * 0.042) * W, (0.7 + 0.012 * (index % 2)) * H, 3 * SCALE, (255, 230, 160))


PICTURES = {1: seattle, 2: vancouver, 3: atacama, 4: new_york, 5: kyoto, 6: zurich}


def main():
    FOLDER.mkdir(parents=True, exist_ok=True)
    for trip_id, draw_picture in PICTURES.items():
        image = Image.new("RGB", (W, H))
        draw_picture(ImageDraw.Draw(image))
        image = image.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)
        path = FOLDER / f"trip-{trip_id}.jpg"
        image.save(path, "JPEG", quality=70, optimize=True, progressive=False)
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
