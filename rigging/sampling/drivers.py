"""Drivers of the frame and of F-curve channels, evaluated without stepping a scene.

A scripted driver whose expression Blender runs with its own simple-expression evaluator (no Python), whose
variables (if any) are Single Property reads of another object's transform channel or float custom property,
or Transform Channel reads of another unparented, unconstrained object's location in World or Transform Space
(:func:`variable_channel`), is a function of the frame and of those channels. When that expression uses only
numbers, ``frame``, ``pi``, its variables, ``+ - * /`` (division by a non-zero number), ``sin``, ``cos``,
``abs``, ``floor`` and ``ceil``, and its F-curve maps the driver's value unchanged (no keys; no modifier, or
the identity Generator ``driver_add`` creates) or through keys alone (the 0-1 curve ``driver_add`` gives on
5.x or to a property that already has an action), this module evaluates it exactly as Blender does: the same
double-precision operations in the same order (Python's floats and ``math`` functions call the same C library
in this process) on the frame and the variables' float32 values, rounded to float32 as Blender stores the
driver's value. A bound over Blender's frame range and float32 variables proves that no intermediate value
overflows (where Blender's evaluator would fail). Anything else (other variable types, Python expressions,
other functions, a curve that remaps the value with modifiers) is left to a stepped scene:
:func:`frame_driver_reason` says why; :mod:`.eligibility` checks that each variable's object is composable.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

# Blender's frame range (MAXFRAME): a bound on ``frame`` in the proof that every value stays finite.
MAX_FRAME = 1_048_574.0
# A bound on every intermediate value: below it no double operation overflows, so no NaN (Blender's evaluator
# fails on an invalid operation) can arise. The final value is rounded to float32 as Blender rounds it.
VALUE_BOUND = 1e300
# What a variable can hold: a float32 property.
VARIABLE_BOUND = 3.4028235e38
# The properties a variable may read: an object's transform channel or a float custom property.
_TRANSFORM_CHANNEL = re.compile(r"(location|rotation_euler|rotation_quaternion|rotation_axis_angle|scale)\[(\d)\]")
_CUSTOM_PROPERTY = re.compile(r'\["([^"\\]+)"\]')
# A Transform Channel variable's location axes.
_LOCATION_AXES = {"LOC_X": 0, "LOC_Y": 1, "LOC_Z": 2}

# Every function returns a float, so every operation is a double one as in C (Python's int arithmetic is exact).
_FUNCTIONS: dict[str, Callable[[float], float]] = {
    "sin": math.sin, "cos": math.cos, "abs": math.fabs,
    "floor": lambda x: float(math.floor(x)), "ceil": lambda x: float(math.ceil(x)),
}


def _bound(node: ast.AST, names: frozenset[str] = frozenset()) -> float | None:
    """An upper bound of ``|node|`` over every frame in Blender's range, or None when the node is not in the
    supported subset (or could divide by zero); ``names``: the driver's variables."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return None
        return abs(float(value))
    if isinstance(node, ast.Name):
        return VARIABLE_BOUND if node.id in names else {"frame": MAX_FRAME, "pi": math.pi}.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        return _bound(node.operand, names)
    if isinstance(node, ast.BinOp):
        left = _bound(node.left, names)
        if isinstance(node.op, ast.Div):
            divisor = _bound(node.right, names) if isinstance(node.right, ast.Constant) else None
            return None if left is None or not divisor else left / divisor
        right = _bound(node.right, names)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add | ast.Sub):
            return left + right
        return left * right if isinstance(node.op, ast.Mult) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS:
        if len(node.args) != 1 or node.keywords:
            return None
        inner = _bound(node.args[0], names)
        if inner is None:
            return None
        return 1.0 if node.func.id in ("sin", "cos") else inner + 1.0
    return None


def _mapping_reason(fcurve: Any) -> str | None:
    """Why the driver's F-curve does not map the driver's value in a way :func:`driver_values` reproduces:
    unchanged (no keys; no modifier or the identity Generator) or through its keys alone (no modifiers, read
    with ``FCurve.evaluate``, the function Blender's driver evaluation calls). None when it does."""
    if len(fcurve.keyframe_points):
        return "its F-curve has keys and modifiers" if len(fcurve.modifiers) else None
    if len(fcurve.sampled_points):
        return "its F-curve has baked samples"
    for mod in fcurve.modifiers:
        if not (mod.type == "GENERATOR" and mod.mode == "POLYNOMIAL" and mod.poly_order == 1
                and tuple(mod.coefficients) == (0.0, 1.0) and not mod.use_additive
                and not mod.use_restricted_range and not mod.use_influence):
            return "its F-curve has modifiers"
    return None


def variable_channel(variable: Any, owner: Any) -> tuple[Any, str, int] | None:
    """The object, data path and index a driver variable reads, when :func:`driver_values` can read it.

    Supported: a Single Property variable reading a transform channel (``location[0]``) or a float custom
    property (``["name"]``) of another object, and a Transform Channel variable reading another object's X, Y
    or Z location (no bone) in World or Transform Space, which is its ``location`` channel when the object has
    no parent and no acting constraint (Blender adds the zero delta location). Whether that object's value is
    a plain F-curve (or constant), and for a Transform Channel that it has no parent or constraint, is for the
    caller to check (:func:`.eligibility.fcurve_only_reason`, ``_evaluable_driver``).
    """
    if not variable.is_name_valid:
        return None
    target = variable.targets[0]
    if variable.type == "TRANSFORMS":
        axis = _LOCATION_AXES.get(target.transform_type)
        obj = target.id
        # Local Space gives the location in the object's own rotated and scaled axes, not the channel.
        if (axis is None or obj is None or obj == owner or target.bone_target
                or target.transform_space not in ("WORLD_SPACE", "TRANSFORM_SPACE")):
            return None
        return obj, "location", axis
    if variable.type != "SINGLE_PROP":
        return None
    obj = target.id
    if target.id_type != "OBJECT" or obj is None or obj == owner:
        return None
    path = target.data_path.strip()
    channel = _TRANSFORM_CHANNEL.fullmatch(path)
    if channel is not None:
        index = int(channel.group(2))
        return (obj, channel.group(1), index) if index < len(getattr(obj, channel.group(1))) else None
    custom = _CUSTOM_PROPERTY.fullmatch(path)
    if custom is not None and isinstance(obj.get(custom.group(1)), float):
        return obj, path, 0
    return None


def frame_driver_reason(fcurve: Any, owner: Any = None) -> str | None:
    """Why this driver F-curve cannot be evaluated by :func:`driver_values`, or None when it can.

    Args:
        fcurve: an F-curve of ``animation_data.drivers``.
        owner: the object the driver belongs to (a variable must read another one).

    Returns:
        None when the driver is a function of the frame and of :func:`variable_channel` variables in the
        supported subset (see the module docstring), else a short reason.
    """
    driver = fcurve.driver
    if fcurve.mute or not fcurve.is_valid or not driver.is_valid:
        return "is muted or invalid"
    if driver.type != "SCRIPTED" or driver.use_self:
        return "is not a scripted expression"
    names = frozenset(var.name for var in driver.variables)
    if (any(variable_channel(var, owner) is None for var in driver.variables)
            or names & ({"frame", "pi"} | set(_FUNCTIONS)) or len(names) != len(driver.variables)):
        return "reads variables"
    if not driver.is_simple_expression:
        return "runs a Python expression"
    try:
        tree = ast.parse(driver.expression.strip(), mode="eval")
    except SyntaxError:
        return "runs a Python expression"
    bound = _bound(tree.body, names)
    if bound is None or bound > VALUE_BOUND:
        return "uses functions the sampler does not evaluate"
    return _mapping_reason(fcurve)


def driver_values(fcurve: Any, frames: np.ndarray, variables: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """The value Blender gives the driven property at each frame (float32), NaN at non-finite frames.

    Args:
        fcurve: a driver F-curve :func:`frame_driver_reason` accepts.
        frames: scene frames (subframes allowed), float64.
        variables: each variable's values at ``frames`` (float32, what the property it reads holds there).

    Returns:
        ``(len(frames),)`` float32.
    """
    names = [var.name for var in fcurve.driver.variables]
    function = _compile(fcurve.driver.expression, names)
    out = np.full(frames.shape, np.nan, dtype=np.float32)
    finite = np.isfinite(frames)
    # Blender hands the driver its frame as a float (frame + subframe, each float32) widened to double.
    whole = np.floor(frames[finite])
    times = (whole.astype(np.float32) + (frames[finite] - whole).astype(np.float32)).astype(np.float64)
    if names:
        # A variable's value is a float (dvar->curval), widened to double in the expression.
        columns = [np.asarray((variables or {})[name], dtype=np.float32)[finite].astype(np.float64).tolist()
                   for name in names]
        values = np.asarray([function(*row) for row in zip(times.tolist(), *columns, strict=True)],
                            dtype=np.float64).astype(np.float32)
    else:
        # Once per distinct time (a 1-D unique is cheap; subframes and repeated frames share a value).
        unique, inverse = np.unique(times, return_inverse=True)
        values = np.asarray([function(t) for t in unique.tolist()], dtype=np.float64).astype(np.float32)
        values = values[inverse.reshape(-1)]
    if len(fcurve.keyframe_points):
        # The driver's (float32) value is the time its curve is read at: read once per distinct value.
        unique_values, inverse = np.unique(values, return_inverse=True)
        mapped = np.asarray([fcurve.evaluate(v) for v in unique_values.tolist()], dtype=np.float32)
        values = mapped[inverse.reshape(-1)]
    out[finite] = values
    return out


class _Floats(ast.NodeTransformer):
    """Numbers as floats: ``2 * frame`` multiplies doubles, as Blender's evaluator does."""

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.copy_location(ast.Constant(float(node.value)), node)


def _compile(expression: str, names: Sequence[str] = ()) -> Callable[..., float]:
    """A Python function of ``frame`` and the variables ``names`` for an accepted expression."""
    body = _Floats().visit(ast.parse(expression.strip(), mode="eval").body)
    params = [ast.arg("frame")] + [ast.arg(name) for name in names]
    args = ast.arguments(posonlyargs=[], args=params, kwonlyargs=[], kw_defaults=[], defaults=[])
    tree = ast.fix_missing_locations(ast.Expression(ast.Lambda(args=args, body=body)))
    # Only the names of the checked subset are reachable: no builtins.
    scope: dict[str, Any] = {"__builtins__": {}, "pi": math.pi, **_FUNCTIONS}
    function: Callable[..., float] = eval(compile(tree, "<driver>", "eval"), scope)
    return function
