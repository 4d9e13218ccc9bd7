"""An object's photos and floor plans that a ZIP transfer carries as files: stored in Athaus's image store and shown
at stable URLs under the public address (`/bilder/<name>`). A file the transfer does not hold, or that is no image
the store accepts, is named in the object's result, never left out in silence.

Photos the transfer names at a public URL (`<anhang location="REMOTE">`) are fetched into the store through the one
outbound check (shared/outbound.py: https, global addresses only, bounded in time and size), so the listing shows
its own copy; one that cannot be had is named the same way."""

from __future__ import annotations

import anyio

from shared.images import MAX_IMAGE_BYTES, ImageRefused, ImageStore
from shared.outbound import FetchRefused, fetch_public
from shared.openimmo import ParsedObject
from shared.stock_import.transfer_zip import Attachments

IMAGE_PATH = "/bilder/"
PHOTO_SECONDS = 15.0
PHOTO_REDIRECTS = 3
WHY_NOT = {  # FetchRefused.kind: why a remote photo could not be had
    "timeout": f"Die Adresse hat nicht innerhalb von {PHOTO_SECONDS:g} Sekunden geantwortet.",
    "refused": "Die Adresse ist keine öffentliche https-Adresse.",
    "unresolved": "Den Namen der Adresse gibt es nicht.",
    "redirects": "Die Adresse leitet öfter weiter als erlaubt.",
}


def fetch_photo(url: str) -> bytes | str:
    """The photo at a public URL (at most MAX_IMAGE_BYTES), or why not (one German sentence). Runs in the import's
    worker thread."""

    async def fetch() -> bytes | str:
        fetched = await fetch_public(url, max_bytes=MAX_IMAGE_BYTES, timeout=PHOTO_SECONDS, accept="image/jpeg, image/png, image/webp",
                                     redirects=PHOTO_REDIRECTS, purpose="openimmo_photo")
        if fetched.too_large:
            return f"Das Bild ist größer als {MAX_IMAGE_BYTES // (1024 * 1024)} MB."
        if fetched.status != 200:
            return f"Die Adresse antwortet mit HTTP {fetched.status} statt mit dem Bild."
        return fetched.body

    try:
        return anyio.run(fetch)
    except FetchRefused as refused:
        return WHY_NOT.get(refused.kind, "Die Adresse war nicht erreichbar.")


def image_url(public_url: str, name: str) -> str:
    return public_url.rstrip("/") + IMAGE_PATH + name


def _listed(names: list[str]) -> str:
    return ", ".join(names[:3]) + (" …" if len(names) > 3 else "")


def store_files(obj: ParsedObject, attachments: Attachments | None, store: ImageStore | None, public_url: str, *,
                preview: bool = False) -> ParsedObject:
    """The object's files stored and added to its photos (title photo first); what cannot be had, named. `preview`:
    only looked up, nothing stored."""
    if obj.refusal is not None or not obj.files:
        return obj
    named = len(obj.files) + len(obj.fields.get("photos") or [])
    _store_files(obj, attachments, store, public_url, preview=preview)
    if not obj.fields.get("photos") and obj.fields.get("photos") is not None:
        obj.fields["photos_note"] = (f"Die Übertragung nannte {named} Fotos, die nicht geladen werden konnten."
                                     if named > 1 else "Die Übertragung nannte ein Foto, das nicht geladen werden konnte.")
    return obj


def _store_files(obj: ParsedObject, attachments: Attachments | None, store: ImageStore | None, public_url: str, *,
                 preview: bool) -> ParsedObject:
    remote = [item for item in obj.files if item.get("remote")]
    obj.files = [item for item in obj.files if not item.get("remote")]
    if remote:
        _fetch_remote(obj, remote, store, public_url, preview=preview)
    if not obj.files:
        return obj
    if attachments is None or store is None:
        by_where: dict[str, list[str]] = {}
        for item in obj.files:
            by_where.setdefault(item["where"], []).append(item["url"])
        for where, names in by_where.items():
            obj.not_imported.append((where, f"{len(names)} Fotos als Dateien der Übertragung ({_listed(names)}); die Dateien "
                                     "kommen nur in einer ZIP-Übertragung mit (zip_base64 oder ZIP an der Feed-Adresse)."))
        if not obj.fields.get("photos"):  # the XML without its ZIP: the photos an earlier ZIP brought stay
            obj.fields["photos"] = None
        return obj
    photos = list(obj.fields.get("photos") or [])
    for item in obj.files:
        try:
            data = attachments.read(item["url"]) if not preview else b"" if attachments.find(item["url"]) else None
            if data is None:
                obj.not_imported.append((item["where"], f"Die Datei ‹{item['url']}› fehlt in der ZIP-Übertragung."))
                continue
            if preview:
                continue
            stored = store.put(data)
        except ImageRefused as refused:
            obj.not_imported.append((item["where"], f"Die Datei ‹{item['url']}› ist nicht übernommen: {refused.german}"))
            continue
        except ValueError:
            obj.not_imported.append((item["where"], f"Die Datei ‹{item['url']}› ist größer, als ein Bild sein darf."))
            continue
        photos.append({"url": image_url(public_url, stored.name), "caption": item["caption"][:200], "group": item["group"]})
    obj.fields["photos"] = sorted(photos, key=lambda p: p.get("group") != "title")
    return obj


def _fetch_remote(obj: ParsedObject, remote: list[dict[str, str]], store: ImageStore | None, public_url: str, *, preview: bool) -> None:
    """The photos at public URLs fetched into the store (title photo first); without a store (or in a preview) they
    stay links."""
    photos = list(obj.fields.get("photos") or [])
    for item in remote:
        photo = {"url": item["url"], "caption": item["caption"][:200], "group": item["group"]}
        if store is None or preview:
            photos.append(photo)
            continue
        got = fetch_photo(item["url"])
        if isinstance(got, str):
            obj.not_imported.append((item["where"], f"Das Foto ‹{item['url']}› konnte nicht geladen werden: {got}"))
            continue
        try:
            stored = store.put(got)
        except ImageRefused as refused:
            obj.not_imported.append((item["where"], f"Das Foto ‹{item['url']}› ist nicht übernommen: {refused.german}"))
            continue
        photos.append({**photo, "url": image_url(public_url, stored.name)})
    obj.fields["photos"] = sorted(photos, key=lambda p: p.get("group") != "title")
