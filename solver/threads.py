"""Two halves of a long numpy computation at once, one on a worker thread.

numpy releases the GIL inside its loops, so a computation whose time is spent in a few long ufunc calls
(``cos``, ``sin``: ~8 ns an element, scalar code) runs on two cores when its rows are split in two. Each row
goes through the same calls either way, so the results are the same bits; only where the work is long enough
to pay for the hand-over (~50 µs), and only where there is a second core.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

# Elements below which one thread does it all: the hand-over costs about as much as ~5,000 cosines.
MIN_ELEMENTS = 32_768

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def _worker() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="soft_ik_2d")
        return _pool


def _cores() -> int:
    """The cores this process may run on (its affinity, where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every system
        return os.cpu_count() or 1


def in_two_halves(work: Callable[[slice], None], rows: int, elements: int) -> None:
    """``work(rows_slice)`` over ``range(rows)``: the first half on the worker thread and the second on this one
    when ``elements`` (the whole computation's size) is at least :data:`MIN_ELEMENTS` and there are two cores;
    else ``work(slice(0, rows))`` here. ``work`` must write only its own rows, and must not call this function
    (the one worker would wait for itself). An exception from either half is raised once both are done."""
    if rows < 2 or elements < MIN_ELEMENTS or _cores() < 2:
        work(slice(0, rows))
        return
    middle = rows // 2
    first = _worker().submit(work, slice(0, middle))
    try:
        work(slice(middle, rows))
    finally:
        first.result()
