"""Pure-Python analytic two-bone IK for 2D cut-out rigs (no Blender imports; numpy 1.26 and 2.x).

Conventions (docs/design.md): targets in the shoulder's 2D space, angles in radians counter-clockwise,
``bend=+1`` gives a positive elbow angle.
"""

from .ccd import solve_ccd
from .chain_common import ChainOptions, ChainResult, ChainState
from .fabrik import solve_fabrik
from .fk import chain_forward_kinematics, forward_kinematics
from .limits import JointLimits, Strategy
from .result import IKFlag, SolverState, TwoBoneResult
from .sensitivity import angle_sensitivity
from .smoothing import ExponentialFilter, OneEuroFilter, TargetFilter, smooth_targets
from .soft import soft_distance, soft_inner_distance
from .two_bone import solve_two_bone

__all__ = [
    "ChainOptions",
    "ChainResult",
    "ChainState",
    "ExponentialFilter",
    "IKFlag",
    "JointLimits",
    "OneEuroFilter",
    "SolverState",
    "Strategy",
    "TargetFilter",
    "TwoBoneResult",
    "angle_sensitivity",
    "chain_forward_kinematics",
    "forward_kinematics",
    "smooth_targets",
    "soft_distance",
    "soft_inner_distance",
    "solve_ccd",
    "solve_fabrik",
    "solve_two_bone",
]
