"""Which flag table decodes a chain's flags, from the chain's settings (plain strings, no Blender).

The two-bone solver writes :data:`solver.result.TWO_BONE_FLAGS`; CCD and FABRIK write
:data:`solver.chain_common.CHAIN_FLAGS`. Bits 8 and 16 differ between them (shoulder / elbow limit against
"some joint on a limit" / "a limit blocks the reach"), so whoever shows a chain's flags asks here first.
"""

from __future__ import annotations

from .chain_common import CHAIN_FLAGS, ChainResult
from .flag_table import FlagName, FlagTable
from .result import TWO_BONE_FLAGS, TwoBoneResult

__all__ = ["CHAIN_FLAGS", "TWO_BONE_FLAGS", "FlagName", "FlagTable", "for_result", "for_solver", "is_two_bone"]


def is_two_bone(solver: str, bones: int) -> bool:
    """Whether a chain with this ``solver`` setting and number of bones is solved by the two-bone solver.

    A longer chain set to ANALYTIC is solved by FABRIK, CCD and FABRIK chains by themselves.
    """
    return solver.upper() == "ANALYTIC" and bones == 2


def for_solver(solver: str, bones: int = 2) -> FlagTable:
    """The table for a chain's ``solver`` setting (``"ANALYTIC"``, ``"CCD"``, ``"FABRIK"``, any case).

    The analytic solve runs only on a chain of two bones; a longer chain set to ANALYTIC is solved by FABRIK
    (``chain_solve.solve_chain``), so its flags are chain flags.
    """
    kind = solver.upper()
    if kind not in ("ANALYTIC", "CCD", "FABRIK"):
        raise ValueError(f"unknown solver {solver!r}: expected ANALYTIC, CCD or FABRIK")
    return TWO_BONE_FLAGS if is_two_bone(kind, bones) else CHAIN_FLAGS


def for_result(result: TwoBoneResult | ChainResult) -> FlagTable:
    """The table of the result type that produced ``result.flags``."""
    return result.FLAG_NAMES
