"""The German pages of the web app `/app/`: login and the list of pending confirmations.

Every dynamic value passes through `html.escape`; no script runs on these pages (the buttons are plain forms).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from starlette.responses import HTMLResponse, Response

from shared.confirmations import PendingView
from shared.web.pages import SECURITY_HEADERS, secured
from shared.webapp.listing import STYLE as LISTING_STYLE

APP_PATH = "/app/"
LOGIN_PATH = "/app/anmelden"
LOGOUT_PATH = "/app/abmelden"
DECIDE_PATH = "/app/bestaetigungen"
SETTINGS_PATH = "/app/ohne-klick"
STAFF_PATH = "/app/mitarbeitende"
MY_DATA_PATH = "/app/meine-daten"
OFFICE_PATH = "/app/buero"

# What an office owner may let run without a click (shared.confirmations: OFFICE_KINDS), in German.
WITHOUT_CLICK_LABELS = {
    "send_reply": "Antworten auf Anfragen an das Büro senden",
    "decide_proposal": "Vorschläge annehmen (das Exposé geht an die oder den Suchenden)",
}

STYLE = """
:root{color-scheme:light dark;--bg:#f4f1ec;--card:#fff;--text:#1d1d1b;--muted:#5b5955;--border:#d9d4cc;--accent:#a0522d;
--accent-text:#fff;--soft:#f6f3ee;--ring:#1a5fb4;--ok:#1e6b34;--ok-bg:#e8f5ec;--info:#7a4b00;--info-bg:#fff4e0;--err:#b00020;--err-bg:#fdecee}
@media (prefers-color-scheme:dark){:root{--bg:#151413;--card:#1f1e1c;--text:#f3f1ed;--muted:#bdb8b0;--border:#45423d;--accent:#e08a5c;
--accent-text:#1d1d1b;--soft:#2a2926;--ring:#8ab4f8;--ok:#7fd498;--ok-bg:#1b3323;--info:#f3c26b;--info-bg:#3a2d12;--err:#ff8a95;--err-bg:#3d1d21}}
body{font-family:system-ui,sans-serif;background:var(--bg);color:var(--text);margin:0;line-height:1.45}
header{display:flex;justify-content:space-between;align-items:center;gap:1rem;max-width:44rem;margin:1.5rem auto 0;padding:0 1rem}
header form{margin:0}
.brand{font-weight:700;color:var(--accent);margin:0}
.who{color:var(--muted);font-size:.9rem;margin:0 .75rem 0 0}
main{max-width:44rem;margin:1rem auto 3rem;padding:0 1rem}
h1{font-size:1.4rem;margin:.5rem 0 1rem}
h2{font-size:1.05rem;margin:0 0 .6rem}
article,.panel{background:var(--card);border:1px solid var(--border);border-radius:.6rem;padding:1rem 1.2rem;margin:0 0 1rem}
.panel{max-width:28rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;margin:0 0 .8rem}
dt{color:var(--muted);font-size:.85rem}
dd{margin:0;overflow-wrap:anywhere}
.body{background:var(--soft);border-radius:.4rem;padding:.6rem .8rem;white-space:pre-wrap;overflow-wrap:anywhere;margin:0 0 .8rem}
.label{color:var(--muted);font-size:.85rem;margin:0 0 .25rem}
.expiry{color:var(--muted);font-size:.85rem;margin:0 0 .8rem}
.actions{display:flex;gap:.75rem;flex-wrap:wrap}
label{display:block;margin:.75rem 0 .25rem}
input[type=email],input[type=password],input[type=text],select{width:100%;padding:.5rem;box-sizing:border-box;font:inherit}
table{border-collapse:collapse;width:100%;margin:0 0 1rem}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--border);vertical-align:middle}
td form{display:inline-flex;gap:.4rem;margin:0}
td select{width:auto}
nav.who a{color:inherit}
button{font:inherit;font-weight:600;padding:.5rem 1.1rem;border-radius:.4rem;border:1px solid var(--accent);background:transparent;color:var(--text);cursor:pointer}
button.primary{background:var(--accent);color:var(--accent-text)}
button.link{border:none;padding:.25rem .5rem;font-weight:400;text-decoration:underline}
button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid var(--ring);outline-offset:2px}
.notice{border-radius:.4rem;padding:.7rem .9rem;margin:0 0 1rem}
.notice.done{background:var(--ok-bg);color:var(--ok)}
.notice.info{background:var(--info-bg);color:var(--info)}
.notice.error{background:var(--err-bg);color:var(--err)}
.empty{color:var(--muted)}
fieldset{border:1px solid var(--border);border-radius:.4rem;margin:0 0 .8rem;padding:.5rem .8rem}
fieldset label{display:flex;gap:.5rem;align-items:baseline;margin:.3rem 0}
h2.section{margin-top:2rem}
"""


@dataclass(frozen=True)
class Notice:
    kind: str  # done | info | error
    text: str


def header_of(user_name: str, csrf_token: str, *, owner: bool = False) -> str:
    """Who is signed in, the pages of the web app, and the logout button."""
    staff = f'<a href="{STAFF_PATH}">Mitarbeitende</a> · <a href="{OFFICE_PATH}">Büro</a> · ' if owner else ""
    return (
        f'<div style="display:flex;align-items:center;gap:.5rem"><nav class="who"><a href="{APP_PATH}">Bestätigungen</a> · '
        f'{staff}<a href="{MY_DATA_PATH}">Meine Daten</a></nav><p class="who">Angemeldet als {escape(user_name)}</p>'
        f'<form method="post" action="{LOGOUT_PATH}"><input type="hidden" name="csrf_token" value="{escape(csrf_token)}">'
        '<button class="link" type="submit">Abmelden</button></form></div>'
    )


def page(title: str, body: str, status: int = 200, *, header: str = "") -> Response:
    return _page(title, body, status, header=header)


def notice_html(notice: Notice | None) -> str:
    return _notice(notice)


def _page(title: str, body: str, status: int = 200, *, header: str = "", head: str = "", wide: bool = False) -> Response:
    """`wide`: a page showing listings (their pieces' style, room for the gallery, photos of this deployment allowed)."""
    style = STYLE + LISTING_STYLE if wide else STYLE
    css = ' class="wide"' if wide else ""
    document = (
        '<!doctype html><html lang="de"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · Athaus</title>{head}<style>{style}</style></head>"
        f"<body><header{css}><p class=\"brand\">Athaus</p>{header}</header>"
        f"<main{css}><h1>{escape(title)}</h1>{body}</main></body></html>"
    )
    response = secured(HTMLResponse(document, status_code=status))
    if wide:  # the photos are served from this deployment only (shared.webapp.listing)
        response.headers["Content-Security-Policy"] = SECURITY_HEADERS["Content-Security-Policy"].replace("default-src 'none';", "default-src 'none'; img-src 'self';")
    return response


def listing_page(title: str, body: str, status: int = 200, *, header: str = "", head: str = "") -> Response:
    """A page that shows a listing or listing cards (shared.webapp.listing builds the body)."""
    return _page(title, body, status, header=header, head=head, wide=True)


def _notice(notice: Notice | None) -> str:
    if notice is None:
        return ""
    role = "alert" if notice.kind == "error" else "status"
    return f'<p class="notice {escape(notice.kind)}" role="{role}">{escape(notice.text)}</p>'


def login_page(
    *,
    csrf_token: str,
    email: str = "",
    notice: Notice | None = None,
    status: int = 200,
    weiter: str = "",
    forgot_url: str | None = None,
    signup_url: str | None = None,
) -> Response:
    """`weiter`: the web app page the person came for, opened after the login (a link from a result, e.g. a record)."""
    onward = f'<input type="hidden" name="weiter" value="{escape(weiter)}">' if weiter else ""
    body = (
        '<div class="panel">'
        "<p>Hier bestätigst du, was dein Assistent für dich vorbereitet hat. Melde dich mit deinem Athaus-Konto an.</p>"
        f"{_notice(notice)}"
        f'<form method="post" action="{LOGIN_PATH}">'
        f'<input type="hidden" name="csrf_token" value="{escape(csrf_token)}">{onward}'
        '<label for="email">E-Mail-Adresse</label>'
        f'<input id="email" name="email" type="email" autocomplete="username" required value="{escape(email)}">'
        '<label for="password">Passwort</label>'
        '<input id="password" name="password" type="password" autocomplete="current-password" required>'
        '<div class="actions" style="margin-top:1.2rem"><button class="primary" type="submit">Anmelden</button></div>'
        "</form>"
        + (f'<p><a href="{escape(forgot_url)}">Passwort vergessen?</a></p>' if forgot_url else "")
        + (f'<p>Noch kein Konto? <a href="{escape(signup_url)}">Konto anlegen</a></p>' if signup_url else "")
        + "</div>"
    )
    return _page("Bei Athaus anmelden", body, status)


def _fact(label: str, value: str) -> str:
    return f"<dt>{escape(label)}</dt><dd>{escape(value)}</dd>" if value else ""


def _item(view: PendingView, csrf_token: str, *, page: bool = False) -> str:
    facts = _fact("Art", view.action_label) + _fact("An", view.recipient) + _fact("Von", view.sender) + _fact("Betreff", view.subject)
    body = f'<p class="label">Das geht hinaus:</p><div class="body">{escape(view.text)}</div>' if view.text else ""
    shared = "".join(_fact(label, value) for label, value in view.shared_contact)
    if shared:
        body += f'<p class="label">Diese Angaben aus deinem Konto gehen mit:</p><dl>{shared}</dl>'
    ident = escape(view.confirmation_id)
    return (
        f'<article aria-labelledby="t-{ident}" data-confirmation="{ident}">'
        f'<h2 id="t-{ident}">{escape(view.summary)}</h2>'
        f"<dl>{facts}</dl>{body}"
        f'<p class="expiry">{escape(view.confirmation_id)}, {escape(view.expires_text)}.</p>'
        f'<form method="post" action="{DECIDE_PATH}">'
        f'<input type="hidden" name="csrf_token" value="{escape(csrf_token)}">'
        f'<input type="hidden" name="confirmation_id" value="{ident}">'
        f'<input type="hidden" name="payload_hash" value="{escape(view.payload_hash)}">'
        + ('<input type="hidden" name="von" value="seite">' if page else "")
        +
        '<div class="actions">'
        '<button class="primary" type="submit" name="entscheidung" value="send">Senden</button>'
        '<button type="submit" name="entscheidung" value="discard">Verwerfen</button>'
        "</div></form></article>"
    )


def _without_click(allowed: dict[str, bool], csrf_token: str) -> str:
    """The office owner's setting: which kinds run without a person's click."""
    boxes = "".join(
        f'<label><input type="checkbox" name="ohne_klick" value="{escape(kind)}"{" checked" if on else ""}>'
        f"{escape(WITHOUT_CLICK_LABELS.get(kind, kind))}</label>"
        for kind, on in allowed.items()
    )
    return (
        '<h2 class="section" id="ohne-klick">Ohne Klick (für dein Büro)</h2><div class="panel" style="max-width:none">'
        "<p>Was du hier anhakst, führt ein Assistent für alle in deinem Büro ohne Klick aus; sein Ergebnis sagt dann, "
        "dass es ohne Klick hinausging. Alles andere wartet wie bisher auf einen Klick.</p>"
        f'<form method="post" action="{SETTINGS_PATH}"><input type="hidden" name="csrf_token" value="{escape(csrf_token)}">'
        f'<fieldset><legend>Ohne Klick ausführen:</legend>{boxes}</fieldset>'
        '<div class="actions"><button type="submit">Speichern</button></div></form></div>'
    )


def list_page(
    *,
    user_name: str,
    items: Sequence[PendingView],
    csrf_token: str,
    notice: Notice | None = None,
    status: int = 200,
    without_click: dict[str, bool] | None = None,
) -> Response:
    header = header_of(user_name, csrf_token, owner=without_click is not None)
    if items:
        listing = "".join(_item(view, csrf_token) for view in items)
        intro = (
            "<p>Das hat dein Assistent vorbereitet. Es geht erst hinaus, wenn du auf „Senden“ klickst; "
            "„Verwerfen“ löscht den Entwurf.</p>"
        )
    else:
        listing = '<p class="empty">Nichts wartet auf deine Bestätigung.</p>'
        intro = ""
    setting = _without_click(without_click, csrf_token) if without_click is not None else ""
    return _page("Wartende Bestätigungen", f"{_notice(notice)}{intro}{listing}{setting}", status, header=header)


def confirmation_page(
    *, user_name: str, view: PendingView | None, done: str | None, confirmation_id: str, csrf_token: str, listing: str = ""
) -> Response:
    """Athaus's own page of one draft (`/app/bestaetigungen/C-…`): exactly what goes out, Senden and Verwerfen; the
    place every result names, for a person whose chat shows no card."""
    header = (
        f'<div style="display:flex;align-items:center"><p class="who">Angemeldet als {escape(user_name)}</p>'
        f'<form method="post" action="{LOGOUT_PATH}"><input type="hidden" name="csrf_token" value="{escape(csrf_token)}">'
        '<button class="link" type="submit">Abmelden</button></form></div>'
    )
    if view is not None:
        intro = (
            "<p>Das hat dein Assistent vorbereitet. Lies es genau: es geht erst hinaus, wenn du auf „Senden“ klickst; "
            "„Verwerfen“ löscht den Entwurf.</p>"
        )
        body = intro + _item(view, csrf_token, page=True) + listing
    elif done is not None:
        body = f'<p class="notice info" role="status">{escape(confirmation_id)}: {escape(done)}</p>'
    else:
        body = f'<p class="notice error" role="alert">Eine Bestätigung {escape(confirmation_id)} gibt es in deinem Konto nicht.</p>'
    body += f'<p><a href="{APP_PATH}">Alles, was auf dich wartet</a></p>'
    status = 200 if view is not None or done is not None else 404
    return _page(f"Bestätigung {confirmation_id}", body, status, header=header, wide=bool(listing))


def error_page(title: str, message: str, status: int) -> Response:
    return _page(title, f'<p class="notice error" role="alert">{escape(message)}</p><p><a href="{APP_PATH}">Zurück zur Übersicht</a></p>', status)
