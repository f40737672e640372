"""A tiny numpy rasterizer that writes PNG files, so the demo picture needs nothing beyond numpy."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

import numpy as np

Color = tuple[int, int, int]


class Canvas:
    """RGB canvas with a world-to-pixel mapping for a rectangle of the plane (y up)."""

    def __init__(self, width: int, height: int, bounds: tuple[float, float, float, float],
                 background: Color = (250, 250, 247)) -> None:
        self.width, self.height = width, height
        self.pixels = np.empty((height, width, 3), dtype=np.float64)
        self.pixels[:] = background
        x0, y0, x1, y1 = bounds
        scale = min((width - 20) / max(x1 - x0, 1e-9), (height - 20) / max(y1 - y0, 1e-9))
        self._scale = scale
        self._offset = np.array([width / 2 - scale * (x0 + x1) / 2, height / 2 + scale * (y0 + y1) / 2])

    def to_pixels(self, points: np.ndarray) -> np.ndarray:
        p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        return np.stack([self._offset[0] + self._scale * p[:, 0], self._offset[1] - self._scale * p[:, 1]], axis=1)

    def _splat(self, px: np.ndarray, color: Color, alpha: float, radius: float) -> None:
        r = max(radius, 0.5)
        span = int(np.ceil(r + 1))
        offsets = np.arange(-span, span + 1)
        for dy in offsets:
            for dx in offsets:
                x = np.floor(px[:, 0]).astype(int) + dx
                y = np.floor(px[:, 1]).astype(int) + dy
                dist = np.hypot(x + 0.5 - px[:, 0], y + 0.5 - px[:, 1])
                cover = np.clip(r + 0.5 - dist, 0.0, 1.0) * alpha
                ok = (x >= 0) & (x < self.width) & (y >= 0) & (y < self.height) & (cover > 0)
                xs, ys, cs = x[ok], y[ok], cover[ok][:, None]
                self.pixels[ys, xs] = self.pixels[ys, xs] * (1 - cs) + np.array(color) * cs

    def polyline(self, points: np.ndarray, color: Color, width: float = 1.5, alpha: float = 1.0) -> None:
        px = self.to_pixels(points)
        if len(px) == 1:
            self._splat(px, color, alpha, width / 2)
            return
        seg = np.diff(px, axis=0)
        steps = np.maximum(np.ceil(np.hypot(seg[:, 0], seg[:, 1]) * 2), 1).astype(int)
        samples = [px[i] + seg[i] * (np.arange(n)[:, None] / n) for i, n in enumerate(steps)]
        self._splat(np.vstack([*samples, px[-1:]]), color, alpha, width / 2)

    def circle(self, center: Sequence[float], radius: float, color: Color, width: float = 1.0,
               alpha: float = 1.0, dashed: bool = False) -> None:
        t = np.linspace(0, 2 * np.pi, 361)
        pts = np.asarray(center) + radius * np.stack([np.cos(t), np.sin(t)], axis=1)
        if not dashed:
            self.polyline(pts, color, width, alpha)
            return
        for i in range(0, 360, 8):
            self.polyline(pts[i:i + 5], color, width, alpha)

    def dot(self, center: Sequence[float], color: Color, size: float = 4.0) -> None:
        self._splat(self.to_pixels(np.asarray(center)), color, 1.0, size)

    def save(self, path: str) -> None:
        img = np.clip(self.pixels, 0, 255).astype(np.uint8)
        raw = b"".join(b"\x00" + row.tobytes() for row in img)

        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
                    + chunk(b"IEND", b""))
