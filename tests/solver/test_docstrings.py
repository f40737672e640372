"""The docstring style of DEVELOPERS.md and the rule "no private names across modules", checked on the sources.

Pure: the add-on's files are parsed with :mod:`ast`, nothing is imported, so this runs with the solver tests
(no Blender). The rules:

- every module has a docstring (its one concept); every public top-level function and class has one, and so
  has every public method of a public class, except Blender's callbacks (``execute``, ``poll``, ``draw``, ...,
  and a module's ``register``/``unregister``: Blender documents them) and the members of a ``typing.Protocol``
  (the protocol's docstring covers them); a Blender class (``POSE_OT_*``, ``*_PT_*``, ...) may go without:
  its docstring is its tooltip, UI text with a translation, not documentation;
- the summary (the first paragraph) is prose ending with a period, except a Blender class's tooltip, which
  Blender's convention writes without one;
- sections are Google's (``Args:``, ``Returns:``, ``Raises:``, ``Yields:``, ``Attributes:``): no reST field
  lists (``:param x:``, ``:returns:``, ``:rtype:``), no numpydoc underlined headers, no other spellings
  (``Parameters:``, ``Arguments:``, ``Return:``); each ``Args:`` entry names a parameter the function has;
- no module imports an underscore name from another module (``from .rig import _inputs``) or reaches one
  through an imported module (``rig._inputs``): a name used across modules is public.

Why not ruff's pydocstyle rules (``D``, google convention): they ask for a one-line summary (D205, 138
docstrings here wrap their summary, which the house style allows), a closing quote on its own line (D209,
131 more), docstrings on every Blender callback (D102), and cannot express the cross-module rule.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("operators", "panels", "rigging", "solver")
if not (ROOT / "blender_manifest.toml").is_file():
    # scripts/mutation.sh runs tests/solver on a copy holding solver/ only (and rewritten by mutmut).
    pytest.skip("not a checkout of the whole add-on", allow_module_level=True)

# Files other helpers are editing in this session (their owners audit them); the lead removes each entry once
# that branch is merged and the file passes (test_pending_files_still_fail says when). The whole file is
# exempt from the checks above except the numpydoc / reST markers, which nothing uses.
PENDING: dict[str, str] = {}

# Methods Blender calls and documents; a docstring there would restate the API.
BLENDER_CALLBACKS = frozenset({
    "execute", "invoke", "modal", "poll", "draw", "draw_header", "draw_item", "filter_items", "cancel", "check",
    "description", "register", "unregister",
})
MODULE_CALLBACKS = frozenset({"register", "unregister"})  # a Blender module's protocol, called in order by __init__
BLENDER_CLASS = re.compile(r"^[A-Z][A-Z0-9]*_(OT|PT|UL|MT|HT|GT|GGT)_\w+$")
SECTIONS = ("Args", "Returns", "Raises", "Yields", "Attributes", "Example", "Examples", "Note", "Notes")
OTHER_SECTIONS = re.compile(
    r"^\s*(Arguments|Parameters|Params|Param|Return|Raise|Yield|Keyword Args|Other Parameters|See Also)\s*:\s*$",
    re.MULTILINE)
REST_FIELD = re.compile(r"^\s*:(param|type|returns?|rtype|raises?|ivar|cvar|var|yields?)\b", re.MULTILINE)
NUMPYDOC_HEADER = re.compile(r"^\s*[A-Z][A-Za-z ]+\n\s*-{3,}\s*$", re.MULTILINE)
SUMMARY_END = re.compile(r"(\.|\?|!|::?)[\"')`*]*$")
ARG_ENTRY = re.compile(r"^(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)(\s*\([^)]*\))?\s*:")  # "a, b: ..." shares one text


@dataclass(frozen=True)
class Fault:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def addon_files() -> list[Path]:
    files = [ROOT / "__init__.py"]
    for package in PACKAGES:
        files += sorted((ROOT / package).rglob("*.py"))
    return files


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def is_pending(name: str) -> bool:
    return any(name == key or (key.endswith("/") and name.startswith(key)) for key in PENDING)


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = node.args
    names = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    if a.vararg:
        names |= {a.vararg.arg, f"*{a.vararg.arg}"}
    if a.kwarg:
        names |= {a.kwarg.arg, f"**{a.kwarg.arg}"}
    return names


def _args_entries(doc: str) -> list[str]:
    """The parameter names the ``Args:`` section of ``doc`` lists (its entries, not their continuation lines)."""
    lines = doc.splitlines()
    names: list[str] = []
    for i, line in enumerate(lines):
        if line.strip() != "Args:":
            continue
        indent = None
        for entry in lines[i + 1:]:
            if not entry.strip():
                break
            depth = len(entry) - len(entry.lstrip())
            if indent is None:
                indent = depth
            if depth < indent or (depth == indent and entry.strip().rstrip(":") in SECTIONS):
                break
            if depth == indent:
                match = ARG_ENTRY.match(entry.strip())
                names += [n.strip() for n in match.group(1).split(",")] if match else [entry.strip()]
    return names


def _is_protocol(node: ast.ClassDef) -> bool:
    bases = [b.value if isinstance(b, ast.Subscript) else b for b in node.bases]  # Protocol[F] too
    return any((isinstance(b, ast.Name) and b.id == "Protocol") or (isinstance(b, ast.Attribute) and
                                                                    b.attr == "Protocol") for b in bases)


def style_faults(source: str, name: str) -> list[Fault]:
    """Where the docstrings of one module's ``source`` break the style (see the module docstring)."""
    tree = ast.parse(source)
    faults: list[Fault] = []
    if not ast.get_docstring(tree):
        faults.append(Fault(name, 1, "module has no docstring"))

    def need(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, label: str) -> None:
        if not ast.get_docstring(node):
            faults.append(Fault(name, node.lineno, f"{label} has no docstring"))

    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and not node.name.startswith("_"):
            # A Blender class's docstring is UI text (its tooltip, bl_description), not documentation.
            if node.name not in MODULE_CALLBACKS and not BLENDER_CLASS.match(node.name):
                need(node, node.name)
            if isinstance(node, ast.ClassDef) and not _is_protocol(node):
                for member in node.body:
                    if (isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef) and not member.name.startswith("_")
                            and member.name not in BLENDER_CALLBACKS):
                        need(member, f"{node.name}.{member.name}")

    for node in [tree, *ast.walk(tree)]:
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        doc = ast.get_docstring(node)
        if not doc:
            continue
        line = getattr(node, "lineno", 1)
        label = getattr(node, "name", "module")
        summary = doc.split("\n\n")[0].strip()
        if not (isinstance(node, ast.ClassDef) and BLENDER_CLASS.match(node.name)) and not SUMMARY_END.search(summary):
            faults.append(Fault(name, line, f"{label}: the summary does not end with a period: ...{summary[-40:]!r}"))
        for pattern, what in ((OTHER_SECTIONS, "a section Google spells otherwise"),
                              (NUMPYDOC_HEADER, "a numpydoc section header")):
            found = pattern.search(doc)
            if found:
                faults.append(Fault(name, line, f"{label}: {what}: {found.group(0).strip()!r}"))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            known = _parameters(node)
            for entry in _args_entries(doc):
                if entry not in known:
                    faults.append(Fault(name, line, f"{label}: Args names {entry!r}, which is no parameter"))
    return faults


def marker_faults(source: str, name: str) -> list[Fault]:
    """reST field lists in any docstring of ``source`` (checked in every file, pending ones too)."""
    faults = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node)
            found = REST_FIELD.search(doc or "")
            if found:
                faults.append(Fault(name, getattr(node, "lineno", 1), f"a reST field: {found.group(0).strip()!r}"))
    return faults


def private_import_faults(source: str, name: str) -> list[Fault]:
    """Underscore names ``source`` takes from other modules: imported by name, or reached as ``module._name``."""
    tree = ast.parse(source)
    faults: list[Fault] = []
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    faults.append(Fault(name, node.lineno, f"imports {alias.name} from {node.module or '.'}"))
                imported.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            imported.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in imported:
                faults.append(Fault(name, node.lineno, f"reaches {ast.unparse(node)} of another module"))
    return faults


def all_faults(path: Path) -> list[Fault]:
    source, name = path.read_text(encoding="utf-8"), relative(path)
    return style_faults(source, name) + private_import_faults(source, name)


@pytest.mark.parametrize("package", ["__init__.py", *PACKAGES])
def test_docstrings_follow_the_style_and_names_stay_private(package: str) -> None:
    files = [p for p in addon_files() if relative(p) == package or relative(p).startswith(f"{package}/")]
    assert files
    faults = [str(f) for p in files if not is_pending(relative(p)) for f in all_faults(p)]
    assert faults == []


def test_no_rest_fields_anywhere() -> None:
    faults = [str(f) for p in addon_files() for f in marker_faults(p.read_text(encoding="utf-8"), relative(p))]
    assert faults == []


def test_pending_files_still_fail() -> None:
    """An entry of PENDING whose files now pass (or no longer exist) is to be removed from it."""
    files = addon_files()
    for key in PENDING:
        covered = [p for p in files if is_pending(relative(p)) and (relative(p) == key or relative(p).startswith(key))]
        assert covered, f"PENDING names {key}, which is no file or folder of the add-on: remove the entry"
        assert any(all_faults(p) for p in covered), f"{key} passes now: remove it from PENDING"


GOOD = '''"""One concept."""

from .rig import chain_rig


def public(a, *rest, b=1):
    """Do it.

    Args:
        a: the first.
            More about it.
        a, b: both.
        *rest: the others.
        b (int): the last.

    Returns:
        Something.
    """


class Thing:
    """A thing, wrapped over
    two lines."""

    def execute(self, context):
        pass

    def _private(self):
        pass
'''


@pytest.mark.parametrize(("bad", "expected"), [
    (GOOD.replace('"""One concept."""\n', ""), "module has no docstring"),
    (GOOD + "\n\ndef other():\n    pass\n", "other has no docstring"),
    (GOOD.replace("        pass\n\n    def _private", "        pass\n\n    def private"), "Thing.private has no"),
    (GOOD.replace("Do it.", "Do it"), "does not end with a period"),
    (GOOD.replace("    Args:", "    Parameters:"), "Google spells otherwise"),
    (GOOD.replace("    Returns:\n        Something.", "    Returns\n    -------\n    Something."), "numpydoc"),
    (GOOD.replace("        b (int)", "        c (int)"), "Args names 'c'"),
    (GOOD.replace("import chain_rig", "import _inputs"), "imports _inputs from rig"),
    (GOOD.replace("from .rig import chain_rig", "from . import rig\n\nrig._inputs()"), "reaches rig._inputs"),
])
def test_the_checks_can_fail(bad: str, expected: str) -> None:
    assert all_faults_of(GOOD) == []
    assert any(expected in str(f) for f in all_faults_of(bad)), all_faults_of(bad)


def test_rest_fields_are_seen() -> None:
    assert marker_faults(GOOD, "x.py") == []
    assert marker_faults(GOOD.replace("Do it.", "Do it.\n\n    :param a: the first."), "x.py")


def all_faults_of(source: str) -> list[Fault]:
    return style_faults(source, "x.py") + private_import_faults(source, "x.py")
