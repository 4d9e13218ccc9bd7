"""Every account list says which office or account it is limited to: under `request`, with source `login`, by a
readable name (the office's name, the user's display name), never by an internal id. Another login gets its own."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from broker_server.server import DEFINITION as BROKER
from shared.db.models import Office, User
from shared.db.session import Database
from tests.conftest import Caller, make_context
from tests.test_broker_office import principal
from tests.test_seeker_account import seeker
from tests.wire_helpers import echoed

OFFICE_LISTS = ["show_situation_report", "search_listings", "search_inquiries", "list_valuations", "list_proposals"]
ACCOUNT_LISTS = ["list_search_orders", "list_matches", "list_inquiries"]


def names(db: Database, model: type[Office] | type[User], ids: list[int]) -> dict[int, str]:
    with db.read_only() as session:
        return dict(session.execute(select(model.id, model.name).where(model.id.in_(ids))).all())  # type: ignore[attr-defined]


@pytest.mark.parametrize("tool", OFFICE_LISTS)
def test_every_office_list_echoes_the_office_of_the_login(tool: str, demo_db: Database) -> None:
    base = Caller(BROKER, make_context(demo_db))
    office_names = names(demo_db, Office, [1, 2])
    assert office_names[1] != office_names[2]
    for office_id in (1, 2):
        result = base.as_(principal(demo_db, office_id))(tool, {})
        assert echoed(result, "office") == {"value": office_names[office_id], "source": "login"}
        assert [name for name, source in result["request_sources"].items() if source == "login"] == ["office"], "only the office is from the login"


@pytest.mark.parametrize("tool", ["search_listings", "search_inquiries"])
def test_an_empty_page_echoes_the_office_too(tool: str, demo_db: Database) -> None:
    """These two name the office from the rows of their page; a page without rows reads the name on its own."""
    base = Caller(BROKER, make_context(demo_db))
    office_names = names(demo_db, Office, [1, 2])
    for office_id in (1, 2):
        result = base.as_(principal(demo_db, office_id))(tool, {"query": "Zwergpinguinwarte"})
        assert result["total"] == 0
        assert echoed(result, "office") == {"value": office_names[office_id], "source": "login"}


@pytest.mark.parametrize("tool", ACCOUNT_LISTS)
def test_every_seeker_list_echoes_the_account_of_the_login(tool: str, search: Caller, demo_db: Database) -> None:
    with demo_db.read_only() as session:
        two = list(session.scalars(select(User.id).where(User.kind == "seeker").order_by(User.id).limit(2)))
    display = names(demo_db, User, two)
    for user_id in two:
        result = search.as_(seeker(user_id))(tool, {})
        assert echoed(result, "account") == {"value": display[user_id], "source": "login"}
        assert str(user_id) not in str(result["request"]["account"])
    nameless = search.as_(seeker(990_002))(tool, {})
    assert echoed(nameless, "account") == {"value": "dein Konto", "source": "login"}
