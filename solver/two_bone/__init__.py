"""Analytic two-bone IK over a whole frame range, vectorized (source document sections 一 to 七).

Frames are processed in time order, in cache-sized blocks; the only frame-to-frame dependencies (the held
direction at zero distance and the pole hysteresis) are forward fills carried from block to block. Joint
limits then run as a second pass over larger chunks, and a strategy as a third pass over limited frames only.
One module per step: :mod:`.arguments` (checking and shaping the arguments), :mod:`.kernel` (the block
kernel), :mod:`.limits_pass`, :mod:`.strategies`, :mod:`.solve` (the entry point and the driver), and
:mod:`.single_frame` (one target in pure ``math``, for the live preview), :mod:`.batch` (several chains in
one pass of the kernel, frames concatenated).

Speed notes (benchmarks/bench_solver.py): the plain path computes FK from the half-angle factors instead of
cos/sin (numpy's float64 sin/cos cost ~8 ns per value here, the whole plain solve ~30 ns per frame); all float
outputs share one allocation, because fresh memory costs a page fault per 4 KiB (several times the solve).
"""

from .batch import ChainCall, solve_two_bone_chains
from .solve import solve_two_bone
from .strategies import stretch_candidates, stretch_factor

__all__ = ["ChainCall", "solve_two_bone", "solve_two_bone_chains", "stretch_candidates", "stretch_factor"]
