"""A hardened, streaming reader of OpenImmo transfers: one `<immobilie>` at a time, memory flat.

Built on expat directly, so every guard is ours and visible: a document type declaration (and with it any
entity declaration, internal or external) is refused before anything is read; entity references other than
XML's five are not expanded (expat reports them as undefined); the input is counted while it is read and
refused beyond the size limit. Names are normalised as each element starts (`names.py`, rule 13), and an
element is handed on and dropped as soon as its `</immobilie>` has been read.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO
from xml.parsers import expat

from shared.openimmo.names import NameCollision, local_name, normalise_attributes, normalise_name

CHUNK = 64 * 1024
PROVIDER_IDS = ("openimmo_anid", "anbieternr")  # children of <anbieter> naming it, first one wins


class TransferError(ValueError):
    """The transfer as a whole cannot be read. `kind`: too_large, doctype, malformed, schema, collision."""

    def __init__(self, kind: str, german: str) -> None:
        self.kind = kind
        self.german = german
        super().__init__(f"{kind}: {german}")


@dataclass
class RawObject:
    """One `<immobilie>` as read: its element (names normalised) or the collision that makes it unreadable."""

    element: ET.Element
    position: int  # 1-based, in the order of the file
    collision: NameCollision | None = None
    provider: str | None = None  # the `<anbieter>`'s openimmo_anid (or anbieternr): which feed the object belongs to


@dataclass
class Header:
    """What `<uebertragung>` says, with the warnings about what it left out."""

    scope: str  # "full" (umfang="VOLL") or "partial" (umfang="TEIL")
    version: str | None
    sender: str | None
    warnings: list[str] = field(default_factory=list)


class _Refused(Exception):
    pass


class TransferReader:
    """Feeds the source to expat chunk by chunk and yields the header first, then each object."""

    def __init__(self, source: BinaryIO, *, max_bytes: int) -> None:
        self._source = source
        self._max_bytes = max_bytes
        self._read = 0
        self._parser = expat.ParserCreate(namespace_separator="}")
        p = self._parser
        p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        p.StartDoctypeDeclHandler = self._refuse_doctype
        p.EntityDeclHandler = self._refuse_entity
        p.ExternalEntityRefHandler = self._refuse_external
        p.StartElementHandler = self._start
        p.EndElementHandler = self._end
        p.CharacterDataHandler = self._text
        p.buffer_text = True
        self._stack: list[tuple[ET.Element, dict[str, str]]] = []  # element, raw name of each normalised child
        self._texts: list[list[str]] = []
        self._ready: deque[RawObject | Header] = deque()
        self._object: ET.Element | None = None
        self._object_depth = 0
        self._collision: NameCollision | None = None
        self._objects = 0
        self.root: str | None = None
        self._provider: dict[str, str] = {}
        self.header: Header | None = None
        self._refusal: TransferError | None = None

    # --- expat handlers -------------------------------------------------------------------------------

    def _refuse_doctype(self, *args: object) -> None:
        self._refusal = TransferError(
            "doctype",
            "Die Datei enthält eine Dokumenttyp-Deklaration (DOCTYPE); aus Sicherheitsgründen werden solche Dateien "
            "nicht gelesen. Bitte die Übertragung ohne DOCTYPE exportieren.",
        )
        raise _Refused

    def _refuse_entity(self, *args: object) -> None:
        self._refuse_doctype()

    def _refuse_external(self, *args: object) -> int:
        self._refuse_doctype()
        return 0

    def _start(self, raw: str, attrib: dict[str, str]) -> None:
        name = normalise_name(raw)
        if not self._stack:
            self.root = name
            if name != "openimmo":
                self._refusal = TransferError(
                    "schema",
                    f"Die Datei ist keine OpenImmo-Übertragung: das oberste Element heißt ‹{local_name(raw)}› statt "
                    "‹openimmo›. Bitte eine OpenImmo-XML-Datei (Version 1.2.x) übergeben.",
                )
                raise _Refused
        where = "/".join(element.tag for element, _ in self._stack[-2:]) or name
        try:
            if self._stack:
                parent, seen = self._stack[-1]
                earlier = seen.setdefault(name, raw)
                if earlier != raw:
                    raise NameCollision(where, local_name(earlier), local_name(raw), name)
            attributes = normalise_attributes(f"{where}/{name}" if self._stack else name, attrib)
        except NameCollision as collision:
            if self._object is None and name != "immobilie":
                self._refusal = TransferError("collision", collision.german() + " Bitte die Datei beim Absender berichtigen.")
                raise _Refused from None
            self._collision = self._collision or collision
            attributes = {normalise_name(k): v for k, v in attrib.items()}
        element = ET.Element(name, attributes)
        if self._stack and self._object is not None:
            self._stack[-1][0].append(element)
        if name == "anbieter" and self._object is None:
            self._provider = {}
        if name == "immobilie" and self._object is None:
            self._object = element
            self._object_depth = len(self._stack)
        self._stack.append((element, {}))
        self._texts.append([])

    def _end(self, raw: str) -> None:
        element, _ = self._stack.pop()
        element.text = "".join(self._texts.pop()).strip() or None
        if element.tag in PROVIDER_IDS and self._object is None and self._stack and self._stack[-1][0].tag == "anbieter":
            self._provider.setdefault(element.tag, element.text or "")
        if element.tag == "uebertragung" and self.header is None and self._object is None:
            self.header = _header(element)
            self._ready.append(self.header)
        if element is self._object:
            self._objects += 1
            if self.header is None:
                self._refusal = TransferError(
                    "schema",
                    "Die Übertragung hat kein Element ‹uebertragung› vor dem ersten Objekt; ohne es ist nicht zu "
                    "erkennen, ob sie vollständig (VOLL) oder ein Teil (TEIL) ist. Bitte die Datei beim Absender "
                    "berichtigen.",
                )
                raise _Refused
            provider = next((self._provider[k] for k in PROVIDER_IDS if self._provider.get(k)), None)
            self._ready.append(RawObject(element, self._objects, self._collision, provider))
            self._object = None
            self._collision = None

    def _text(self, data: str) -> None:
        if self._object is not None or (len(self._stack) > 1 and self._stack[-2][0].tag == "anbieter"
                                        and self._stack[-1][0].tag in PROVIDER_IDS):
            self._texts[-1].append(data)  # text between objects is never kept, so memory stays flat

    # --- reading ------------------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[RawObject | Header]:
        done = False
        while not done:
            chunk = self._source.read(CHUNK)
            self._read += len(chunk)
            if self._read > self._max_bytes:
                raise TransferError(
                    "too_large",
                    f"Die Übertragung ist größer als die erlaubten {self._max_bytes // (1024 * 1024)} MB. Bitte in "
                    "Teilübertragungen (umfang=\"TEIL\") aufteilen.",
                )
            done = not chunk
            try:
                self._parser.Parse(chunk, done)
            except _Refused:
                assert self._refusal is not None
                raise self._refusal from None
            except expat.ExpatError as error:
                raise TransferError(
                    "malformed",
                    f"Die Datei ist kein wohlgeformtes XML (Zeile {error.lineno}, Spalte {error.offset + 1}: "
                    f"{_EXPAT_GERMAN.get(error.code, 'Syntaxfehler')}). Bitte die Datei beim Absender berichtigen.",
                ) from None
            while self._ready:
                yield self._ready.popleft()
        if self.header is None:
            raise TransferError(
                "schema",
                "Die Übertragung hat kein Element ‹uebertragung›; ohne es ist nicht zu erkennen, ob sie vollständig "
                "(VOLL) oder ein Teil (TEIL) ist. Bitte die Datei beim Absender berichtigen.",
            )


_EXPAT_GERMAN = {
    expat.errors.codes[expat.errors.XML_ERROR_UNDEFINED_ENTITY]: "unbekannte Entität, Entitäten werden nicht aufgelöst",
    expat.errors.codes[expat.errors.XML_ERROR_TAG_MISMATCH]: "schließendes Element passt nicht",
    expat.errors.codes[expat.errors.XML_ERROR_NO_ELEMENTS]: "leere Datei",
    expat.errors.codes[expat.errors.XML_ERROR_UNBOUND_PREFIX]: "Namensraum-Präfix ohne Deklaration",
    expat.errors.codes[expat.errors.XML_ERROR_INVALID_TOKEN]: "ungültiges Zeichen",
}


def _header(element: ET.Element) -> Header:
    warnings: list[str] = []
    umfang = (element.get("umfang") or "").strip().upper()
    if umfang == "VOLL":
        scope = "full"
    elif umfang == "TEIL":
        scope = "partial"
    else:
        scope = "partial"
        shown = f"‹{umfang}›" if umfang else "keine Angabe"
        warnings.append(
            f"Der Umfang der Übertragung ist {shown} statt VOLL oder TEIL; sie wird als Teilübertragung gelesen, "
            "es wird also nichts zurückgezogen."
        )
    version = element.get("version")
    if version and not version.strip().startswith("1.2"):
        warnings.append(f"Die Übertragung nennt OpenImmo-Version {version}; gelesen wird nach Version 1.2.7.")
    return Header(scope=scope, version=version, sender=element.get("sendersoftware"), warnings=warnings)
