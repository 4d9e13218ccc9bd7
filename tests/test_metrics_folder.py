"""`athaus serve` makes its Prometheus folder under the temp root, named after its process; a start removes the
folders of earlier starts whose process is gone (killed with SIGKILL, nothing removed them) and nothing else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from athaus.cli import remove_orphaned_metrics_dirs, shared_metrics_dir


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_start_removes_the_folders_of_killed_starts_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "")  # unset for serve, and undone after the test (delenv of an absent one is not)
    dead = dead_pid()
    for name in (f"athaus-metrics-{dead}-k1ll3d_x", f"athaus-metrics-{os.getpid()}-alive123", f"other-metrics-{dead}-abc",
                 "athaus-metrics-oldstyle", f"athaus-metrics-{dead}-with-dash"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "counter_1.db").write_bytes(b"x")
    (tmp_path / f"athaus-metrics-{dead}-afile").write_text("not a folder")

    folder = shared_metrics_dir(str(tmp_path))

    assert folder is not None and os.environ["PROMETHEUS_MULTIPROC_DIR"] == folder
    assert Path(folder).name.startswith(f"athaus-metrics-{os.getpid()}-") and Path(folder).is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([
        Path(folder).name, f"athaus-metrics-{os.getpid()}-alive123", f"other-metrics-{dead}-abc", "athaus-metrics-oldstyle",
        f"athaus-metrics-{dead}-with-dash", f"athaus-metrics-{dead}-afile",
    ])


def test_nothing_is_removed_while_its_process_runs_and_an_operators_folder_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / f"athaus-metrics-{os.getpid()}-running1").mkdir()
    assert remove_orphaned_metrics_dirs(str(tmp_path)) == []
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "operator"))
    assert shared_metrics_dir(str(tmp_path)) is None
    assert [p.name for p in tmp_path.iterdir()] == [f"athaus-metrics-{os.getpid()}-running1"]
