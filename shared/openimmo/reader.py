"""A hardened, streaming reader of OpenImmo transfers: one `<immobilie>` at a time, memory flat.

Built on expat directly, so every guard is ours and visible: a document type declaration (and with it any
entity declaration, internal or external) is refused before anything is read; entity references other than
XML's five are not expanded (expat reports them as undefined); the input is counted while it is read and
refused beyond the size limit. Names are normalised as each element starts (`names.py`, rule 13), and an
element is handed on and dropped as soon as its `</immobilie>` has been read.

Fast enough for a feed (bench/openimmo_import.py `--read-only`): the handlers do as little as they can. Inside an
object a start is a cached name lookup and one `SubElement`; a name spelled as the schema spells it cannot collide
with its siblings unless another spelling of it occurs, so only an unusual spelling is looked up among the
siblings; and every element is indexed under its path in the object (`RawObject.paths`, the first in document
order, as `Element.find` would return it), so the mapping reads a field with one dict lookup.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO
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
    paths: dict[str, ET.Element] = field(default_factory=dict)  # "geo/plz" → the first such element in the object


@dataclass
class Header:
    """What `<uebertragung>` says, with the warnings about what it left out."""

    scope: str  # "full" (umfang="VOLL") or "partial" (umfang="TEIL")
    version: str | None
    sender: str | None
    warnings: list[str] = field(default_factory=list)
    assumed: bool = False  # True: the transfer had no <uebertragung>, the scope TEIL is assumed


class _Refused(Exception):
    pass


class TransferReader:
    """Feeds the source to expat chunk by chunk and yields the header first, then each object."""

    def __init__(self, source: BinaryIO, *, max_bytes: int, survey: bool = False) -> None:
        """`survey`: check the whole transfer and count its objects, without reading inside them (each RawObject then
        has an empty element): what the import does before it writes anything."""
        self._source = source
        self._max_bytes = max_bytes
        self._read = 0
        self._parser = expat.ParserCreate(namespace_separator="}")
        p = self._parser
        p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        p.StartDoctypeDeclHandler = self._refuse_doctype
        p.EntityDeclHandler = self._refuse_entity
        p.ExternalEntityRefHandler = self._refuse_external
        p.StartElementHandler = self._start_survey if survey else self._start
        p.EndElementHandler = self._end_survey if survey else self._end
        p.CharacterDataHandler = self._text_survey if survey else self._text
        self._depth = 0  # survey: depth inside the current object
        p.buffer_text = True
        p.buffer_size = CHUNK
        # outside an object: element, raw name of each normalised child; inside: element, odd spellings of its
        # children (None until one occurs), its path in the object
        self._stack: list[list[Any]] = []
        self._ready: deque[RawObject | Header] = deque()
        self._object: ET.Element | None = None
        self._paths: dict[str, ET.Element] = {}
        self._collision: NameCollision | None = None
        self._objects = 0
        self.root: str | None = None
        self._provider: dict[str, str] = {}
        self._provider_text: list[str] | None = None
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

    def _where(self) -> str:
        return "/".join(entry[0].tag for entry in self._stack[-2:])

    def _start(self, raw: str, attrib: dict[str, str]) -> None:
        if self._object is not None:  # the hot path: an element inside an object
            name = normalise_name(raw)
            stack = self._stack
            parent = stack[-1]
            odd = parent[1]
            if raw != name or (odd is not None and name in odd):
                self._odd_child(parent, raw, name)
            element = ET.SubElement(parent[0], name, self._attributes(name, attrib) if attrib else {})
            path = parent[2] + "/" + name if parent[2] else name
            paths = self._paths
            if path not in paths:
                paths[path] = element
            stack.append([element, None, path])
            return
        self._start_outside(raw, attrib)

    def _start_survey(self, raw: str, attrib: dict[str, str]) -> None:
        if self._object is not None:
            self._depth += 1
        else:
            self._start_outside(raw, attrib)

    def _end_survey(self, raw: str) -> None:
        if self._depth:
            self._depth -= 1
        else:
            self._end(raw)

    def _text_survey(self, data: str) -> None:
        if self._object is None and self._provider_text is not None:
            self._provider_text.append(data)

    def _odd_child(self, parent: list[Any], raw: str, name: str) -> None:
        """A child spelled otherwise than the schema, or a schema spelling after another one: a collision when a
        sibling spelled the same name differently (earlier schema spellings are the siblings' own tags)."""
        odd = parent[1]
        if odd is None:
            odd = parent[1] = {}
        earlier = odd.get(name)
        if earlier is None and parent[0].find(name) is not None:
            earlier = name
        if earlier is not None and earlier != raw:
            self._collision = self._collision or NameCollision(self._where(), local_name(earlier), local_name(raw), name)
        odd.setdefault(name, raw)

    def _attributes(self, name: str, attrib: dict[str, str]) -> dict[str, str]:
        result = {normalise_name(key): value for key, value in attrib.items()}
        if len(result) == len(attrib):
            return result
        where = f"{self._where()}/{name}" if self._stack else name
        try:  # two spellings of one attribute: name both
            normalise_attributes(where, attrib)
        except NameCollision as collision:
            if self._object is None and name != "immobilie":
                self._refusal = TransferError("collision", collision.german() + " Bitte die Datei beim Absender berichtigen.")
                raise _Refused from None
            self._collision = self._collision or collision
        return result

    def _start_outside(self, raw: str, attrib: dict[str, str]) -> None:
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
        else:
            seen = self._stack[-1][1]
            earlier = seen.setdefault(name, raw)
            if earlier != raw:
                collision = NameCollision(self._where(), local_name(earlier), local_name(raw), name)
                if name != "immobilie":
                    self._refusal = TransferError("collision", collision.german() + " Bitte die Datei beim Absender berichtigen.")
                    raise _Refused
                self._collision = self._collision or collision
        element = ET.Element(name, self._attributes(name, attrib) if attrib else {})
        if name == "anbieter":
            self._provider = {}
        if name == "immobilie":
            self._object = element
            self._paths = {}
            self._stack.append([element, None, ""])
            return
        if name in PROVIDER_IDS and self._stack[-1][0].tag == "anbieter":
            self._provider_text = []
        self._stack.append([element, {}, None])

    def _end(self, raw: str) -> None:
        element = self._stack.pop()[0]
        text = element.text
        if text is not None:
            element.text = text.strip() or None
        if self._object is None:
            self._end_outside(element)
        elif element is self._object:
            self._objects += 1
            if self.header is None:  # portal exports leave <uebertragung> out: read as TEIL, and say so
                self.header = Header(scope="partial", version=None, sender=None, warnings=[NO_HEADER], assumed=True)
                self._ready.append(self.header)
            provider = next((self._provider[k] for k in PROVIDER_IDS if self._provider.get(k)), None)
            self._ready.append(RawObject(element, self._objects, self._collision, provider, self._paths))
            self._object = None
            self._collision = None

    def _end_outside(self, element: ET.Element) -> None:
        if self._provider_text is not None:
            self._provider.setdefault(element.tag, "".join(self._provider_text).strip())
            self._provider_text = None
        if element.tag == "uebertragung" and self.header is None:
            self.header = _header(element)
            self._ready.append(self.header)

    def _text(self, data: str) -> None:
        if self._object is not None:
            element = self._stack[-1][0]
            element.text = data if element.text is None else element.text + data
        elif self._provider_text is not None:
            self._provider_text.append(data)  # text between objects is never kept, so memory stays flat

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
        if self.header is None:  # no <uebertragung> and no object: nothing to do, said as for any transfer without it
            self.header = Header(scope="partial", version=None, sender=None, warnings=[NO_HEADER], assumed=True)
            yield self.header


NO_HEADER = (
    "Die Übertragung hat kein Element ‹uebertragung› (so kommen Exporte von Portalen); sie wird als Teilübertragung "
    "(TEIL) gelesen, es wird also nichts zurückgezogen, außer Objekten mit aktion DELETE."
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
