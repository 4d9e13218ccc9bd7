"""An object's photos and floor plans that a ZIP transfer carries as files: stored in Athaus's image store and shown
at stable URLs under the public address (`/bilder/<name>`). A file the transfer does not hold, or that is no image
the store accepts, is named in the object's result, never left out in silence."""

from __future__ import annotations

from shared.images import ImageRefused, ImageStore
from shared.openimmo import ParsedObject
from shared.stock_import.transfer_zip import Attachments

IMAGE_PATH = "/bilder/"


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
