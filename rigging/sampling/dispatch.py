"""Requests and the strategy chosen for each: F-curves where eligible, else a stepped scene."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import numpy as np

from .eligibility import fcurve_only_reason, inputs, simulated
from .fcurves import COMPOSE_BLOCK, ChannelSampler, Composer, compose_request, sample_fcurves
from .stepping import sample_temp_scene, sample_user_scene

KINDS = ("WORLD", "ARMATURE")
METHODS = ("AUTO", "FCURVES", "SCENE", "USER")


def parse_requests(requests: Sequence[Sequence[Any]]) -> list[tuple[Any, str | None, str]]:
    """Requests as ``(obj, bone or None, kind)`` triples, checked.

    Raises:
        ValueError: an unknown kind, an ``ARMATURE`` request without a bone, or a bone the object lacks.
    """
    parsed = []
    for req in requests:
        obj, bone = req[0], req[1]
        kind = req[2] if len(req) > 2 else "WORLD"
        if kind not in KINDS:
            raise ValueError(f"request kind must be one of {KINDS}, got {kind!r}")
        if kind == "ARMATURE" and not bone:
            raise ValueError("an ARMATURE-space request needs a bone name")
        if bone and (obj.type != "ARMATURE" or obj.pose.bones.get(bone) is None):
            raise ValueError(f'"{obj.name}" has no pose bone "{bone}"')
        parsed.append((obj, bone or None, kind))
    return parsed


def sample_world_matrices(
    context: Any, requests: Sequence[Sequence[Any]], frames: Sequence[float] | np.ndarray, *, method: str = "AUTO",
    stepped: dict[str, str] | None = None,
) -> np.ndarray:
    """Matrices ``(len(requests), N, 4, 4)`` of each request at each frame (see the module docstring).

    Args:
        stepped: (``AUTO``) receives :func:`stepped_objects` of the requests, from the choice the sampling made
            (a caller that reports it does not choose again).

    Raises:
        ValueError: a bad request or method, or ``FCURVES`` for a request that is not composable.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    frames_arr = np.asarray(frames, dtype=np.float64).reshape(-1)
    parsed = parse_requests(requests)
    out = np.empty((len(parsed), frames_arr.size, 4, 4))
    if not parsed or frames_arr.size == 0:
        return out

    fast, user, reasons = choose(context, parsed, method)
    if stepped is not None and method == "AUTO":
        stepped.update(_stepped_of(parsed, reasons))
    fast_idx = [i for i, (obj, _b, _k) in enumerate(parsed) if obj in fast]
    user_idx = [i for i, (obj, _b, _k) in enumerate(parsed) if obj in user]
    slow_idx = [i for i, (obj, _b, _k) in enumerate(parsed) if obj not in fast and obj not in user]
    if fast_idx:
        sample_fcurves([parsed[i] for i in fast_idx], frames_arr, out, fast_idx)
    if slow_idx:
        _sample_slow(context, parsed, slow_idx, frames_arr, out, method)
    if user_idx:
        sample_user_scene(context, [parsed[i] for i in user_idx], frames_arr, out, user_idx)
    return out


def stepping_plan(parsed: list[tuple[Any, str | None, str]]) -> tuple[dict[Any, None], dict[Any, None]]:
    """Split objects that cannot be composed from F-curves alone into (objects to step, objects composed from
    F-curves once the stepped ones' world matrices are given), both in request order.

    A requested object whose only fault is an object parent or plain Child Of target that must be stepped is
    composed from its own curves over that input's stepped matrices (then the input is examined the same way):
    each stepped frame evaluates fewer objects. Simulations and cycles are stepped whole.
    """
    bones_of: dict[Any, set[str]] = {}
    for obj, bone, _kind in parsed:
        bones_of.setdefault(obj, set()).update([bone] if bone else [])
    stepped: dict[Any, None] = {}
    composed: dict[Any, None] = {}

    def visit(obj: Any, seen: frozenset[str]) -> None:
        if obj in stepped or obj in composed:
            return
        deps = [d for d in inputs(obj) if fcurve_only_reason(d) is not None]
        if (not deps or obj.name in seen or simulated(obj) or any(simulated(d) for d in deps)
                or fcurve_only_reason(obj, sorted(bones_of.get(obj, ())),
                                      given=frozenset(d.name for d in deps)) is not None):
            stepped[obj] = None
            return
        composed[obj] = None
        for dep in deps:
            visit(dep, seen | {obj.name})

    for obj in bones_of:
        visit(obj, frozenset())
    return stepped, composed


def _sample_slow(context: Any, parsed: list[tuple[Any, str | None, str]], slow_idx: list[int],
                 frames: np.ndarray, out: np.ndarray, method: str) -> None:
    """The requests ``slow_idx`` (not composable from F-curves alone) into ``out``: stepped in a temporary
    scene, or (``AUTO``) split by :func:`stepping_plan` so only the objects that need it are stepped."""
    if method != "AUTO":
        sample_temp_scene(context, [parsed[i] for i in slow_idx], frames, out, slow_idx)
        return
    stepped, composed = stepping_plan([parsed[i] for i in slow_idx])
    step_idx = [i for i in slow_idx if parsed[i][0] in stepped]
    comp_idx = [i for i in slow_idx if parsed[i][0] in composed]
    requests = [parsed[i] for i in step_idx]
    # The stepped inputs of composed objects, read as world matrices (requested or not).
    needed = dict.fromkeys(d for obj in composed for d in inputs(obj) if d in stepped)
    requests += [(obj, None, "WORLD") for obj in needed if (obj, None, "WORLD") not in requests]
    matrices = np.empty((len(requests), frames.size, 4, 4))
    if requests:
        sample_temp_scene(context, requests, frames, matrices, list(range(len(requests))))
    out[step_idx] = matrices[:len(step_idx)]
    if comp_idx:
        given = {req[0]: matrices[k] for k, req in enumerate(requests) if req[1] is None and req[2] == "WORLD"}
        sample_fcurves([parsed[i] for i in comp_idx], frames, out, comp_idx, given)


def choose(
    context: Any, parsed: list[tuple[Any, str | None, str]], method: str
) -> tuple[set[Any], set[Any], dict[Any, str]]:
    """Choose a strategy for each requested object.

    Returns:
        (objects composed from F-curves, objects stepped in the user's scene, {every other object: why it is
        not composed from F-curves alone}).
    """
    bones_of: dict[Any, set[str]] = {}
    for obj, bone, _kind in parsed:
        bones_of.setdefault(obj, set())
        if bone:
            bones_of[obj].add(bone)
    fast: set[Any] = set()
    reasons: dict[Any, str] = {}
    remapped = context.scene.render.frame_map_old != context.scene.render.frame_map_new
    for obj, bones in bones_of.items():
        if method not in ("AUTO", "FCURVES"):
            reasons[obj] = f"method {method}"
            continue
        reason = "the scene remaps time" if remapped else fcurve_only_reason(obj, sorted(bones))
        if reason is None:
            fast.add(obj)
        elif method == "FCURVES":
            raise ValueError(f'"{obj.name}" cannot be sampled from F-curves: {reason}')
        else:
            reasons[obj] = reason
    # Simulations (rigid bodies) are evaluated by the user's scene only: step that one for them.
    user = {obj for obj in bones_of if method == "USER" or (method == "AUTO" and simulated(obj))}
    fast -= user
    return fast, user, reasons


def stepped_objects(context: Any, requests: Sequence[Sequence[Any]]) -> dict[str, str]:
    """The objects :func:`sample_world_matrices` (``AUTO``) would step a scene for, with their reasons.

    Returns:
        {object name: why it is not composed from F-curves}; empty when everything is read from F-curves. An
        object composed over a stepped parent or Child Of target (:func:`stepping_plan`) is not listed; that
        input is, with its own reason.
    """
    parsed = parse_requests(requests)
    _fast, _user, reasons = choose(context, parsed, "AUTO")
    return _stepped_of(parsed, reasons)


def _stepped_of(parsed: list[tuple[Any, str | None, str]], reasons: dict[Any, str]) -> dict[str, str]:
    """:func:`stepped_objects` from :func:`choose`'s reasons."""
    stepped, _composed = stepping_plan([req for req in parsed if req[0] in reasons])
    return {obj.name: reasons.get(obj) or str(fcurve_only_reason(obj)) for obj in stepped}


def iter_world_matrices(
    context: Any, requests: Sequence[Sequence[Any]], frames: Sequence[float] | np.ndarray, *,
    block: int = COMPOSE_BLOCK,
) -> Generator[tuple[slice, np.ndarray], None, None]:
    """:func:`sample_world_matrices` (``AUTO``) in blocks of ``block`` frames.

    F-curves are sampled once for all the blocks, so a long range costs what one call costs while only one
    block of matrices is held at a time; stepped requests are stepped block by block. Consume it to the end (or
    close it) so copies are removed.

    Returns:
        A generator of ``(rows, matrices)``, ``matrices`` of shape ``(len(requests), len(frames[rows]), 4, 4)``.
    """
    frames_arr = np.asarray(frames, dtype=np.float64).reshape(-1)
    parsed = parse_requests(requests)
    fast, _user, _reasons = choose(context, parsed, "AUTO")
    fast_idx = [i for i, (obj, _b, _k) in enumerate(parsed) if obj in fast]
    other_idx = [i for i in range(len(parsed)) if i not in fast_idx]
    sampler = ChannelSampler(frames_arr) if fast_idx else None
    try:
        if sampler is not None:
            Composer(sampler, slice(None)).prefetch([parsed[i] for i in fast_idx])
        for first in range(0, frames_arr.size, block):
            rows = slice(first, min(first + block, frames_arr.size))
            out = np.empty((len(parsed), rows.stop - rows.start, 4, 4))
            if sampler is not None:
                for sub in range(rows.start, rows.stop, COMPOSE_BLOCK):
                    part = slice(sub, min(sub + COMPOSE_BLOCK, rows.stop))
                    local = slice(part.start - rows.start, part.stop - rows.start)
                    composer = Composer(sampler, part)
                    for i in fast_idx:
                        compose_request(composer, *parsed[i], out[i, local])
            if other_idx:
                out[other_idx] = sample_world_matrices(context, [requests[i] for i in other_idx], frames_arr[rows])
            yield rows, out
    finally:
        if sampler is not None:
            sampler.close()
