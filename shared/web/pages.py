"""Server-rendered German pages of the sign-in: login, consent, refusal, error.

Every dynamic value passes through `html.escape`. Every response carries headers that forbid framing
(clickjacking a consent button is the classic attack on this page) and caching.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from urllib.parse import quote

from starlette.responses import HTMLResponse, RedirectResponse, Response

from contract.rights import Right

LOGIN_PATH = "/oauth/anmelden"
CONSENT_PATH = "/oauth/zustimmung"
SIGNUP_PATH = "/oauth/konto-anlegen"
FORGOT_PATH = "/oauth/passwort-vergessen"

SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the pages' own forms, which
    # the origin check (shared/auth/cors.py SameOrigin) cannot tell from a sandboxed frame of another site
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}

STYLE = """
body{font-family:system-ui,sans-serif;background:#f4f1ec;color:#1d1d1b;margin:0}
main{max-width:30rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:.5rem;box-shadow:0 1px 4px #0002}
.brand{font-weight:700;color:#a0522d;margin:0 0 1rem}
label{display:block;margin:.75rem 0 .25rem}
input[type=email],input[type=password],input[type=text]{width:100%;padding:.5rem;box-sizing:border-box}
.hint{color:#555;font-size:.9em}
fieldset{border:1px solid #ddd;border-radius:.25rem;margin:1rem 0}
fieldset label{display:flex;gap:.5rem;align-items:baseline}
code{color:#666;font-size:.85em}
.actions{display:flex;gap:1rem;margin-top:1.5rem}
button{padding:.6rem 1.2rem;border-radius:.25rem;border:1px solid #a0522d;background:#fff;cursor:pointer}
button.primary{background:#a0522d;color:#fff}
.error{color:#b00020}
.warning{background:#fff4e5;padding:.75rem;border-radius:.25rem}
"""


def carrying(path: str, request_token: str) -> str:
    """The address of a sign-in page with the pending authorization request it works on."""
    return f"{path}?anfrage={quote(request_token)}"


def secured(response: Response) -> Response:
    response.headers.update(SECURITY_HEADERS)
    return response


def see_other(url: str) -> Response:
    return secured(RedirectResponse(url, status_code=303))


def _page(title: str, body: str, status: int) -> Response:
    document = (
        '<!doctype html><html lang="de"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · Athaus</title><style>{STYLE}</style></head>"
        f'<body><main><p class="brand">Athaus</p><h1>{escape(title)}</h1>{body}</main></body></html>'
    )
    return secured(HTMLResponse(document, status_code=status))


def page(title: str, body: str, status: int = 200) -> Response:
    return _page(title, body, status)


def _hidden(csrf_token: str, request_token: str) -> str:
    return (
        f'<input type="hidden" name="csrf_token" value="{escape(csrf_token)}">'
        f'<input type="hidden" name="anfrage" value="{escape(request_token)}">'
    )


def _other_account(request_token: str, user_name: str) -> str:
    return f'<p><a href="{escape(carrying(LOGIN_PATH, request_token))}">Nicht {escape(user_name)}? Mit einem anderen Konto anmelden</a></p>'


def error_page(title: str, message: str, status: int = 400) -> Response:
    return _page(title, f"<p>{escape(message)}</p>", status)


def login_page(
    *, client_name: str, server_title: str, request_token: str, csrf_token: str, email: str = "", failed: bool = False
) -> Response:
    error = '<p class="error" role="alert">E-Mail-Adresse oder Passwort stimmt nicht.</p>' if failed else ""
    body = (
        f"<p><strong>{escape(client_name)}</strong> möchte sich mit <strong>{escape(server_title)}</strong> verbinden. "
        "Melde dich mit deinem Athaus-Konto an.</p>"
        f'{error}<form method="post" action="{LOGIN_PATH}">{_hidden(csrf_token, request_token)}'
        '<label for="email">E-Mail-Adresse</label>'
        f'<input id="email" name="email" type="email" autocomplete="username" required value="{escape(email)}">'
        '<label for="password">Passwort</label>'
        '<input id="password" name="password" type="password" autocomplete="current-password" required>'
        '<div class="actions"><button class="primary" type="submit">Anmelden</button></div></form>'
        f'<p><a href="{escape(carrying(FORGOT_PATH, request_token))}">Passwort vergessen?</a></p>'
        f'<p>Noch kein Konto? <a href="{escape(carrying(SIGNUP_PATH, request_token))}">Konto anlegen</a></p>'
    )
    return _page("Bei Athaus anmelden", body, 400 if failed else 200)


def consent_page(
    *,
    client_name: str,
    server_title: str,
    user_name: str,
    user_email: str,
    redirect_host: str,
    loopback: bool,
    rights: Sequence[Right],
    request_token: str,
    csrf_token: str,
) -> Response:
    boxes = "".join(
        f'<label><input type="checkbox" name="scope" value="{escape(right.scope or "")}" checked>'
        f"{escape(right.label)} <code>{escape(right.scope or '')}</code></label>"
        for right in rights
    )
    warning = (
        f'<p class="warning">Diese Anwendung läuft auf deinem Gerät ({escape(redirect_host)}). Erlaube den Zugriff nur, '
        "wenn du die Verbindung gerade selbst gestartet hast.</p>"
        if loopback
        else ""
    )
    body = (
        f"<p><strong>{escape(client_name)}</strong> möchte auf <strong>{escape(server_title)}</strong> zugreifen, "
        f"mit deinem Konto {escape(user_name)} ({escape(user_email)}).</p>"
        f'<form method="post" action="{CONSENT_PATH}">{_hidden(csrf_token, request_token)}'
        f"<fieldset><legend>Diese Rechte erteilst du:</legend>{boxes}</fieldset>"
        "<p>Du kannst Rechte abwählen; die Anwendung bekommt dann nur die ausgewählten.</p>"
        f"{warning}<p>Danach geht es zurück zu <strong>{escape(redirect_host)}</strong>.</p>"
        '<div class="actions"><button class="primary" type="submit" name="entscheidung" value="erlauben">Erlauben</button>'
        '<button type="submit" name="entscheidung" value="ablehnen">Ablehnen</button></div></form>'
        f"{_other_account(request_token, user_name)}"
    )
    return _page("Zugriff erlauben?", body, 200)


def refusal_page(*, message: str, user_name: str, request_token: str, csrf_token: str) -> Response:
    """The account cannot grant what is asked (a seeker at the broker server, or the reverse)."""
    body = (
        f"<p>{escape(message)}</p>"
        f'<form method="post" action="{CONSENT_PATH}">{_hidden(csrf_token, request_token)}'
        '<div class="actions"><button type="submit" name="entscheidung" value="ablehnen">Zurück zur Anwendung</button></div>'
        f"</form>{_other_account(request_token, user_name)}"
    )
    return _page("Dieses Konto passt nicht", body, 403)


def too_many_attempts(wait: int) -> Response:
    """Every password form's answer when its throttle is used up: the same whether or not an account exists."""
    minutes = max(1, -(-wait // 60))
    response = error_page(
        "Zu viele Anmeldeversuche",
        f"Für diese E-Mail-Adresse oder von diesem Anschluss gab es zu viele Versuche. "
        f"Bitte in {minutes} {'Minute' if minutes == 1 else 'Minuten'} erneut versuchen.",
        status=429,
    )
    response.headers["Retry-After"] = str(wait)
    return response
