"""What the GUI tests share: the window's 3D view and sidebar, event simulation, pixels, console errors.

``G`` is the one instance; the runner hands it to every test. Tests are generators (see ``runner.py``): a
helper that needs Blender to process events or redraw is a generator too (``yield from G.open_tab(...)``).
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import bpy
import numpy as np

CATEGORY = "Soft IK"
Tick = Iterator[float | None]


class Skip(Exception):
    """Raised by a test that cannot run on this Blender (reported as skipped, not failed)."""


class StderrTap(io.TextIOBase):
    """Passes everything on to the real stderr and keeps a copy, so a test can see tracebacks Blender printed
    (a panel's ``draw`` or a draw callback that raised)."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.text = io.StringIO()

    def write(self, s: str) -> int:
        self.text.write(s)
        return self.real.write(s)

    def flush(self) -> None:
        self.real.flush()

    def mark(self) -> int:
        return len(self.text.getvalue())

    def since(self, mark: int) -> str:
        return self.text.getvalue()[mark:]

    def tracebacks_since(self, mark: int) -> str:
        text = self.since(mark)
        return text if re.search(r"Traceback \(most recent call last\)|^\w*Error: ", text, re.M) else ""


class Gui:
    def __init__(self) -> None:
        self.tap = StderrTap(sys.stderr)
        self.out = Path("/tmp")
        self.name = ""
        self._pixel_request: tuple[str, Any] | None = None
        self._pixels: dict[str, np.ndarray] = {}
        self._pixel_handle: Any = None

    # --- runner hooks -------------------------------------------------------------------------------------
    def install_tap(self) -> None:
        sys.stderr = self.tap

    def start_test(self, name: str, out: Path) -> None:
        self.name, self.out = name, out

    def end_test(self) -> None:
        self.set_language("en_US")
        if self._pixel_handle is not None:
            bpy.types.SpaceView3D.draw_handler_remove(self._pixel_handle, "WINDOW")
            self._pixel_handle = None

    # --- the window -----------------------------------------------------------------------------------------
    @property
    def window(self) -> bpy.types.Window:
        return bpy.context.window_manager.windows[0]

    @property
    def area(self) -> bpy.types.Area:
        areas = [a for a in self.window.screen.areas if a.type == "VIEW_3D"]
        return max(areas, key=lambda a: a.width * a.height)

    def region(self, kind: str = "WINDOW") -> bpy.types.Region:
        return next(r for r in self.area.regions if r.type == kind)

    @property
    def sidebar(self) -> bpy.types.Region:
        return self.region("UI")

    @property
    def space(self) -> bpy.types.SpaceView3D:
        return self.area.spaces.active

    @property
    def rv3d(self) -> bpy.types.RegionView3D:
        return self.space.region_3d

    @contextmanager
    def override(self, region: str = "WINDOW") -> Iterator[None]:
        with bpy.context.temp_override(window=self.window, area=self.area, region=self.region(region)):
            yield

    def redraw(self) -> None:
        for area in self.window.screen.areas:
            area.tag_redraw()

    def wait(self, ticks: int = 3) -> Tick:
        for _ in range(ticks):
            self.redraw()
            yield 0.05

    # --- events ---------------------------------------------------------------------------------------------
    def to_window(self, region: bpy.types.Region, x: float, y: float) -> tuple[int, int]:
        return round(region.x + x), round(region.y + y)

    def event(self, type: str, value: str, x: int | None = None, y: int | None = None, **mods: bool) -> None:
        """One simulated event at window coordinates (x, y); the mouse stays where it was when omitted."""
        kwargs: dict[str, Any] = dict(type=type, value=value, **mods)
        if x is not None and y is not None:
            kwargs.update(x=int(x), y=int(y))
            self._mouse = (int(x), int(y))
        elif hasattr(self, "_mouse"):
            kwargs.update(x=self._mouse[0], y=self._mouse[1])
        self.window.event_simulate(**kwargs)

    def move(self, x: int, y: int) -> None:
        self.event("MOUSEMOVE", "NOTHING", x, y)

    def key(self, type: str, **mods: bool) -> None:
        self.event(type, "PRESS", **mods)
        self.event(type, "RELEASE", **mods)

    def click(self, x: int, y: int) -> Tick:
        self.move(x, y)
        yield 0.05
        self.event("LEFTMOUSE", "PRESS", x, y)
        yield 0.05
        self.event("LEFTMOUSE", "RELEASE", x, y)
        yield 0.1

    # --- the scene ------------------------------------------------------------------------------------------
    def reset_scene(self) -> None:
        """An empty scene: object mode, no objects, actions or armatures (the factory cube etc. go too)."""
        obj = bpy.context.view_layer.objects.active
        if obj is not None and obj.mode != "OBJECT":
            with self.override():
                bpy.ops.object.mode_set(mode="OBJECT")
        for collection in (bpy.data.objects, bpy.data.armatures, bpy.data.actions, bpy.data.meshes,
                           bpy.data.cameras, bpy.data.lights):
            for item in list(collection):
                collection.remove(item)
        scene = bpy.context.scene
        scene.frame_start, scene.frame_end = 1, 20
        scene.frame_set(1)

    def front_view(self, center: tuple[float, float, float], distance: float = 4.0) -> None:
        """Front orthographic view (looking along +Y: the XZ plane) centred on ``center``."""
        from mathutils import Quaternion, Vector

        rv3d = self.rv3d
        rv3d.view_perspective = "ORTHO"
        rv3d.view_rotation = Quaternion((1.0, 0.0, 0.0), np.pi / 2)  # front: -Y looks toward +Y
        rv3d.view_location = Vector(center)
        rv3d.view_distance = distance
        rv3d.update()

    def project(self, co: Any) -> tuple[float, float]:
        """Pixel of world point ``co`` in the viewport region (region coordinates)."""
        from bpy_extras.view3d_utils import location_3d_to_region_2d

        p = location_3d_to_region_2d(self.region(), self.rv3d, co)
        assert p is not None, f"{tuple(co)} is behind the view"
        return float(p.x), float(p.y)

    def set_language(self, language: str) -> None:
        view = bpy.context.preferences.view
        if language == "en_US":
            view.language = "en_US"
            view.use_translate_interface = False
            return
        view.language = language
        view.use_translate_interface = True
        view.use_translate_tooltips = True
        view.use_translate_reports = True

    # --- the sidebar ----------------------------------------------------------------------------------------
    def open_tab(self, category: str = CATEGORY) -> Tick:
        """Show the sidebar and switch it to ``category`` with Ctrl+wheel over it (its tab is read-only in RNA),
        falling back to clicking down the tab strip."""
        if self.space.show_region_ui and self.sidebar.active_panel_category == category:
            return
        self.space.show_region_ui = True
        yield from self.wait(3)
        ui = self.sidebar
        for direction in ("WHEELDOWNMOUSE", "WHEELUPMOUSE"):
            for _ in range(12):
                if ui.active_panel_category == category:
                    return
                self.move(*self.to_window(ui, ui.width / 2, ui.height / 2))
                yield 0.05
                self.event(direction, "PRESS", ctrl=True)
                yield from self.wait(2)
        for y in range(ui.height - 10, 0, -12):
            if ui.active_panel_category == category:
                return
            yield from self.click(*self.to_window(ui, ui.width - 8, y))
        assert ui.active_panel_category == category, f"could not open the {category!r} tab " \
                                                     f"(showing {ui.active_panel_category!r})"

    # --- pixels ---------------------------------------------------------------------------------------------
    def viewport_pixels(self, key: str) -> Tick:
        """Reads the viewport region's pixels (after every draw callback of the add-on) into ``pixels[key]``:
        a (height, width, 4) uint8 array, row 0 at the bottom."""
        import gpu

        def read() -> None:
            if self._pixel_request is None or bpy.context.area != self.area:
                return
            name, _ = self._pixel_request
            region = bpy.context.region
            fb = gpu.state.active_framebuffer_get()
            buf = fb.read_color(0, 0, region.width, region.height, 4, 0, "UBYTE")
            buf.dimensions = region.width * region.height * 4
            self._pixels[name] = np.array(buf, dtype=np.uint8).reshape(region.height, region.width, 4)
            self._pixel_request = None

        if self._pixel_handle is None:
            self._pixel_handle = bpy.types.SpaceView3D.draw_handler_add(read, (), "WINDOW", "POST_PIXEL")
        self._pixels.pop(key, None)
        self._pixel_request = (key, None)
        for _ in range(40):
            self.region().tag_redraw()
            yield 0.05
            if key in self._pixels:
                return
        raise AssertionError("the viewport never drew")

    @property
    def pixels(self) -> dict[str, np.ndarray]:
        return self._pixels

    def grab(self, path: Path) -> None:
        """An X-level screenshot of the whole screen (Blender's own screenshot is black under Xvfb)."""
        subprocess.run(["import", "-window", "root", str(path)], check=True, timeout=30)


G = Gui()
