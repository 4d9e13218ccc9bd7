"""The page "Konfiguration": every ATHAUS_* variable of shared/settings.py with its default and a German meaning.

tests/test_docs.py fails when a setting has no meaning here, so a new setting is documented or the build is red."""

from __future__ import annotations

import json
from typing import Any

from athaus.docs.markdown import mono, page, table
from shared.settings import Settings

ENV_PREFIX = "ATHAUS_"

SETTING_MEANINGS: dict[str, str] = {
    "database_url": (
        "SQLAlchemy-URL der Datenbank. Vorgabe ist die eingebettete SQLite-Datei unter `var/`; im Betrieb "
        "PostgreSQL, etwa `postgresql+psycopg://athaus@db.example/athaus`."
    ),
    "public_url": (
        "Die Adresse, unter der Clients diese Installation erreichen. Aussteller (`issuer`), Ressourcen-URLs der beiden "
        "Server (RFC 8707) und die Metadaten leiten sich daraus ab. Sie beginnt mit https (sonst verweigert `athaus serve` "
        "den Start); http geht nur mit `127.0.0.1`, `localhost` oder `[::1]` auf einer Bindung auf Loopback. "
        "Ohne Angabe folgt sie der Bindung von `athaus serve` (`--host`/`--port`, etwa `http://127.0.0.1:8741`); passt "
        "eine gesetzte Loopback-Adresse nicht zur Bindung, sagt der Start das als Warnung."
    ),
    "development": (
        "Entwicklungsmodus: `athaus token` darf Tokens ausstellen, und nur dann nehmen die Server solche Tokens an; "
        "`athaus serve` legt die Demodaten an (Demo-Konten mit veröffentlichten Passwörtern); Cookies dürfen auf "
        "http-Loopback ohne `Secure` auskommen. Nie an bei einer öffentlichen Adresse außerhalb von Loopback: dort schaltet "
        "der Start ihn ab (und sagt es), ausdrücklich `true` gesetzt verweigert er den Start. Auf einer Bindung außerhalb "
        "von Loopback (`ATHAUS_HOST`/`--host`, etwa `0.0.0.0`) verweigert der Start ihn immer, was die öffentliche Adresse "
        "auch sagt. Das Container-Image setzt ihn auf `false`."
    ),
    "host": (
        "Adresse, auf der `athaus serve` lauscht (`--host` überschreibt sie). Außerhalb von Loopback (`0.0.0.0`, `::`, "
        "eine Netzadresse) nur im Betrieb: mit `ATHAUS_DEVELOPMENT=false` und einer https-Adresse in `ATHAUS_PUBLIC_URL`; "
        "das Container-Image lauscht auf `0.0.0.0`."
    ),
    "port": "Port, auf dem `athaus serve` lauscht (`--port` überschreibt ihn).",
    "allowed_hosts": (
        "JSON-Liste weiterer `Host`-Kopfzeilen, die alle Wege annehmen (OAuth, Anmeldeseiten, Web-App, Zustand, "
        "Dokumentation, MCP-Endpunkte; Schutz vor DNS-Rebinding); `name:*` erlaubt jeden Port. Immer angenommen sind "
        "der Host der öffentlichen Adresse mit ihrem Port und Loopback-Namen (`127.0.0.1`, `localhost`, `[::1]`) am "
        "Port, auf dem der Server lauscht; ein Loopback-Name an einem anderen Port bekommt wie jeder andere Host HTTP 421."
    ),
    "allowed_origins": (
        "JSON-Liste der `Origin`-Kopfzeilen, die die MCP-Endpunkte annehmen; andere bekommen HTTP 403. Anfragen ohne "
        "`Origin` (Server-zu-Server, etwa von ChatGPT oder Claude) gehen immer durch."
    ),
    "card_hosts": (
        "JSON-Liste weiterer OAuth-Clients, die die Bestätigungskarte zeigen, neben den eingebauten ChatGPT und Claude: "
        "Redirect-Adressen (genau so, wie der Client sie registriert; jede seiner Adressen muss eingebaut oder hier "
        "genannt sein), Adressen von Client-Metadaten-Dokumenten oder Client-IDs (etwa eines externen "
        "Autorisierungsservers). Nur ein solcher Client bekommt das Token der Karte und kann mit „Senden“ oder "
        "„Verwerfen“ in der Karte etwas auslösen; jeder andere bekommt die Adresse der Athaus-Bestätigungsseite, "
        "was immer er über sich sagt."
    ),
    "openapi": (
        "Das OpenAPI-Dokument der HTTP-Endpunkte (OAuth, Anmeldeseiten, Web-App, Zustand; nicht die MCP-Endpunkte) "
        "unter `/openapi.json` ausliefern. Ohne Angabe nur im Entwicklungsmodus; im Betrieb nur, wenn ausdrücklich "
        "`true` gesetzt."
    ),
    "secret_key": (
        "Schlüssel, der Cursor, Anmeldesitzungen und CSRF-Tokens signiert. Ohne Angabe wird einmal ein zufälliger "
        "erzeugt und in der Datenbank abgelegt; setzen, wenn Instanzen keine gemeinsame Datenbank haben."
    ),
    "cursor_ttl_seconds": "Wie lange ein Seiten-Cursor gültig bleibt, in Sekunden.",
    "call_deadline_seconds": (
        "Frist eines MCP-Aufrufs in Sekunden (Werkzeug, Vervollständigung, Ressource, Prompt): innerhalb dieser Zeit "
        "kommt die Antwort. Die Datenbankarbeit bekommt sie abzüglich einer Reserve (ein Fünftel, höchstens 2 s); "
        "danach wird die Abfrage abgebrochen (`TIME_BUDGET_EXCEEDED`), und eine Datenbank, die gar nicht antwortet, "
        "ergibt zur Frist `SOURCE_UNAVAILABLE`."
    ),
    "read_cache_entries": (
        "Wie viele Antworten öffentlicher Katalog-Lesezugriffe jeder Arbeitsprozess je Katalogstand aufbewahrt; "
        "0 schaltet diesen Zwischenspeicher ab (zum Messen der Suche selbst)."
    ),
    "workers": (
        "Arbeitsprozesse von `athaus serve` (`--workers` überschreibt sie). Ohne Angabe: einer je CPU-Kern mit "
        "PostgreSQL, einer mit SQLite."
    ),
    "max_request_bytes": (
        "Größter Anfragekörper, den ein MCP-Endpunkt annimmt, in Bytes; größere bekommen HTTP 413."
    ),
    "request_read_seconds": (
        "Zeit in Sekunden, in der ein Client eine Anfrage vollständig sendet (Kopfzeilen und Körper), gezählt ab ihrem "
        "ersten Byte oder ab dem Öffnen der Verbindung; eine langsamere Verbindung wird geschlossen. So hält ein Client, "
        "der nur einen halben Körper schickt, keine Verbindung minutenlang fest."
    ),
    "drain_seconds": (
        "Auslaufzeit nach SIGTERM in Sekunden: So lange nimmt eine Instanz noch neue Anfragen an, meldet unter "
        "`/healthz/ready` aber schon 503 und schließt nach jeder Antwort die Verbindung, damit Proxy und Load Balancer "
        "auf die anderen Instanzen wechseln. Danach nimmt sie keine Verbindungen mehr an, beendet die laufenden Aufrufe "
        "(innerhalb ihrer Frist), übergibt die letzten Spans dem Exporter und endet. 0: sofort beenden."
    ),
    "registrations_per_minute": (
        "Wie viele dynamische Client-Registrierungen (`/register`) je Absenderadresse und Minute angenommen werden; "
        "weitere bekommen HTTP 429 mit `Retry-After`. Registrierungen, die einen Tag lang nicht genutzt wurden, "
        "verfallen. Hinter einem Proxy zählt die Adresse aus `X-Forwarded-For`, wenn uvicorn dem Proxy traut."
    ),
    "limit_calls_per_person_per_minute": (
        "Wie viele Werkzeugaufrufe eine Person je Minute machen kann (über alle Instanzen, in der Datenbank gezählt; wie genau, steht unter „Fristen und Grenzen“ im Betrieb); "
        "weitere bekommen `RATE_LIMITED` mit der Wartezeit in Sekunden (`_meta[\"athaus/retryAfter\"]`). 0: keine Grenze."
    ),
    "limit_calls_per_client_per_minute": (
        "Wie viele Werkzeugaufrufe eine verbundene Anwendung (OAuth-Client) je Minute machen kann, über alle Personen "
        "zusammen; eine Anwendung wie Claude oder ChatGPT ist für viele Personen ein Client, daher höher. 0: keine Grenze."
    ),
    "limit_calls_per_office_per_minute": (
        "Wie viele Werkzeugaufrufe alle Personen eines Maklerbüros zusammen je Minute machen können. 0: keine Grenze."
    ),
    "limit_writes_per_person_per_minute": (
        "Wie viele ändernde Aufrufe (speichern, ändern, entwerfen, senden) eine Person je Minute machen kann; sie zählen "
        "auch als Aufrufe. 0: keine Grenze."
    ),
    "limit_writes_per_client_per_minute": "Wie viele ändernde Aufrufe eine verbundene Anwendung je Minute machen kann. 0: keine Grenze.",
    "limit_writes_per_office_per_minute": "Wie viele ändernde Aufrufe ein Maklerbüro je Minute machen kann. 0: keine Grenze.",
    "demo_seed": (
        "Legt beim Start von `athaus serve` im Entwicklungsmodus die Demodaten an, wenn der Katalog leer ist "
        "(`scripts/serve` tut das). Ein Start im Betrieb (Entwicklungsmodus aus) legt nie Demodaten an, was auch hier "
        "steht; dafür gibt es `athaus demo seed`. Das erste Büro legt `athaus office create` an."
    ),
    "demo_listings": "Wie viele Inserate die Demodaten haben.",
    "log_level": (
        "Protokollstufe. Protokolle gehen auf stderr, eine Zeile `tool_call` je Aufruf (Werkzeug, Ergebniscode, Dauer)."
    ),
    "log_format": (
        "Form der Protokollzeilen: `json` (ein JSON-Objekt je Zeile, für Maschinen), `text` (kurze deutsche Zeilen: "
        "Uhrzeit, Stufe, was geschah) oder `auto` (Vorgabe): `text` im Entwicklungsmodus an einem Terminal, sonst `json`."
    ),
    "stream_responses": (
        "`true`: jede MCP-Anfrage wird als SSE-Strom beantwortet. `false` (Vorgabe): eine JSON-Antwort je Anfrage, "
        "außer ein Aufruf bittet um Fortschritt (`_meta.progressToken`, etwa bei `import_listings`): der kommt als "
        "Strom, damit die Fortschrittsmeldungen ankommen."
    ),
    "openimmo_max_bytes": (
        "Größte OpenImmo-Übertragung in Bytes, die `import_listings` liest, als Argument wie von der Feed-Adresse; "
        "größere werden abgelehnt, bevor etwas geändert ist."
    ),
    "openimmo_fetch_timeout_seconds": "Zeitlimit in Sekunden für das Laden der OpenImmo-Feed-Adresse eines Büros.",
    "images_dir": (
        "Ordner der gespeicherten Bilder (Fotos und Grundrisse importierter Inserate, ohne Metadaten), ausgeliefert unter "
        "`/bilder/…`. Alle Instanzen einer Installation müssen denselben Ordner sehen (in Compose ein gemeinsames Volume)."
    ),
    "oauth_issuer": (
        "Aussteller eines externen Autorisierungsservers. Dann entfällt der eingebaute, und beide Server nehmen nur "
        "dessen JWT-Zugangstokens an (`aud` = Ressourcen-URL des Servers, `scope` mit Leerzeichen getrennt). Nur zusammen "
        "mit `ATHAUS_OAUTH_JWKS_URL`."
    ),
    "oauth_jwks_url": "JWKS des externen Autorisierungsservers, mit dessen Schlüsseln die Tokens geprüft werden.",
    "oauth_user_claim": (
        "Bei einem externen Aussteller: der Claim des Tokens, der die E-Mail-Adresse des Athaus-Kontos trägt."
    ),
    "otlp_endpoint": (
        "OTLP/HTTP-Endpunkt für Traces (etwa `http://collector:4318`): jede HTTP-Anfrage, jeder Werkzeugaufruf und jede "
        "Datenbankabfrage wird ein Span. Ohne Angabe gilt die Standardvariable `OTEL_EXPORTER_OTLP_ENDPOINT`; ohne beide "
        "werden keine Spans exportiert."
    ),
    "metrics_token": (
        "Token, mit dem der Betreiber `/metrics` (Prometheus) abruft: `Authorization: Bearer <Token>`. Ohne Angabe gibt "
        "es `/metrics` nicht (HTTP 404); ein falsches oder fehlendes Token bekommt HTTP 401."
    ),
    "confirmation_ttl_hours": "Wie lange eine vorbereitete Tat (Entwurf) auf ihren Klick wartet, in Stunden; danach `CONFIRMATION_EXPIRED`.",
    "smtp_host": "SMTP-Server für die E-Mails, die eine gesendete Nachricht ankündigen. Ohne Angabe gehen keine E-Mails hinaus; der Verlauf bei Athaus ist immer sofort da.",
    "smtp_port": "Port des SMTP-Servers.",
    "smtp_user": "Benutzername beim SMTP-Server (ohne Angabe: ohne Anmeldung).",
    "smtp_password": "Passwort beim SMTP-Server.",
    "smtp_starttls": "Mit STARTTLS verschlüsseln (`true` im Betrieb mit einem fremden SMTP-Server).",
    "mail_from": "Absender der E-Mails.",
    "outbox_worker": "Stellt den Postausgang aus dem laufenden Server zu. `false`: stattdessen `athaus outbox run` laufen lassen.",
    "outbox_poll_seconds": "Wie oft der Postausgang nach fälligen E-Mails sieht, in Sekunden.",
    "outbox_max_attempts": "Zustellversuche je E-Mail; danach erfährt die Absenderin oder der Absender, dass sie nicht zugestellt wurde.",
    "outbox_retry_seconds": "Wartezeit vor dem zweiten Versuch, in Sekunden; sie verdoppelt sich mit jedem weiteren.",
}


def env_name(setting: str) -> str:
    return ENV_PREFIX + setting.upper()


def _default(value: Any, name: str = "") -> str:
    if name == "public_url":
        return f"folgt der Bindung ({mono('http://127.0.0.1:8000')})"
    if value is None:
        return "nicht gesetzt"
    if isinstance(value, bool):
        return mono("true" if value else "false")
    if isinstance(value, list):
        return mono(json.dumps(value))
    return mono(str(value))


def configuration_page() -> str:
    rows = [
        [mono(env_name(name)), _default(field.get_default(call_default_factory=True), name), SETTING_MEANINGS[name]]
        for name, field in Settings.model_fields.items()
    ]
    return page(
        [
            "# Konfiguration",
            "",
            "Alle Einstellungen sind Umgebungsvariablen mit dem Präfix `ATHAUS_`. Listen werden als JSON geschrieben, "
            "etwa `ATHAUS_ALLOWED_HOSTS='[\"mcp.example.de\"]'`. Wie man die Server startet und betreibt, steht unter "
            "[Betrieb](betrieb.md).",
            "",
            *table(["Variable", "Vorgabe", "Bedeutung"], rows),
        ]
    )
