"""solver.threads: the two halves of a long computation run on two threads, cover every row once, give the same
bits as one thread, and raise what either half raises."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from solver import rotations, threads
from tests.solver.test_chain_batch_values import bits


def test_long_work_runs_its_halves_on_two_threads_and_covers_every_row_once(monkeypatch: pytest.MonkeyPatch
                                                                            ) -> None:
    monkeypatch.setattr(threads, "_cores", lambda: 2)
    seen: list[tuple[int, int, int]] = []
    lock = threading.Lock()

    def work(rows: slice) -> None:
        with lock:
            seen.append((rows.start, rows.stop, threading.get_ident()))

    threads.in_two_halves(work, 7, threads.MIN_ELEMENTS)
    assert sorted((a, b) for a, b, _t in seen) == [(0, 3), (3, 7)]
    assert len({t for _a, _b, t in seen}) == 2
    assert threading.get_ident() in {t for _a, _b, t in seen}  # this thread does a half, not only waits


@pytest.mark.parametrize(("rows", "elements", "cores"), [(7, threads.MIN_ELEMENTS - 1, 2), (1, 10**6, 2),
                                                         (7, 10**6, 1)])
def test_short_work_one_row_or_one_core_stays_on_this_thread(monkeypatch: pytest.MonkeyPatch, rows: int,
                                                             elements: int, cores: int) -> None:
    monkeypatch.setattr(threads, "_cores", lambda: cores)
    seen: list[tuple[int, int, int]] = []
    threads.in_two_halves(lambda r: seen.append((r.start, r.stop, threading.get_ident())), rows, elements)
    assert seen == [(0, rows, threading.get_ident())]


@pytest.mark.parametrize("failing", ["first", "second", "both"])
def test_an_exception_from_either_half_is_raised_once_both_are_done(monkeypatch: pytest.MonkeyPatch,
                                                                     failing: str) -> None:
    monkeypatch.setattr(threads, "_cores", lambda: 2)
    done: list[int] = []
    release = threading.Event()

    def work(rows: slice) -> None:
        first = rows.start == 0
        if first:
            release.wait(5.0)  # the worker's half ends after this thread's
        done.append(rows.start)
        if not first:
            release.set()
        if failing == "both" or (failing == "first") == first:
            raise ValueError(f"half at {rows.start}")

    with pytest.raises(ValueError, match="half at"):
        threads.in_two_halves(work, 4, threads.MIN_ELEMENTS)
    assert sorted(done) == [0, 2]  # both halves ran to their end before the call returned


@pytest.mark.parametrize("columns", [2, 3, 33, 64])
def test_quaternions_of_many_columns_are_the_same_bits_on_one_thread_or_two(monkeypatch: pytest.MonkeyPatch,
                                                                          columns: int) -> None:
    rng = np.random.default_rng(columns)
    axes = rng.normal(size=(columns, 3))
    deltas = np.cumsum(rng.normal(scale=0.05, size=(columns, 2000)), axis=1)
    monkeypatch.setattr(threads, "_cores", lambda: 2)
    monkeypatch.setattr(threads, "MIN_ELEMENTS", 1)
    two = rotations.quaternions_about_axes(axes, deltas)
    monkeypatch.setattr(threads, "MIN_ELEMENTS", 10**12)
    one = rotations.quaternions_about_axes(axes, deltas)
    np.testing.assert_array_equal(bits(two), bits(one))
    for c in (0, columns // 2, columns - 1):  # and each column's own, as the live preview computes it
        np.testing.assert_array_equal(bits(two[c]), bits(rotations.quaternions_about_axis(axes[c], deltas[c])))


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this system")
def test_a_process_held_to_one_core_computes_on_one_thread() -> None:
    """The cores counted are the ones the process may run on (say a render farm's job held to one), not the
    machine's."""
    code = ("import os, threading\n"
            "from solver import threads\n"
            "os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})\n"
            "seen = set()\n"
            "threads.in_two_halves(lambda r: seen.add(threading.get_ident()), 8, 10**6)\n"
            "print(threads._cores(), len(seen))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == ["1", "1"]


def test_one_worker_thread_serves_every_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a thread per call: the same worker does the first half each time."""
    monkeypatch.setattr(threads, "_cores", lambda: 2)
    workers: list[int] = []

    def work(rows: slice) -> None:
        if rows.start == 0:
            workers.append(threading.get_ident())

    for _ in range(3):
        threads.in_two_halves(work, 4, threads.MIN_ELEMENTS)
    assert len(workers) == 3 and len(set(workers)) == 1 and workers[0] != threading.get_ident()


@pytest.mark.parametrize(("cpus", "want"), [(3, 3), (None, 1)])
def test_without_an_affinity_the_machines_cores_are_counted(monkeypatch: pytest.MonkeyPatch, cpus: int | None,
                                                             want: int) -> None:
    if hasattr(threads.os, "sched_getaffinity"):
        monkeypatch.delattr(threads.os, "sched_getaffinity")
    monkeypatch.setattr(threads.os, "cpu_count", lambda: cpus)
    assert threads._cores() == want
