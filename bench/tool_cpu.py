"""CPU per call of each tool of the mixed workload, in-process (issue 21): the handlers alone, without HTTP.

    python -m bench.tool_cpu --backend postgresql --calls 200
    python -m bench.tool_cpu --backend sqlite --calls 200

A fresh demo database (the catalog `athaus serve` seeds in development), then each tool of bench/load.py's mixed
workload called `--calls` times with the same argument generator and seed, through the same runner as the HTTP servers
(right check, read cache, validation of the result; shared.runtime.adapter.ToolRunner) as the demo seeker resp. the
demo office owner. Printed per tool: CPU milliseconds per call of this process (all its threads) and SQL statements
per call. The machine is shared: compare before/after in the same conditions, CPU rather than wall time.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import random
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from sqlalchemy import event, select

from bench.load import BROKER, BROKER_MIX, DEFAULT_POSTGRES_URL, SEEKER, SEEKER_MIX, Refs, _broker_arguments, _fresh_database, _seeker_arguments
from broker_server.server import DEFINITION as BROKER_DEFINITION
from search_server.server import DEFINITION as SEARCH_DEFINITION
from shared.auth.principal import Principal
from shared.db.migrate import upgrade
from shared.db.models import OfficeMember, User
from shared.db.session import Database
from shared.demo import DEMO_NOW, seed_demo
from shared.paging.cursor import CursorCodec
from shared.runtime.adapter import ToolRunner
from shared.runtime.context import ToolContext
from shared.settings import Settings

NOW = DEMO_NOW + dt.timedelta(days=1)


def _principal(db: Database, email: str, kind: str) -> Principal:
    with db.read_only() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
        member = session.execute(select(OfficeMember.office_id, OfficeMember.role).where(OfficeMember.user_id == user_id)).first()
    if kind == "seeker":
        return Principal(user_id=user_id, kind="seeker", office_id=None, office_role=None,
                         scopes=frozenset({"suche:konto", "suche:konto.schreiben"}), resource="suche", client_id="bench")
    return Principal(user_id=user_id, kind="broker", office_id=member[0], office_role=member[1],
                     scopes=frozenset({"makler:lesen", "makler:schreiben"}), resource="makler", client_id="bench")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--database-server", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--calls", type=int, default=200, help="calls per tool")
    parser.add_argument("--tools", nargs="*", help="only these (side:tool, e.g. broker:get_listing)")
    parser.add_argument("--profile", metavar="FOLDER", help="also write a cProfile of each tool's calls there (side.tool.prof)")
    args = parser.parse_args(argv)
    if args.profile:  # cProfile sees one thread: the handlers run in the caller's thread while profiling
        Path(args.profile).mkdir(parents=True, exist_ok=True)

        async def here(function: Any, *arguments: Any, **_: Any) -> Any:
            return function(*arguments)

        anyio.to_thread.run_sync = here  # type: ignore[assignment]
    with _fresh_database(args.backend, args.database_server) as url:
        db = Database.from_url(url)
        upgrade(db.engine)
        seed_demo(db.engine)
        # Limits on use stay on (their counting is part of a call's cost), high enough never to refuse the bench's two accounts
        limits = {f"limit_{kind}_per_{scope}_per_minute": 10**9 for kind in ("calls", "writes") for scope in ("person", "client", "office")}
        context = ToolContext(db=db, settings=Settings(database_url=url, **limits), cursors=CursorCodec(b"bench", dt.timedelta(hours=1)), now=lambda: NOW)
        runners = {"seeker": ToolRunner(SEARCH_DEFINITION, context), "broker": ToolRunner(BROKER_DEFINITION, context)}
        principals = {"seeker": _principal(db, SEEKER, "seeker"), "broker": _principal(db, BROKER, "broker")}

        def call(side: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
            params = types.CallToolRequestParams(name=tool, arguments=arguments)
            result = anyio.run(runners[side].call, params, None, principals[side])
            assert isinstance(result, types.CallToolResult) and not result.is_error, (tool, result.content[0].text)
            return result.structured_content

        public = call("seeker", "search_listings", {"limit": 50})
        stock = call("broker", "search_listings", {"limit": 50})
        inquiries = call("broker", "search_inquiries", {"status": ["open", "answered"], "limit": 50})
        refs = Refs([i["listing_id"] for i in public["items"]], [i["listing_id"] for i in stock["items"]], [i["inquiry_id"] for i in inquiries["items"]])
        statements = [0]
        event.listen(db.engine, "before_cursor_execute", lambda *_: statements.__setitem__(0, statements[0] + 1))
        plan = [("seeker", tool, _seeker_arguments) for _, tool in SEEKER_MIX] + [("broker", tool, _broker_arguments) for _, tool in BROKER_MIX]
        print(f"backend {args.backend}, {args.calls} calls per tool")
        print(f"{'tool':<32} {'cpu_ms':>7} {'wall_ms':>8} {'stmts':>6}")
        for side, tool, arguments in plan:
            if args.tools and f"{side}:{tool}" not in args.tools:
                continue
            rng = random.Random(7)
            for _ in range(5):  # warm: first-call caches
                call(side, tool, arguments(tool, rng, refs))
            rng = random.Random(11)
            work = [arguments(tool, rng, refs) for _ in range(args.calls)]
            statements[0] = 0
            profile = cProfile.Profile(time.thread_time) if args.profile else None  # CPU, not waiting
            cpu, wall = time.process_time(), time.perf_counter()
            if profile:
                profile.enable()
            for one in work:
                call(side, tool, one)
            if profile:
                profile.disable()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            if profile:
                profile.dump_stats(f"{args.profile}/{side}.{tool}.prof")
            print(f"{side + ':' + tool:<32} {cpu * 1000 / args.calls:>7.2f} {wall * 1000 / args.calls:>8.2f} {statements[0] / args.calls:>6.1f}")
        db.engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
