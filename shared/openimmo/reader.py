"""A hardened, streaming reader of OpenImmo transfers: one `<immobilie>` at a time, memory flat.

The elements are built by ElementTree's C parser (expat underneath, `XMLPullParser`), so a feed reads at C speed
(bench/openimmo_import.py `--read-only`); Python looks at each element's start and end only outside the objects,
and once per object when its `</immobilie>` has been read. The guards stay ours and visible: the prolog is first
read by a bare expat parser that refuses a document type declaration (and with it any entity declaration, internal
or external) before the C parser sees a byte of it; entity references other than XML's five are not expanded (expat
reports them as undefined); the input is counted while it is read and refused beyond the size limit.

Names are normalised at this boundary (`names.py`, rule 13): outside an object as each element starts, inside one
in a single walk when the object is complete; a name spelled otherwise than the schema spells it is checked against
its siblings (a collision refuses the object, in the header the transfer). The walk indexes every element under its
path in the object (`RawObject.paths`, the first in document order, as `Element.find` would return it), so the
mapping reads a field with one dict lookup. A finished object (and every finished element outside one) is taken out
of the tree, so nothing read stays in memory.

Texts are kept as the parser gives them; the mapping strips them (and reads the text after a `<br/>` in a
description as the description's).
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


class _RootReached(Exception):
    pass


DOCTYPE_REFUSED = (
    "Die Datei enthält eine Dokumenttyp-Deklaration (DOCTYPE); aus Sicherheitsgründen werden solche Dateien "
    "nicht gelesen. Bitte die Übertragung ohne DOCTYPE exportieren."
)

_names: dict[str, str] = {}  # raw name → canonical (normalise_name without its cache's bookkeeping)


_canonical: set[str] = set()  # names the schema spells so (normalise_name leaves them as they are)


def _name(raw: str) -> str:
    name = _names.get(raw)
    if name is None:
        name = normalise_name(raw)
        if len(_names) < 8192:  # a transfer spells a few hundred names; a hostile one cannot grow this without end
            _names[raw] = name
    return name


class _Prolog:
    """A bare expat parser over the bytes before the root element: a DOCTYPE (the only place entities can be
    declared) is refused before the tree parser reads it. Done at the root's start."""

    def __init__(self) -> None:
        self.parser: Any = expat.ParserCreate()
        p = self.parser
        p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        p.StartDoctypeDeclHandler = p.EntityDeclHandler = self._refuse
        p.ExternalEntityRefHandler = self._refuse
        p.StartElementHandler = self._root

    def _refuse(self, *args: object) -> None:
        raise _Refused

    def _root(self, *args: object) -> None:
        raise _RootReached

    def feed(self, chunk: bytes, done: bool) -> bool:
        """True once the root element has started (nothing more to check)."""
        try:
            self.parser.Parse(chunk, done)
        except _RootReached:
            return True
        except _Refused:
            raise TransferError("doctype", DOCTYPE_REFUSED) from None
        except expat.ExpatError:
            return True  # not well-formed: the tree parser reports it, with line and column
        return False


class TransferReader:
    """Feeds the source to the parser chunk by chunk and yields the header first, then each object."""

    def __init__(self, source: BinaryIO, *, max_bytes: int, survey: bool = False) -> None:
        """`survey`: check the whole transfer and count its objects, without reading inside them (each RawObject then
        has an empty element): what the import does before it writes anything."""
        self._source = source
        self._max_bytes = max_bytes
        self._survey = survey
        self._read = 0
        # outside objects: [element, raw name of each normalised child]
        self._stack: list[list[Any]] = []
        self._ready: deque[RawObject | Header] = deque()
        self._object: ET.Element | None = None
        self._collision: NameCollision | None = None  # of the object being read (its own attributes)
        self._objects = 0
        self.root: str | None = None
        self._provider: dict[str, str] = {}
        self.header: Header | None = None

    # --- outside the objects: each element as it starts and ends ---------------------------------------------

    def _where(self) -> str:
        return "/".join(entry[0].tag for entry in self._stack[-2:])

    def _start(self, element: ET.Element) -> None:
        raw = element.tag
        name = _name(raw)
        if not self._stack:
            self.root = name
            if name != "openimmo":
                raise TransferError(
                    "schema",
                    f"Die Datei ist keine OpenImmo-Übertragung: das oberste Element heißt ‹{local_name(raw)}› statt "
                    "‹openimmo›. Bitte eine OpenImmo-XML-Datei (Version 1.2.x) übergeben.",
                )
        else:
            seen = self._stack[-1][1]
            earlier = seen.setdefault(name, raw)
            if earlier != raw:
                collision = NameCollision(self._where(), local_name(earlier), local_name(raw), name)
                if name != "immobilie":
                    raise TransferError("collision", collision.german() + " Bitte die Datei beim Absender berichtigen.")
                self._collision = self._collision or collision
        element.tag = name
        if element.attrib:
            self._attributes(element, name)
        if name == "anbieter":
            self._provider = {}
        if name == "immobilie":
            self._object = element
            return
        self._stack.append([element, {}])

    def _attributes(self, element: ET.Element, name: str) -> None:
        attrib = element.attrib
        named = {_name(key): value for key, value in attrib.items()}
        if len(named) < len(attrib):
            where = f"{self._where()}/{name}" if self._stack else name
            try:  # two spellings of one attribute: name both
                normalise_attributes(where, attrib)
            except NameCollision as collision:
                if name != "immobilie":
                    raise TransferError("collision", collision.german() + " Bitte die Datei beim Absender berichtigen.") from None
                self._collision = self._collision or collision
        element.attrib = named

    def _end(self, element: ET.Element) -> None:
        self._stack.pop()
        parent = self._stack[-1][0] if self._stack else None
        name = element.tag
        if name in PROVIDER_IDS and parent is not None and parent.tag == "anbieter":
            self._provider.setdefault(name, (element.text or "").strip())
        elif name == "uebertragung" and self.header is None:
            self.header = _header(element)
            self._ready.append(self.header)
        _drop(parent, element)  # read: nothing outside the objects is kept

    def _end_object(self, element: ET.Element) -> None:
        self._objects += 1
        self._object = None
        if self.header is None:  # portal exports leave <uebertragung> out: read as TEIL, and say so
            self.header = Header(scope="partial", version=None, sender=None, warnings=[NO_HEADER], assumed=True)
            self._ready.append(self.header)
        provider = next((self._provider[k] for k in PROVIDER_IDS if self._provider.get(k)), None)
        collision, self._collision = self._collision, None
        parent = self._stack[-1][0] if self._stack else None
        where = f"{parent.tag}/immobilie" if parent is not None else "immobilie"
        _drop(parent, element)
        if self._survey:
            self._ready.append(RawObject(_EMPTY, self._objects, collision, provider))
            return
        paths: dict[str, ET.Element] = {}
        found = _normalise(element, where, paths)
        self._ready.append(RawObject(element, self._objects, collision or found, provider, paths))

    # --- reading ------------------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[RawObject | Header]:
        # The C parser builds the tree without a call into Python per element: only the root's start is reported
        # (`_setevents`, what XMLPullParser and iterparse are built on), then no events at all. After each chunk the
        # tree is read from the front: an element with a later sibling (or once the file has ended) is complete.
        events: list[tuple[str, ET.Element]] = []
        parser = ET.XMLParser(target=ET.TreeBuilder())
        parser._setevents(events, ("start",))  # type: ignore[attr-defined]
        prolog: _Prolog | None = _Prolog()
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
            if prolog is not None and prolog.feed(chunk, done):
                prolog = None
            error = None
            try:
                if chunk:
                    parser.feed(chunk)
                else:
                    parser.close()
            except ET.ParseError as failed:
                error = failed
            if events:  # the root has started
                root = events[0][1]
                parser._setevents(events, ())  # type: ignore[attr-defined]
                events.clear()
                self._start(root)
            if self._stack:
                self._collect(0, done and error is None)  # a collision in the header comes before a later error
            if error is not None:
                raise _malformed(error) from None
            while self._ready:
                yield self._ready.popleft()
        if self.header is None:  # no <uebertragung> and no object: nothing to do, said as for any transfer without it
            self.header = Header(scope="partial", version=None, sender=None, warnings=[NO_HEADER], assumed=True)
            yield self.header

    def _collect(self, level: int, closed: bool) -> None:
        """Read the complete children of the open element at `level` of the stack, in document order, each taken out
        of the tree once read. `closed`: the element itself is complete."""
        element = self._stack[level][0]
        while len(element):
            child = element[0]
            complete = closed or len(element) > 1
            if child is not self._object and not (len(self._stack) > level + 1 and self._stack[level + 1][0] is child):
                self._start(child)
            if child is self._object:
                if not complete:
                    return
                self._end_object(child)
                continue
            self._collect(level + 1, complete)
            if not complete:
                return
            self._end(child)


_EMPTY = ET.Element("immobilie")


def _drop(parent: ET.Element | None, element: ET.Element) -> None:
    """Take a finished element out of its parent (read from the front, it is the first child)."""
    if parent is not None:
        parent.remove(element)


def _normalise(element: ET.Element, where: str, paths: dict[str, ET.Element]) -> NameCollision | None:
    """Normalise the names in a complete object and index its elements under their paths; the first collision, if
    any. Feeds mostly spell every element as the schema does: then one pass over the tags says so, only the
    attributes are renamed (the schema spells many in capitals: KAUF, MIETE_PACHT), and the paths are indexed two
    deep (the mapping reads deeper ones relative to those, with Element.find)."""
    nodes = list(element.iter())
    tags = {node.tag for node in nodes}
    if not tags <= _canonical:
        for tag in tags - _canonical:
            if _name(tag) != tag:
                return _walk(element, "", where, paths)
            if len(_canonical) < 8192:
                _canonical.add(tag)
    for node in nodes:
        items = node.items()  # not node.attrib: that would give each element without attributes a dict of its own
        if items:
            named = {(_names.get(key) or _name(key)): value for key, value in items}
            if len(named) < len(items):  # two spellings of one attribute: the careful walk names them
                paths.clear()
                return _walk(element, "", where, paths)
            node.attrib = named
    # built from the back, so the first in document order is the one a path keeps
    paths.update({child.tag: child for child in reversed(element)})
    paths.update({child.tag + "/" + grandchild.tag: grandchild for child in reversed(element) for grandchild in reversed(child)})
    return None


def _walk(element: ET.Element, prefix: str, where: str, paths: dict[str, ET.Element]) -> NameCollision | None:
    """Normalise the names under `element` (in document order), index each child under its path, and return the first
    collision: two children of one parent (or two attributes of one element) whose spellings mean the same name.
    `where`: the element's parent and its own name, as a collision names them."""
    collision = None
    odd: dict[str, str] | None = None  # name → raw spelling of the children spelled otherwise than the schema
    here = where.rsplit("/", 1)[-1]
    for index, child in enumerate(element):
        raw = child.tag
        name = _names.get(raw) or _name(raw)
        if name != raw or (odd is not None and name in odd):
            odd = {} if odd is None else odd
            earlier = odd.get(name)
            if earlier is None and any(sibling.tag == name for sibling in element[:index]):
                earlier = name
            if earlier is not None and earlier != raw and collision is None:
                collision = NameCollision(where, local_name(earlier), local_name(raw), name)
            odd.setdefault(name, raw)
            child.tag = name
        path = prefix + name
        if path not in paths:
            paths[path] = child
        attrib = child.attrib
        if attrib:  # the schema spells many attributes in capitals (KAUF, MIETE_PACHT): renamed, checked if two meet
            named = {(_names.get(key) or _name(key)): value for key, value in attrib.items()}
            if len(named) < len(attrib):
                try:
                    normalise_attributes(f"{where}/{name}", attrib)
                except NameCollision as found:
                    collision = collision or found
            child.attrib = named
        if len(child):
            found = _walk(child, path + "/", f"{here}/{name}", paths)
            collision = collision or found
    return collision


def _malformed(error: ET.ParseError) -> TransferError:
    line, column = error.position
    return TransferError(
        "malformed",
        f"Die Datei ist kein wohlgeformtes XML (Zeile {line}, Spalte {column + 1}: "
        f"{_EXPAT_GERMAN.get(error.code, 'Syntaxfehler')}). Bitte die Datei beim Absender berichtigen.",
    )


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
