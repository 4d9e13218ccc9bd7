"""bench/profile.py's reading of py-spy's folded stacks: each sample in the phase of its innermost phase frame, and a
handler's samples under the outermost function of a server package (issue 35's profiles per tool)."""

from __future__ import annotations

from pathlib import Path

from bench.profile import summarise

UVICORN = "process 1:\"athaus serve\";run_asgi (uvicorn/protocols/http/h11_impl.py:401)"
AUTH = "BearerAuthentication.__call__ (shared/auth/resource.py:88)"
WORKER = "Thread._bootstrap (threading.py:995);WorkerThread.run (anyio/_backends/_asyncio.py:967)"


def test_samples_are_attributed_to_the_innermost_phase_and_the_outermost_handler(tmp_path: Path) -> None:
    raw = tmp_path / "samples.txt"
    raw.write_text("\n".join([
        f"{UVICORN};parse (h11/_readers.py:70) 10",
        f"{UVICORN};{AUTH};handle_modern_request (mcp/server/_streamable_http_modern.py:120) 20",
        f"{UVICORN};{AUTH};ToolRunner._finish (shared/runtime/adapter.py:290);render (shared/runtime/render.py:347) 5",
        f"{UVICORN};{AUTH};ToolRunner._limited (shared/runtime/adapter.py:210) 5",
        f"{WORKER};ToolRunner._execute.<locals>.kept_or_made (shared/runtime/adapter.py:270);"
        "search_listings (search_server/catalog.py:54);keyset_page (shared/paging/keyset.py:57);execute (sqlalchemy/orm/session.py:1) 40",
        f"{WORKER};get_listing (broker_server/stock.py:270);load (broker_server/stock.py:250) 15",
        f"{WORKER};in_worker (shared/runtime/failures.py:130) 5",
    ]) + "\n", encoding="utf-8")
    lines = summarise(raw).splitlines()
    assert lines[0] == "100 samples"
    phases = {line[:38].strip(): line[38:].strip() for line in lines[3:8]}
    assert phases == {
        "handler (worker thread)": "60.0 %", "SDK and token check": "20.0 %", "HTTP and ASGI above the token check": "10.0 %",
        "result: envelope, checks, text": "5.0 %", "limits on use": "5.0 %",
    }
    handlers = {line[:38].strip(): line[38:].split() for line in lines[10:13]}
    assert handlers == {
        "suche:search_listings": ["40.0", "%", "66.7", "%"],
        "makler:get_listing": ["15.0", "%", "25.0", "%"],
        "(runtime in the worker thread)": ["5.0", "%", "8.3", "%"],
    }
    assert "40.0 %  keyset_page (shared/paging/keyset.py)" in [line.strip() for line in lines]


def test_no_samples_says_so(tmp_path: Path) -> None:
    raw = tmp_path / "samples.txt"
    raw.write_text("", encoding="utf-8")
    assert summarise(raw) == "no samples (py-spy saw no thread holding the GIL)"
