"""A transfer as CRMs deliver it: a ZIP holding the OpenImmo XML and its attachments (photos, floor plans), named in
`<anhang><daten><pfad>` by their path in the ZIP. Read without extracting anything but the XML and the files an object
names, each bounded: a ZIP bomb (entries larger unpacked than the transfer may be) is refused before it is read."""

from __future__ import annotations

import posixpath
import tempfile
import zipfile
from typing import IO

from contract.errors import ErrorCode, ToolFailure
from shared.images import MAX_IMAGE_BYTES

ZIP_MAGIC = b"PK\x03\x04"
MAX_ENTRIES = 5000
UNPACKED_FACTOR = 3  # photos hardly compress: unpacked, a real transfer is little larger than the ZIP
SPOOL_IN_MEMORY = 1024 * 1024


def is_zip(source: IO[bytes]) -> bool:
    """Whether the (seekable) source starts as a ZIP does; the position is kept at the start."""
    start = source.read(4)
    source.seek(0)
    return start == ZIP_MAGIC


def _refused(sentence: str) -> ToolFailure:
    return ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{sentence} Nichts wurde geändert; bitte die ZIP-Übertragung prüfen.")


class Attachments:
    """The files of a ZIP transfer by their path (and, as CRMs write paths loosely, by their name alone)."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive
        self.by_path: dict[str, zipfile.ZipInfo] = {}
        self.by_name: dict[str, list[zipfile.ZipInfo]] = {}
        for info in archive.infolist():
            if info.is_dir() or info.filename.startswith("__MACOSX/"):
                continue
            path = posixpath.normpath(info.filename.replace("\\", "/")).lower()
            self.by_path[path] = info
            self.by_name.setdefault(posixpath.basename(path), []).append(info)

    def find(self, path: str) -> zipfile.ZipInfo | None:
        key = posixpath.normpath(path.strip().replace("\\", "/")).lstrip("./").lower()
        found = self.by_path.get(key)
        if found is None:
            named = self.by_name.get(posixpath.basename(key), [])
            found = named[0] if len(named) == 1 else None
        return found

    def read(self, path: str) -> bytes | None:
        """The file's bytes; None when the ZIP has no such file. Larger than an image may be: ValueError."""
        info = self.find(path)
        if info is None:
            return None
        if info.file_size > MAX_IMAGE_BYTES:
            raise ValueError(f"{info.file_size} bytes")
        with self.archive.open(info) as handle:
            data = handle.read(MAX_IMAGE_BYTES + 1)
        if len(data) > MAX_IMAGE_BYTES:  # the header lied about the size
            raise ValueError("larger than declared")
        return data


def open_transfer_zip(source: IO[bytes], *, max_bytes: int) -> tuple[IO[bytes], Attachments]:
    """The XML of a ZIP transfer (spooled, rewound) and its attachments; ToolFailure for a ZIP that cannot be one."""
    try:
        archive = zipfile.ZipFile(source)
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        raise _refused("Die ZIP-Datei ist beschädigt oder keine ZIP-Datei.") from None
    if len(infos) > MAX_ENTRIES:
        raise _refused(f"Die ZIP-Übertragung hat mehr als {MAX_ENTRIES} Dateien.")
    unpacked = sum(info.file_size for info in infos)
    bomb = any(i.file_size > 1024 * 1024 and i.file_size > 100 * max(i.compress_size, 1) for i in infos)
    if unpacked > UNPACKED_FACTOR * max_bytes or bomb:
        raise _refused("Die ZIP-Übertragung wäre entpackt unverhältnismäßig groß (eine ZIP-Bombe?).")
    documents = [i for i in infos if i.filename.lower().endswith(".xml") and not i.filename.startswith("__MACOSX/") and not i.is_dir()]
    if len(documents) != 1:
        found = "keine XML-Datei" if not documents else f"{len(documents)} XML-Dateien"
        raise _refused(f"Die ZIP-Übertragung enthält {found}; erwartet ist genau eine OpenImmo-XML-Datei.")
    document = documents[0]
    if document.file_size > max_bytes:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"Die Übertragung ist größer als die erlaubten {max_bytes // (1024 * 1024)} "
                          'MB; nichts wurde geändert. Bitte in Teilübertragungen (umfang="TEIL") aufteilen.')
    spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)
    with archive.open(document) as handle:
        while chunk := handle.read(64 * 1024):
            spool.write(chunk)
            if spool.tell() > max_bytes:
                spool.close()
                raise _refused("Die XML-Datei der ZIP-Übertragung ist größer, als sie angibt.")
    spool.seek(0)
    return spool, Attachments(archive)
