"""The package layers of docs/design.md: each imports only the layers below it (solver <- rigging <- UI)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IMPORT = re.compile(r"^\s*from\s+(\.+)([\w.]*)\s+import\s+([\w, ()]+)", re.MULTILINE)
# What each layer may not import (relative imports only, as the extension platform asks).
FORBIDDEN = {"solver": {"rigging", "operators", "panels"}, "rigging": {"operators", "panels"}}


def imported_packages(path: Path) -> set[str]:
    """Top-level packages of the extension that a module imports relatively."""
    depth = len(path.relative_to(ROOT).parts) - 1  # folders below the extension root
    found = set()
    for dots, module, names in IMPORT.findall(path.read_text(encoding="utf-8")):
        up = len(dots) - 1
        here = list(path.relative_to(ROOT).parts[:-1])
        base = here[: len(here) - up] if up <= depth else None
        if base is None:
            continue
        target = [*base, *([p for p in module.split(".") if p])]
        if target:
            found.add(target[0])
        else:  # "from .. import x, y" at the root: each name is a package or module
            found.update(n.strip(" ()") for n in names.split(","))
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_below_it(layer: str) -> None:
    modules = sorted((ROOT / layer).rglob("*.py"))
    assert modules, f"no modules in {layer}/"
    offenders = {str(p.relative_to(ROOT)): sorted(imported_packages(p) & FORBIDDEN[layer]) for p in modules}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_check_sees_imports() -> None:
    module = ROOT / "rigging" / "bake.py"
    assert "solver" in imported_packages(module)
    assert imported_packages(ROOT / "operators" / "common.py") & {"rigging"}
