"""Names for the bits of a result's ``flags``: the same bit means different things to different solvers.

Each result type owns a :class:`FlagTable` (``TwoBoneResult.FLAG_NAMES``, ``ChainResult.FLAG_NAMES``); callers
that show flags (the panel, the overlay) decode them through the table of the solver that wrote them instead of
restating bit values. This module imports nothing from the solver, so both result modules can use it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray


@dataclass(frozen=True)
class FlagName:
    """One bit of a flag field: its value, a stable short ``key`` and a one-line English ``description``.

    ``joint``: the joint the bit says sits on its limit (``"shoulder"`` / ``"elbow"``), or None when the bit
    names no single joint.
    """

    bit: int
    key: str
    description: str
    joint: str | None = None


@dataclass(frozen=True)
class FlagTable:
    """The named bits of one solver's flag field, in bit order."""

    solver: str  # "two_bone" or "chain"
    names: tuple[FlagName, ...]

    def __post_init__(self) -> None:
        bits = [f.bit for f in self.names]
        if any(b <= 0 or b & (b - 1) for b in bits) or bits != sorted(set(bits)):
            raise ValueError(f"flag bits must be distinct powers of two in increasing order, got {bits}")
        if len({f.key for f in self.names}) != len(self.names):
            raise ValueError("flag keys must be distinct")

    def __iter__(self) -> Iterator[FlagName]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    @property
    def keys(self) -> tuple[str, ...]:
        """Every flag's key, in the table's order."""
        return tuple(f.key for f in self.names)

    def bit(self, key: str) -> int:
        """The bit value named ``key`` (KeyError for a key this solver does not have)."""
        for f in self.names:
            if f.key == key:
                return f.bit
        raise KeyError(f"{self.solver} flags have no {key!r}; they are {', '.join(self.keys)}")

    def decode(self, flags: int) -> tuple[FlagName, ...]:
        """The names of the bits set in one frame's ``flags``, in bit order (unknown bits are ignored)."""
        value = int(flags)
        return tuple(f for f in self.names if value & f.bit)

    def matrix(self, flags: ArrayLike) -> NDArray[np.bool_]:
        """Vectorized decode: ``flags`` of shape S -> bool array S + (len(self),), column i for ``names[i]``."""
        values = np.asarray(flags).astype(np.int64)
        bits = np.array([f.bit for f in self.names], dtype=np.int64)
        out: NDArray[np.bool_] = (values[..., None] & bits) != 0
        return out

    def limited_joints(self, flags: int) -> tuple[str, ...]:
        """The joints whose limit acts on this frame, as far as these flags name a joint."""
        return tuple(f.joint for f in self.decode(flags) if f.joint is not None)
