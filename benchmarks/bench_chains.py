"""Frames per second of the long-chain solvers against a straightforward pure-Python CCD/FABRIK.

Run: ``.venvs/dev/bin/python -m benchmarks.bench_chains`` from the repository root. Prints frames per second
(process CPU time, best of three) for 8- and 32-bone chains following a smooth target path, the speed-up
over the baseline measured in the same run, and the time of a 10,000-frame solve of an 8-bone chain (the
bake target is 0.5 s including key writing). The baseline is the textbook loop: each frame warm-starts from
the previous one and sweeps until the tip is within the same tolerance (1e-6 L), recomputing the chain from
its angles for every joint (CCD) or walking lists of points (FABRIK), capped at 500 iterations per frame.

Last, several two-bone chains of one bake through the pure chain step (``solver.chain_step``, world matrices in,
solutions out): one ``solve_chain`` call per chain (each chain pays its own overhead) against one
``solve_chains`` call for all of them, for 1 frame (the Solve operator) and 250 frames (a bake), with a moving
armature and parent bone for every chain.

Then (issue 11's last item, issue 17) the two-bone solver itself: one ``solve_two_bone`` per chain against one
``solve_two_bone_chains`` for all of them (mixed bends, softness, limits and strategies, four rigs' lengths
or every chain its own; the same results bit for bit, tests/solver/test_two_bone_batch.py), and the crowd
bake's solve stage (32 chains x 2,000 frames, static armatures, no parent: bench_goals' crowd) through the
chain step before issue 17 (tests/solver/frozen_chain_step.py) and now, alternated in the same process,
medians of process CPU time.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from solver.ccd import solve_ccd
from solver.chain_description import ChainDescription, ChainSettings
from solver.chain_step import ChainSamples, solve_chain, solve_chains
from solver.fabrik import solve_fabrik
from solver.limits import JointLimits
from solver.two_bone import ChainCall, solve_two_bone_chains
from tests.solver import frozen_chain_step

Pose = list[float]


def textbook_fk(angles: Pose, lengths: Pose) -> list[tuple[float, float]]:
    points = [(0.0, 0.0)]
    a = 0.0
    for ang, length in zip(angles, lengths, strict=True):
        a += ang
        x, y = points[-1]
        points.append((x + length * math.cos(a), y + length * math.sin(a)))
    return points


def textbook_ccd(targets: np.ndarray, lengths: Pose, tol: float, cap: int) -> tuple[list[Pose], int]:
    angles = [0.0] * len(lengths)
    out = []
    converged = 0
    for tx, ty in targets.tolist():
        for _ in range(cap):
            tip = textbook_fk(angles, lengths)[-1]
            if math.hypot(tx - tip[0], ty - tip[1]) <= tol:
                converged += 1
                break
            for i in reversed(range(len(lengths))):
                points = textbook_fk(angles, lengths)
                jx, jy = points[i]
                ex, ey = points[-1]
                angles[i] += math.atan2(ty - jy, tx - jx) - math.atan2(ey - jy, ex - jx)
        out.append(list(angles))
    return out, converged


def textbook_fabrik(targets: np.ndarray, lengths: Pose, tol: float, cap: int) -> tuple[list[Pose], int]:
    points = textbook_fk([0.0] * len(lengths), lengths)
    out = []
    converged = 0
    for tx, ty in targets.tolist():
        for _ in range(cap):
            if math.hypot(tx - points[-1][0], ty - points[-1][1]) <= tol:
                converged += 1
                break
            points[-1] = (tx, ty)
            for i in reversed(range(len(lengths))):
                (x0, y0), (x1, y1) = points[i], points[i + 1]
                r = math.hypot(x0 - x1, y0 - y1)
                points[i] = (x1 + (x0 - x1) * lengths[i] / r, y1 + (y0 - y1) * lengths[i] / r)
            points[0] = (0.0, 0.0)
            for i in range(len(lengths)):
                (x0, y0), (x1, y1) = points[i], points[i + 1]
                r = math.hypot(x1 - x0, y1 - y0)
                points[i + 1] = (x0 + (x1 - x0) * lengths[i] / r, y0 + (y1 - y0) * lengths[i] / r)
        absolute = [math.atan2(points[i + 1][1] - points[i][1], points[i + 1][0] - points[i][0])
                    for i in range(len(lengths))]
        out.append([absolute[0]] + [absolute[i] - absolute[i - 1] for i in range(1, len(lengths))])
    return out, converged


def smooth_path(total: float, frames: int) -> np.ndarray:
    t = np.linspace(0.0, 2.0 * np.pi, frames)
    return np.stack([0.5 * total + 0.3 * total * np.cos(t), 0.3 * total * np.sin(2.0 * t)], axis=1)


def timed(fn: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    """Best of three process CPU times (the machine is shared: CPU time is what other load disturbs least)
    and the last result."""
    best = math.inf
    result: Any = None
    for _ in range(3):
        start = time.process_time()
        result = fn(*args)
        best = min(best, time.process_time() - start)
    return best, result


def main() -> None:
    rng = np.random.default_rng(7)
    eight_bones = np.ones(8)
    print(f"{'chain':>7} {'solver':>7} {'frames':>7} {'fps':>10} {'baseline fps':>13} {'speed-up':>9}"
          f" {'iter/frame':>10} {'baseline conv':>13}")
    for bones, frames, baseline_frames in ((8, 10_000, 1_000), (32, 2_000, 200)):
        lengths = rng.uniform(0.5, 1.5, bones)
        eight_bones = lengths if bones == 8 else eight_bones
        total = float(lengths.sum())
        path = smooth_path(total, frames)
        # The baseline follows the same path at the same speed, over its first frames only.
        short = path[:baseline_frames]
        for name, ours, textbook in (("ccd", solve_ccd, textbook_ccd), ("fabrik", solve_fabrik, textbook_fabrik)):
            seconds, result = timed(ours, path, lengths)
            base_seconds, (_, base_conv) = timed(textbook, short, list(lengths), 1e-6 * total, 500)
            fps = frames / seconds
            base_fps = baseline_frames / base_seconds
            iters = float(np.mean(result.iterations))
            if not np.all(result.converged):
                print("  (not every frame converged)")
            print(f"{bones:>7} {name:>7} {frames:>7} {fps:>10.0f} {base_fps:>13.0f} {fps / base_fps:>8.1f}x"
                  f" {iters:>10.2f} {base_conv / baseline_frames:>12.0%}")
    lengths = eight_bones
    path = smooth_path(float(lengths.sum()), 10_000)
    for name, ours in (("ccd", solve_ccd), ("fabrik", solve_fabrik)):
        start = time.perf_counter()
        ours(path, lengths)
        wall = time.perf_counter() - start
        seconds, _ = timed(ours, path, lengths)
        print(f"10,000 frames, 8 bones, {name}: {seconds:.3f} s CPU, {wall:.3f} s wall"
              " (solve only; bake target 0.5 s with keys)")


REPEATS = 50  # solves per timing in several_chains (one solve is well under a millisecond)


def _two_bone_chain(k: int) -> ChainDescription:
    """Bones along +Y from the origin, turning about +Z; lengths and settings differ from chain to chain."""
    lengths = np.array([1.0 + 0.1 * k, 0.8 + 0.05 * k])
    z = np.array([0.0, 0.0, 1.0])
    return ChainDescription(bone_names=(f"upper{k}", f"lower{k}"), parent_name="body", lengths=lengths,
                            rest_angles=np.zeros(2), normal=z, local_axes=np.tile(z, (2, 1)), upper_rest=np.eye(4),
                            parent_to_upper=np.eye(4),
                            settings=ChainSettings(softness=0.05, limit_strategy=("ACCEPT", "STRETCH")[k % 2]))


def _chain_samples(k: int, frames: int) -> ChainSamples:
    t = np.linspace(0.0, 1.0, frames)
    moving = np.tile(np.eye(4), (frames, 1, 1))
    moving[:, 0, 3] = 0.1 * t
    moving[:, :2, :2] = np.stack([np.stack([np.cos(0.2 * t), -np.sin(0.2 * t)], -1),
                                  np.stack([np.sin(0.2 * t), np.cos(0.2 * t)], -1)], -2)
    target = np.tile(np.eye(4), (frames, 1, 1))
    target[:, :3, 3] = np.stack([np.cos(3 * t + k), 1.2 + 0.5 * np.sin(2 * t), 0 * t], axis=1)
    return ChainSamples(armature=moving.copy(), target=target, parent=moving.copy(), pole=None)


def several_chains() -> None:
    print(f"{'chains':>7} {'frames':>7} {'one call per chain':>19} {'one call for all':>17} {'speed-up':>9}")
    for chains in (2, 4, 8):
        for frames in (1, 250):
            rigs = [_two_bone_chain(k) for k in range(chains)]
            samples = [_chain_samples(k, frames) for k in range(chains)]
            fr = np.arange(1.0, frames + 1.0)
            def each(rigs: list[ChainDescription] = rigs, samples: list[ChainSamples] = samples,
                     fr: np.ndarray = fr) -> None:
                for _ in range(REPEATS):
                    for rig, s in zip(rigs, samples, strict=True):
                        solve_chain(rig, fr, s)

            def together(rigs: list[ChainDescription] = rigs, samples: list[ChainSamples] = samples,
                         fr: np.ndarray = fr) -> None:
                for _ in range(REPEATS):
                    solve_chains(rigs, fr, samples)

            apart, _ = timed(each)
            joint, _ = timed(together)
            print(f"{chains:>7} {frames:>7} {apart / REPEATS * 1e3:>16.2f} ms {joint / REPEATS * 1e3:>14.2f} ms"
                  f" {apart / joint:>8.1f}x")


def _median_cpu(fns: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    """Median process CPU seconds of each function, the functions alternated round by round."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            start = time.process_time()
            fn()
            times[name].append(time.process_time() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def _mixed_calls(chains: int, frames: int, shared: bool) -> list[ChainCall]:
    """Chains with mixed bends, softness, limits and strategies; ``shared``: four rigs' lengths among them (a
    crowd), else every chain its own."""
    rng = np.random.default_rng(chains + frames)
    t = np.linspace(0.0, 4 * np.pi, frames)
    calls = []
    for k in range(chains):
        a, b = ((1.0, 0.6), (0.7, 1.3), (1.2, 1.2), (0.9, 1.0))[k % 4] if shared else (
            float(v) for v in rng.uniform(0.5, 2.0, 2))
        reach = (a + b) * (0.6 + 0.5 * np.sin(t + k))
        targets = np.stack([reach * np.cos(t + k), reach * np.sin(0.7 * t)], axis=1)
        limits = JointLimits(shoulder=(-1.0, 1.2), elbow=(0.2, 2.0)) if k % 4 == 3 else None
        calls.append(ChainCall(targets=targets, a=a, b=b, bend=(-1, 1)[k % 2], softness=(0.0, 0.05)[k % 3 == 0],
                               limits=limits, strategy=("accept", "stretch")[k % 8 == 7]))
    return calls


def two_bone_batches() -> None:
    print(f"{'chains':>7} {'frames':>7} {'one call per chain':>19} {'one call for all':>17} {'speed-up':>9}"
          "   (two-bone solver only, median CPU)")
    for chains, frames, shared in ((8, 250, True), (32, 250, True), (32, 2_000, True), (128, 250, True),
                                   (32, 250, False)):
        calls = _mixed_calls(chains, frames, shared)
        got = _median_cpu({"each": lambda calls=calls: [c.solve_alone() for c in calls],
                           "all": lambda calls=calls: solve_two_bone_chains(calls)}, 15)
        print(f"{chains:>7} {frames:>7} {got['each'] * 1e3:>16.2f} ms {got['all'] * 1e3:>14.2f} ms"
              f" {got['each'] / got['all']:>8.1f}x   {'4 rigs' if shared else 'every chain its own lengths'}")


def crowd_step() -> None:
    """bench_goals' crowd (16 characters x 2 arms, 2,000 frames, static armatures) through the chain step."""
    frames = 2_000
    t = np.arange(1.0, frames + 1.0)
    rigs, samples = [], []
    for k in range(32):
        rig = _two_bone_chain(k % 2)
        rigs.append(ChainDescription(**{**rig.__dict__, "parent_name": None,
                                        "settings": ChainSettings(softness=0.0)}))
        arm = np.tile(np.eye(4), (frames, 1, 1))
        arm[:, 0, 3] = 5.0 * (k // 2)
        target = np.tile(np.eye(4), (frames, 1, 1))
        target[:, :3, 3] = np.stack([5.0 * (k // 2) + np.cos(t / 40 + k), 1.2 + 0.5 * np.sin(t / 30), 0 * t], 1)
        samples.append(ChainSamples(armature=arm, target=target, parent=None, pole=None))
    got = _median_cpu({
        "before": lambda: frozen_chain_step.solve_chains(rigs, t, samples, sensitivity=False),  # type: ignore[arg-type]
        "now": lambda: solve_chains(rigs, t, samples, sensitivity=False, solved_targets=False)}, 9)
    print(f"crowd solve stage (32 chains x {frames} frames): before issue 17 {got['before'] * 1e3:.1f} ms,"
          f" now {got['now'] * 1e3:.1f} ms CPU (median of 9, alternated): {got['before'] / got['now']:.1f}x")


if __name__ == "__main__":
    main()
    several_chains()
    two_bone_batches()
    crowd_step()
