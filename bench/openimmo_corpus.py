"""The OpenImmo corpus as the test of the import: every file of `../shared/openimmo-corpus/` imported into a fresh
database, each accepted object compared field by field with `corpus-truth.json` (what a broker expects, read from the
XML independently by the corpus's own `make-corpus-truth.py`).

Each compared field is one of:
- right:    the listing holds what the truth expects;
- wrong:    it holds something else, and the object's result does not say why;
- assumed:  it holds something the file does not say outright, and the result says so (an assumption);
- named:    the listing has no value, and the result names the element as not imported (said, not silent);
- dropped:  the truth has a value, the listing has none, and nothing says so (silently lost).

    python -m bench.openimmo_corpus [--corpus DIR] [--objects]

The corpus holds files from public repositories; it stays in `../shared/` and the project commits none of it
(SOURCES.md names each origin and licence).
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from contract.broker_import import ImportListingsOutput, ObjectResult
from contract.envelope import Absent
from contract.vocabulary import TransferSource
from shared.db.migrate import upgrade
from shared.db.models import Listing, OfficeMember
from shared.db.session import Database
from shared.demo import DEMO_NOW, seed_demo
from shared.listing_view import warm_rent_of
from shared.openimmo.mapping import PROPERTY_TYPES
from shared.stock_import import import_transfer

OFFICE = 1
MAX_BYTES = 64 * 1024 * 1024
CORPUS_ENV = "ATHAUS_OPENIMMO_CORPUS"
ACCEPTED = ("created", "changed", "unchanged")
KINDS = ("right", "wrong", "assumed", "named", "dropped")


def corpus_dir() -> Path:
    """`$ATHAUS_OPENIMMO_CORPUS`, else `../shared/openimmo-corpus/` beside the checkout (as the workspace lays it out)."""
    configured = os.environ.get(CORPUS_ENV)
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2] / "shared" / "openimmo-corpus"


def corpus_missing(folder: Path) -> str | None:
    """Why the corpus cannot be used here (None: it can)."""
    if not (folder / "corpus-truth.json").is_file():
        return f"OpenImmo corpus not found at {folder} (set {CORPUS_ENV}); it is kept outside the project, see its SOURCES.md"
    return None


@dataclass
class FieldCheck:
    file: str
    position: int
    key: str | None
    field: str
    kind: str  # one of KINDS
    expected: Any
    actual: Any


@dataclass
class FileRun:
    file: str
    output: ImportListingsOutput
    checks: list[FieldCheck] = field(default_factory=list)


def _num(value: Any) -> Any:
    return round(float(value), 2) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def expected_fields(truth: dict[str, Any], assumed_marketing: str | None = None) -> dict[str, Any]:
    """The listing fields a broker expects of one truth object (None: the file gives no value). `assumed_marketing`:
    the marketing type the import assumed (and said) where the file has none and the truth infers none either; the
    prices then follow it as make-corpus-truth.py reads them for an inferred rent."""
    marketing = truth["marketing"] if truth["marketing"] in ("buy", "rent") else truth.get("marketing_inferred")
    if marketing is None and assumed_marketing == "rent":
        truth = {**truth, "expected_price": truth["kaltmiete"] if truth["kaltmiete"] is not None else truth["nettokaltmiete"],
                 "expected_service_charges": truth["nebenkosten"]}
        if truth["expected_price"] is not None and truth["nebenkosten"] is not None and truth["heizkosten_enthalten"]:
            truth["expected_warm_rent"] = truth["expected_price"] + truth["nebenkosten"]
    kind = truth["property_kind"] or truth.get("property_inferred")
    energy = truth["energy"] or {}
    price = truth["expected_price"]
    expected: dict[str, Any] = {
        "marketing_type": marketing,
        "property_type": PROPERTY_TYPES.get(kind.split("/")[0]) if kind else None,
        "postal_code": truth["postal_code"],
        "city": truth["town"],
        "district": truth["district"],
        "street": truth["street"],
        "house_number": truth["house_number"],
        "title": truth["title"],
        "price": price if price else None,  # a price of 0 is no price (the truth says so of TP891)
        "service_charges": truth["expected_service_charges"],
        "warm_rent": truth["expected_warm_rent"],
        "living_area": truth["living_area"],
        "plot_area": truth["plot_area"],
        "rooms": truth["rooms"],
        "year_built": truth["year_built"],
        "energy_certificate_type": {"BEDARF": "demand", "VERBRAUCH": "consumption"}.get((energy.get("epart") or "").upper()),
        "energy_value": energy.get("value"),
        "energy_class": energy.get("wertklasse"),
        "energy_year_built": int(energy["baujahr"]) if (energy.get("baujahr") or "").isdigit() else None,
        "energy_valid_until": energy.get("gueltig_bis"),
        "heating_fuel": bool(energy.get("primaerenergietraeger") or truth["firing"]) or None,
        "features": sorted(truth["features"]) or None,
        "photos": truth["photos_expected"] or None,
    }
    for text in truth["texts_present"]:
        expected[f"text:{text}"] = True
    return expected


def actual_fields(listing: Listing) -> dict[str, Any]:
    warm = warm_rent_of(listing)
    actual: dict[str, Any] = {
        "marketing_type": listing.marketing_type,
        "property_type": listing.property_type,
        "postal_code": listing.postal_code,
        "city": listing.city,
        "district": listing.district,
        "street": listing.street,
        "house_number": listing.house_number,
        "title": listing.title,
        "price": listing.price,
        "service_charges": listing.service_charges,
        "warm_rent": None if isinstance(warm, Absent) else warm.amount,
        "living_area": listing.living_area,
        "plot_area": listing.plot_area,
        "rooms": listing.rooms,
        "year_built": listing.year_built,
        "energy_certificate_type": listing.energy_certificate_type,
        "energy_value": listing.energy_value,
        "energy_class": listing.energy_class,
        "energy_year_built": listing.energy_year_built,
        "energy_valid_until": listing.energy_valid_until.isoformat() if listing.energy_valid_until else None,
        "heating_fuel": bool(listing.energy_carrier) or None,
        "features": sorted(f.feature for f in listing.features) or None,
        "photos": len(listing.photos or []) or None,
    }
    for text, column in TEXT_COLUMNS.items():  # kept, in its own field, as plain text (no markup left)
        value = getattr(listing, column, None)
        actual[f"text:{text}"] = (bool(value) and "<br" not in value.lower()) or None
    return actual


# which listing column keeps each free text of <freitexte> (objekt_text is the description where objektbeschreibung is absent)
TEXT_COLUMNS = {"objektbeschreibung": "description", "objekt_text": "description", "lage": "location_text",
                "ausstatt_beschr": "equipment_text", "sonstige_angaben": "other_text"}


# the elements that hold a listing field, as the result names them when they are not imported
ELEMENTS = {"photos": ("anhaenge/anhang", "anhang")}
# fields that follow the marketing type: assumed where it is
FOLLOW_MARKETING = ("price", "service_charges", "warm_rent")


def _said(result: ObjectResult, name: str) -> tuple[bool, bool]:
    """(assumed, named as not imported) for one listing field, from the object's result."""
    assumed = {note.field for note in result.assumptions}
    named = {note.field for note in result.not_imported}
    if name in FOLLOW_MARKETING and "marketing_type" in assumed:
        return True, False
    return name in assumed, name in named or any(e in named for e in ELEMENTS.get(name, ()))


def classify(expected: Any, actual: Any, assumed: bool, named: bool) -> str | None:
    """The kind of one field's comparison; None when neither the truth nor the listing has a value."""
    if expected is None and actual is None:
        return None
    same = _num(expected) == _num(actual)
    if same:
        return "assumed" if assumed else "right"
    if actual is None:
        return "named" if named else "dropped"
    return "assumed" if assumed else "wrong"


def import_file(db: Database, path: Path, user_id: int | None, now: dt.datetime) -> ImportListingsOutput:
    return import_transfer(
        db, io.BytesIO(path.read_bytes()), source_kind=TransferSource.upload, office_id=OFFICE, user_id=user_id,
        client_id="corpus", max_bytes=MAX_BYTES, publish=False, now=now,
    )


def run_corpus(db: Database, folder: Path, now: dt.datetime = DEMO_NOW) -> list[FileRun]:
    """Import every file of the corpus (in name order) and compare each accepted object with the truth."""
    truth = {entry["file"]: entry for entry in json.loads((folder / "corpus-truth.json").read_text(encoding="utf-8"))}
    with db.read_only() as session:
        user_id = session.scalar(select(OfficeMember.user_id).where(OfficeMember.office_id == OFFICE).order_by(OfficeMember.user_id).limit(1))
    runs = []
    for path in sorted(folder.glob("*.xml")):
        output = import_file(db, path, user_id, now)
        run = FileRun(path.name, output)
        runs.append(run)
        results = {r.position: r for r in output.results if r.position}
        for obj in truth.get(path.name, {"objects": []})["objects"]:
            result = results.get(obj["position"])
            if result is None or result.outcome.value not in ACCEPTED or isinstance(result.listing_id, Absent):
                continue
            with db.read_only() as session:
                listing = session.scalar(select(Listing).where(Listing.ref == result.listing_id).options(selectinload(Listing.features)))
                assert listing is not None
                actual = actual_fields(listing)
            assumed_marketing = actual["marketing_type"] if any(n.field == "marketing_type" for n in result.assumptions) else None
            for name, want in expected_fields(obj, assumed_marketing).items():
                assumed, named = _said(result, name.split(":")[0] if not name.startswith("text:") else name)
                kind = classify(want, actual.get(name), assumed, named)
                if kind is not None:
                    run.checks.append(FieldCheck(path.name, obj["position"], obj["objektnr_extern"], name, kind, want, actual.get(name)))
    return runs


def table(runs: list[FileRun]) -> str:
    per_field: dict[str, Counter[str]] = {}
    for run in runs:
        for check in run.checks:
            per_field.setdefault(check.field, Counter())[check.kind] += 1
    lines = [f"{'field':<26}" + "".join(f"{k:>9}" for k in KINDS)]
    total: Counter[str] = Counter()
    for name in sorted(per_field):
        counts = per_field[name]
        total.update(counts)
        lines.append(f"{name:<26}" + "".join(f"{counts[k]:>9}" for k in KINDS))
    lines.append(f"{'all fields':<26}" + "".join(f"{total[k]:>9}" for k in KINDS))
    read = [o for r in runs for o in r.output.results if o.position]  # not the withdrawals a VOLL transfer adds
    accepted = sum(1 for o in read if o.outcome.value in ACCEPTED)
    withdrawn = sum(1 for o in read if o.outcome.value == "withdrawn")
    lines.append(f"objects in the files: {len(read)}, accepted: {accepted}, withdrawn (aktion DELETE): {withdrawn}, "
                 f"refused: {len(read) - accepted - withdrawn}")
    return "\n".join(lines)


def fresh_database(tmp: Path) -> Database:
    db = Database.from_url(f"sqlite:///{tmp / 'corpus.sqlite3'}")
    upgrade(db.engine)
    seed_demo(db.engine, listings=20)
    return db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=None, help="the corpus folder (default: ../shared/openimmo-corpus)")
    parser.add_argument("--objects", action="store_true", help="also list every field that is not right")
    args = parser.parse_args()
    folder = args.corpus or corpus_dir()
    missing = corpus_missing(folder)
    if missing:
        raise SystemExit(missing)
    with tempfile.TemporaryDirectory() as tmp:
        db = fresh_database(Path(tmp))
        runs = run_corpus(db, folder)
        db.engine.dispose()
    for run in runs:
        print(f"## {run.file}: {run.output.summary}")
        for result in run.output.results:
            reason = result.reason if isinstance(result.reason, str) else ""
            print(f"   {result.position} {result.objektnr_extern if isinstance(result.objektnr_extern, str) else '-'} "
                  f"{result.outcome.value} {reason}")
        if args.objects:
            for check in run.checks:
                if check.kind != "right":
                    print(f"      {check.position} {check.field}: {check.kind} (expected {check.expected!r}, got {check.actual!r})")
    print()
    print(table(runs))


if __name__ == "__main__":
    main()
