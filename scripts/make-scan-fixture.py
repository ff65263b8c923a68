#!/usr/bin/env python3
"""Writes lib/extract/tests/fixtures/scanned-page.pdf: a page "scanned" at 150 dpi, a grey JPEG
image of a few lines of English text with no text layer, for the text recognition (OCR) tests;
scanned-page-fax.pdf, the same page in black and white as a CCITT Group 4 image; and
scanned-page-flate.pdf, the same grey page as Flate-compressed pixels with the PNG "Up" predictor;
scanned-page-palette.pdf, the page as a 4-bit palette image (`/Indexed` over RGB, dark blue ink on
cream, the palette in a stream of its own); scanned-page-cmyk.pdf, the page as DeviceCMYK pixels
(black ink on the K plate); scanned-page-jpx.pdf, the page as a JPEG 2000 image (`JPXDecode`, a JP2
file written by Pillow's OpenJPEG, lossy at 1:20); scanned-page-jbig2.pdf, the black-and-white page
as a JBIG2 image (`JBIG2Decode`, embedded organisation: page information, one immediate generic
region coded with MMR — the Group 4 data libtiff writes for the page — and end of page).

Needs Pillow (in a throwaway virtual environment: python3 -m venv /tmp/v && /tmp/v/bin/pip
install Pillow) and the DejaVu Sans font of Debian's fonts-dejavu-core package. Run from the
repository root: /tmp/v/bin/python scripts/make-scan-fixture.py
"""

import io
import zlib
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
OUT = Path("lib/extract/tests/fixtures/scanned-page.pdf")
FAX = Path("lib/extract/tests/fixtures/scanned-page-fax.pdf")
FLATE = Path("lib/extract/tests/fixtures/scanned-page-flate.pdf")
PALETTE = Path("lib/extract/tests/fixtures/scanned-page-palette.pdf")
CMYK = Path("lib/extract/tests/fixtures/scanned-page-cmyk.pdf")
JPX = Path("lib/extract/tests/fixtures/scanned-page-jpx.pdf")
JBIG2 = Path("lib/extract/tests/fixtures/scanned-page-jbig2.pdf")
LINES = [
    "Lighthouse inspection report",
    "The keepers recorded strong westerly winds",
    "and replaced the copper lantern gasket.",
    "Visibility improved after the morning fog.",
]


def main() -> None:
    font = ImageFont.truetype(FONT, 34)
    image = Image.new("L", (1240, 80 + 62 * len(LINES)), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(LINES):
        draw.text((70, 50 + 62 * i), line, font=font, fill=0)
    # A JPEG image in the PDF (DCTDecode), as most scanners write; a single image, no text.
    image.save(OUT, "PDF", resolution=150, quality=70)
    data = OUT.read_bytes()
    assert b"/Font" not in data, "a text layer"
    assert b"/DCTDecode" in data, "not a JPEG image"
    print(f"{OUT}: {len(data)} bytes")
    # The same page black and white, as fax-grade scanners write it: Pillow stores a 1-bit image
    # as CCITT Group 4 (CCITTFaxDecode).
    image.point(lambda v: 255 if v > 128 else 0).convert("1").save(FAX, "PDF", resolution=150)
    data = FAX.read_bytes()
    assert b"/Font" not in data, "a text layer"
    assert b"/CCITTFaxDecode" in data, "not a CCITT image"
    print(f"{FAX}: {len(data)} bytes")
    FLATE.write_bytes(flate_pdf(image))
    print(f"{FLATE}: {FLATE.stat().st_size} bytes")
    PALETTE.write_bytes(palette_pdf(image))
    print(f"{PALETTE}: {PALETTE.stat().st_size} bytes")
    CMYK.write_bytes(cmyk_pdf(image))
    print(f"{CMYK}: {CMYK.stat().st_size} bytes")
    JPX.write_bytes(jpx_pdf(image))
    print(f"{JPX}: {JPX.stat().st_size} bytes")
    JBIG2.write_bytes(jbig2_pdf(image.point(lambda v: 255 if v > 128 else 0).convert("1")))
    print(f"{JBIG2}: {JBIG2.stat().st_size} bytes")


def palette_pdf(image: Image.Image) -> bytes:
    """The grey page as 4-bit palette indices (Flate, no predictor): 16 colours from dark blue ink
    (index 0) to cream paper (15), the palette a Flate stream referenced by the colour space."""
    width, height = image.size
    grey = image.tobytes()
    packed = bytearray()
    for y in range(height):
        row = [grey[y * width + x] >> 4 for x in range(width)]
        row += [0] * (len(row) % 2)
        packed.extend((row[i] << 4) | row[i + 1] for i in range(0, len(row), 2))
    ink, paper = (20, 30, 90), (250, 245, 225)
    lookup = bytes(round(a + (b - a) * i / 15) for i in range(16) for a, b in zip(ink, paper))
    palette = zlib.compress(lookup, 9)
    image_dict = "/ColorSpace [/Indexed /DeviceRGB 15 6 0 R] /BitsPerComponent 4 /Filter /FlateDecode"
    extra = b"<< /Filter /FlateDecode /Length %d >>\nstream\n" % len(palette) + palette + b"\nendstream"
    return raster_pdf(width, height, image_dict, zlib.compress(bytes(packed), 9), [extra])


def cmyk_pdf(image: Image.Image) -> bytes:
    """The grey page as DeviceCMYK pixels (Flate): black ink on the K plate only."""
    width, height = image.size
    pixels = bytearray()
    for v in image.tobytes():
        pixels.extend((0, 0, 0, 255 - v))
    image_dict = "/ColorSpace /DeviceCMYK /BitsPerComponent 8 /Filter /FlateDecode"
    return raster_pdf(width, height, image_dict, zlib.compress(bytes(pixels), 9), [])


def jpx_pdf(image: Image.Image) -> bytes:
    """The grey page as a JPEG 2000 image (a JP2 file; the colour space comes from the file)."""
    out = io.BytesIO()
    image.save(out, "JPEG2000", irreversible=True, quality_mode="rates", quality_layers=[20])
    width, height = image.size
    return raster_pdf(width, height, "/BitsPerComponent 8 /Filter /JPXDecode", out.getvalue(), [])


def jbig2_pdf(bilevel: Image.Image) -> bytes:
    """The black-and-white page as an embedded JBIG2 stream: no JBIG2 encoder ships in Debian or
    PyPI, but a generic region may be coded with MMR, which is CCITT Group 4 (T.88 6.2.6), so the
    Group 4 data libtiff writes for the page is wrapped in JBIG2 segments by hand (T.88 7.2)."""
    width, height = bilevel.size
    # In CCITT coding "white" runs are 0 bits; JBIG2 decodes them as 0 = white (paper). Pillow
    # stores a mode-1 image as min-is-black (a 1 bit shows white), so the page is inverted first
    # for the paper to be the 0 bits.
    inverted = bilevel.point(lambda v: 255 - v)
    out = io.BytesIO()
    inverted.save(out, "TIFF", compression="group4", tiffinfo={278: height})  # one strip
    tiff = Image.open(io.BytesIO(out.getvalue()))
    assert tiff.tag_v2[262] == 1, "min-is-black expected"
    (offset,), (length,) = tiff.tag_v2[273], tiff.tag_v2[279]
    mmr = out.getvalue()[offset : offset + length]

    def segment(number: int, kind: int, data: bytes) -> bytes:
        # Number, flags (type; page association in one byte), no referred segments, page 1.
        return number.to_bytes(4, "big") + bytes([kind, 0, 1]) + len(data).to_bytes(4, "big") + data

    page_info = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes(8) + bytes([0]) + bytes(2)
    region = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes(8) + bytes([0])
    stream = segment(0, 48, page_info) + segment(1, 38, region + bytes([1]) + mmr) + segment(2, 49, b"")
    image_dict = "/ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /JBIG2Decode"
    return raster_pdf(width, height, image_dict, stream, [])


def raster_pdf(width: int, height: int, image_dict: str, data: bytes, extra: list) -> bytes:
    """A one-page PDF drawing one image XObject (object 5) of `image_dict` entries and `data`;
    `extra` objects are numbered from 6."""
    points = (width * 72 // 150, height * 72 // 150)
    content = f"q {points[0]} 0 0 {points[1]} 0 0 cm /Im1 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {points[0]} {points[1]}] "
        f"/Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>".encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        f"<< /Type /XObject /Subtype /Image /Width {width} /Height {height} {image_dict} "
        f"/Length {len(data)} >>\nstream\n".encode()
        + data
        + b"\nendstream",
        *extra,
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def flate_pdf(image: Image.Image) -> bytes:
    """A one-page PDF drawing `image` (grey) as FlateDecode pixels, PNG "Up" predictor, written by
    hand (Pillow writes grey images as JPEG)."""
    width, height = image.size
    pixels = image.tobytes()
    rows = [pixels[y * width : (y + 1) * width] for y in range(height)]
    filtered = bytearray()
    previous = bytes(width)
    for row in rows:
        filtered.append(2)
        filtered.extend((a - b) & 0xFF for a, b in zip(row, previous))
        previous = row
    data = zlib.compress(bytes(filtered), 9)
    image_dict = (
        f"/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode "
        f"/DecodeParms << /Predictor 12 /Columns {width} >>"
    )
    return raster_pdf(width, height, image_dict, data, [])


if __name__ == "__main__":
    main()
