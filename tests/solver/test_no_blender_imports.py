"""solver/ is pure Python + numpy: importing it must not pull in Blender modules."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SOLVER = Path(__file__).resolve().parents[2] / "solver"


def test_importing_solver_loads_no_blender_module() -> None:
    code = (
        "import sys, solver\n"
        "solver.solve_two_bone([[1.0, 2.0]], 2.0, 1.5)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('bpy', 'mathutils', 'bmesh', 'gpu'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=SOLVER.parent, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_solver_sources_do_not_mention_blender_imports() -> None:
    pattern = re.compile(r"^\s*(import|from)\s+(bpy|mathutils|bmesh|gpu)\b", re.MULTILINE)
    sources = list(SOLVER.rglob("*.py"))  # the packages (two_bone/, chain_common/) too
    offenders = [str(p.relative_to(SOLVER)) for p in sources if pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
    assert len(sources) >= 5 and any(p.parent.name == "two_bone" for p in sources)
