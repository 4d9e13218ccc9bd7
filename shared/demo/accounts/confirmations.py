"""Confirmations waiting for a click: reply drafts to open inquiries of office 1, and one that expired."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from shared.confirmations.tokens import payload_hash
from shared.demo.accounts.ground import Ground
from shared.demo.accounts.inquiries import Thread
from shared.demo.clock import DEMO_NOW
from shared.demo.rows import Row


def pending_confirmations(ground: Ground, threads: list[Thread]) -> list[Row]:
    """Reply drafts to the three oldest open inquiries of office 1 after the oldest, whose draft expired."""
    rng = ground.rng
    office = ground.offices.get(1)
    waiting = [t for t in threads if t.status == "open" and t.listing.office_id == 1]
    if office is None or not waiting:
        return []
    waiting.sort(key=lambda t: t.created_at)  # oldest first
    expired, drafts = waiting[0], waiting[1:4]
    rows = []
    members = ground.people.members.get(1, [])
    for thread, status in [*((t, "pending") for t in drafts), (expired, "expired")]:
        author = members[len(rows) % len(members)] if members else None
        if status == "pending":
            created = max(thread.created_at, DEMO_NOW - dt.timedelta(hours=20)) + dt.timedelta(
                minutes=rng.randint(5, 60)
            )
            created = min(created, DEMO_NOW - dt.timedelta(minutes=2))
            expires = DEMO_NOW + dt.timedelta(days=2)
        else:  # a draft nobody confirmed in time
            created = thread.created_at + (DEMO_NOW - thread.created_at) * 0.3
            expires = created + dt.timedelta(days=2)
            if expires >= DEMO_NOW:
                continue
        assert thread.letters is not None
        body = thread.letters.office_reply(created, first=True, author=author)
        token = secrets.token_urlsafe(32)  # never stored; no card can click a demo confirmation (the web app can)
        author_name = author.name if author else ground.people.users[0].name
        payload = {
            "kind": "send_reply",
            "inquiry_id": thread.ref,
            "listing_id": thread.listing.ref,
            "office_id": 1,
            "author_id": author.id if author else ground.people.users[0].id,
            "recipient": f"{thread.profile.get('name') or 'die/der Suchende (Name nicht freigegeben)'} (Anfrage {thread.ref})",
            "sender": f"{author_name}, {office.name}",
            "subject": f"Antwort zu „{thread.listing.title}“ ({thread.listing.ref})",
            "text": body,
            "shared_contact": [],
        }
        rows.append(
            {
                "id": len(rows) + 1,
                "ref": f"C-{len(rows) + 1:06d}",
                "kind": "send_reply",
                "user_id": author.id if author else ground.people.users[0].id,
                "office_id": 1,
                "subject_ref": thread.ref,
                "payload": payload,
                "payload_hash": payload_hash(payload),
                "summary": (
                    f"Antwort an {thread.seeker.name} auf die Anfrage {thread.ref} zum Inserat "
                    f"{thread.listing.ref}"
                )[:500],
                "status": status,
                "token_hash": hashlib.sha256(token.encode()).hexdigest(),
                "created_at": created,
                "expires_at": expires,
            }
        )
    return rows
