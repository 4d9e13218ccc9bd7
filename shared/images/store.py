"""The image store: an image is accepted only as a real JPEG, PNG or WebP of sane size, decoded once by Pillow and
written again, so no EXIF (camera, GPS position), XMP, ICC comment or trailing bytes survive; a decompression bomb
(more pixels than any photo has) is refused before it is decoded. The stored bytes are named by their digest, so the
same photo imported twice is stored once and its URL stays stable."""

from __future__ import annotations

import hashlib
import io
import os
import re
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from PIL import Image, ImageOps

MAX_IMAGE_BYTES = 20 * 1024 * 1024  # a photo as a camera or CRM sends it
MAX_PIXELS = 40_000_000  # 40 megapixels; beyond: a decompression bomb, not a photo
MIN_SIDE = 16
FORMATS = {"JPEG": ("image/jpeg", "jpg"), "PNG": ("image/png", "png"), "WEBP": ("image/webp", "webp")}
NAME = _ID = re.compile(r"^[0-9a-f]{32}\.(jpg|png|webp)$")
# The sizes a page and an app show (longest side in pixels): a card's thumbnail, the exposé's gallery, the enlarged
# photo. Made once from the stored image on first request and kept beside it; never larger than the original.
SIZES = {"klein": 480, "mittel": 1024, "gross": 2048}
_VARIANTS = "groessen"  # the folder of the sizes; never two hex digits, so never an original's folder


class ImageRefused(ValueError):
    """The bytes are no image the store accepts; `german` says why (one sentence)."""

    def __init__(self, german: str) -> None:
        self.german = german
        super().__init__(german)


@dataclass(frozen=True)
class StoredImage:
    name: str  # "<32 hex digits>.<ext>": the stable name under which it is served
    content_type: str
    width: int
    height: int


class ImageStore(Protocol):
    def put(self, data: bytes) -> StoredImage: ...

    def get(self, name: str) -> tuple[bytes, str] | None: ...

    def sized(self, name: str, size: str) -> tuple[bytes, str] | None: ...


def _content_type(name: str) -> str:
    extension = name.rsplit(".", 1)[1]
    return next(t for t, e in FORMATS.values() if e == extension)


def _encode(image: Image.Image, extension: str) -> bytes:
    out = io.BytesIO()
    if extension == "jpg":
        image.convert("RGB").save(out, "JPEG", quality=85, optimize=True)
    elif extension == "png":
        image.save(out, "PNG", optimize=True)
    else:
        image.save(out, "WEBP", quality=85)
    return out.getvalue()


def resized(data: bytes, extension: str, size: str) -> bytes:
    """The stored image scaled so its longest side is at most SIZES[size] (aspect kept, never enlarged)."""
    side = SIZES[size]
    with Image.open(io.BytesIO(data)) as image:
        image.load()
        if max(image.size) <= side:
            return data
        copy = image.copy()
    copy.thumbnail((side, side), Image.Resampling.LANCZOS)
    return _encode(copy, extension)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
        handle.write(data)
    os.replace(handle.name, path)  # atomic: a reader sees the whole file or none


def clean(data: bytes) -> tuple[bytes, str, str, int, int]:
    """(bytes without metadata, content type, extension, width, height), or ImageRefused."""
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageRefused(f"Das Bild ist größer als {MAX_IMAGE_BYTES // (1024 * 1024)} MB.")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as probe:
                kind = probe.format or ""
                width, height = probe.size
                if kind not in FORMATS:
                    raise ImageRefused("Die Datei ist kein JPEG-, PNG- oder WebP-Bild.")
                if width * height > MAX_PIXELS:
                    raise ImageRefused(f"Das Bild hat {width} × {height} Pixel, mehr als ein Foto hat (höchstens 40 Megapixel).")
                if min(width, height) < MIN_SIDE:
                    raise ImageRefused(f"Das Bild ist mit {width} × {height} Pixeln zu klein für ein Foto.")
                probe.load()
                image = ImageOps.exif_transpose(probe)  # turned as the camera meant it, then the EXIF is gone
    except ImageRefused:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageRefused("Das Bild würde entpackt mehr Pixel haben, als ein Foto hat; es wird nicht gelesen.") from None
    except Exception:  # Pillow raises many kinds for a broken file; each means the same here
        raise ImageRefused("Die Datei ist kein lesbares Bild (beschädigt oder ein anderes Format).") from None
    content_type, extension = FORMATS[kind]
    out = io.BytesIO()
    if kind == "JPEG":
        image.convert("RGB").save(out, "JPEG", quality=90, optimize=True)  # no exif=, icc_profile=: nothing carried over
    elif kind == "PNG":
        image.save(out, "PNG", optimize=True)  # text chunks are not written unless passed as pnginfo
    else:
        image.save(out, "WEBP", quality=90)
    return out.getvalue(), content_type, extension, image.width, image.height


class FolderStore:
    """Images as files in a folder: `<root>/<first two digits>/<name>`, written atomically."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def _path(self, name: str) -> Path:
        return self.root / name[:2] / name

    def put(self, data: bytes) -> StoredImage:
        cleaned, content_type, extension, width, height = clean(data)
        name = f"{hashlib.sha256(cleaned).hexdigest()[:32]}.{extension}"
        path = self._path(name)
        if not path.exists():
            _write(path, cleaned)
        return StoredImage(name, content_type, width, height)

    def get(self, name: str) -> tuple[bytes, str] | None:
        """The stored bytes and content type; None for a name that is no stored image (never a path outside)."""
        if not _ID.fullmatch(name):
            return None
        path = self._path(name)
        if not path.is_file():
            return None
        return path.read_bytes(), _content_type(name)

    def sized(self, name: str, size: str) -> tuple[bytes, str] | None:
        """The image in one of SIZES, made on first request and kept (the same name in every instance: any instance
        may write it, the bytes are the same)."""
        if size not in SIZES or not _ID.fullmatch(name):
            return None
        path = self.root / _VARIANTS / size / name[:2] / name
        if path.is_file():
            return path.read_bytes(), _content_type(name)
        found = self.get(name)
        if found is None:
            return None
        data = resized(found[0], name.rsplit(".", 1)[1], size)
        _write(path, data)
        return data, found[1]
