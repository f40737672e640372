"""Turn what ``scripts/demo.py`` rendered and measured in Blender into the README's pictures.

Run with the plots environment (matplotlib, Pillow; ``scripts/setup_envs.sh plots``):
``.venvs/plots/bin/python scripts/demo_plots.py WORK_DIR DOCS_DIR``. Writes ``demo_compare.png``
(Blender's IK constraint against Soft IK 2D), ``demo_error.png`` (the bake's soft_ik_error curves) and
``demo_walk.gif`` (the character walking and reaching).
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from PIL import Image, ImageDraw, ImageFont

LIMITED = 8 | 16  # result flags: a joint limit changed the solve (docs/design.md)
SOFTENED = 4
CHAIN_COLORS = {"Leg.L": "#2a7ab0", "Leg.R": "#7fb2d6", "Arm.L": "#d9822b", "Arm.R": "#c2185b"}
SOFT, BLENDER = "#2b6fd1", "#d9541e"
GIF_LIMIT = 2_000_000  # bytes


def _spans(mask: np.ndarray, frames: np.ndarray) -> list[tuple[float, float]]:
    """Runs of True as (first - 0.5, last + 0.5) frame intervals."""
    edges = np.diff(np.concatenate([[0], mask.astype(int), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    return [(float(frames[a]) - 0.5, float(frames[b]) + 0.5) for a, b in zip(starts, ends, strict=True)]


def _plot_chain(ax: plt.Axes, c: dict, shade_limits: bool) -> None:
    frames = np.array(c["frames"])
    color = CHAIN_COLORS.get(c["name"], "0.3")
    err = np.array(c["error"]) * 1000.0  # millimetres: Blender units are metres
    ax.plot(frames, err, color=color, lw=2, zorder=3,
            label=f"{c['name']} ({c['space']} target): max {c['error_max'] * 1000:.1f} mm")
    measured = np.array(c["measured"]) * 1000.0
    ax.plot(frames[::3], measured[::3], "o", ms=3.5, mfc="none", mec=color, alpha=0.8, zorder=4)
    if not shade_limits:
        return
    limited = (np.array(c["flags"]) & LIMITED) != 0
    for i, (a, b) in enumerate(_spans(limited, frames)):
        ax.axvspan(a, b, color=color, alpha=0.18, lw=0, zorder=1,
                   label=(f"{c['name']}: elbow limit acted ({c['limited_frames']} frames; "
                          f"{c['strategy'].lower().replace('_', ' ')} kept the hand on the hip)") if i == 0 else None)


def error_plot(data: dict, path: Path) -> None:
    """Top: the chain with the largest error (the door arm); bottom: the others at their own scale."""
    chains = sorted(data["chains"], key=lambda c: -c["error_max"])
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6.2), dpi=110, sharex=True,
                                      gridspec_kw={"height_ratios": [1.5, 1]})
    worst = chains[0]
    _plot_chain(top, worst, shade_limits=True)
    for c in chains[1:]:
        _plot_chain(bottom, c, shade_limits=True)
    i = int(np.argmax(worst["error"]))
    top.annotate("the door slides out of reach:\nthe arm eases to full extension,\nthe hand trails the handle",
                 (worst["frames"][i], worst["error"][i] * 1000), xytext=(44, worst["error_max"] * 1000 * 0.55),
                 textcoords="data",
                 fontsize=9, arrowprops={"arrowstyle": "->", "color": "0.3"})
    for ax in (top, bottom):
        ax.plot([], [], "o", ms=3.5, mfc="none", mec="0.3", label="measured by playing the scene back")
        ax.set_ylabel("soft_ik_error (mm)")
        ax.grid(alpha=0.3)
    top.set_ylim(-0.05 * worst["error_max"] * 1000, worst["error_max"] * 1000 * 1.12)
    top.legend(fontsize=8.5, loc="upper center", framealpha=0.9)
    rest_max = max(c["error_max"] for c in chains[1:]) * 1000 if len(chains) > 1 else 1.0
    bottom.set_ylim(-0.1 * max(rest_max, 0.1), max(rest_max, 0.1) * 2.6)
    bottom.legend(fontsize=8.5, loc="upper center", framealpha=0.9, ncol=2)
    bottom.set_xlim(data["frames"][0], data["frames"][1])
    bottom.set_xlabel("frame")
    fig.suptitle("The demo bake's soft_ik_error curves, the keys the Graph Editor shows (limited frames shaded)",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _cell_note(sc: dict, key: str, i: int) -> tuple[str, str]:
    """What to look at in one rendered cell, from Blender's measured pose: (text, colour)."""
    m = sc[key]
    elbow = m["elbow_deg"][i]
    first = m["elbow_deg"][0]
    if m["turned_over"][i]:
        return "arm turned over:\nthe sprite's back shows", "#b00020"
    if np.sign(elbow) != np.sign(first) and abs(elbow) > 0.5:
        if sc.get("plot") == "facing":  # the pole asked for the other side, and the bend stayed in the plane
            return "bend mirrored in the plane\n(sprite faces front)", "0.2"
        return f"elbow flipped ({elbow:+.0f}°)", "#b00020"
    jump = elbow - m["elbow_deg"][i - 1] if i else 0.0
    if abs(elbow) < 0.5:
        if key == "blender" and abs(jump) > 5.0:
            return f"popped straight\n({jump:+.0f}° in one frame)", "#b00020"
        return "straight", "#b00020" if key == "blender" else "0.2"
    return f"elbow {elbow:+.0f}°", "0.2"


def compare_plot(data: dict, work: Path, path: Path) -> None:
    scenarios = data["compare"]
    fig = plt.figure(figsize=(14, 6.2 * len(scenarios)), dpi=90)
    subfigs = np.atleast_1d(fig.subfigures(len(scenarios), 1, hspace=0.04))
    for sf, sc in zip(subfigs, scenarios, strict=True):
        shown = sc["shown"]
        frames = np.array(sc["frames"])
        gs = sf.add_gridspec(2, len(shown) + 1, width_ratios=[1] * len(shown) + [1.75], wspace=0.06, hspace=0.12,
                             left=0.07, right=0.94, top=0.83, bottom=0.07)
        sf.suptitle(f"{sc['title']}: same rig, same target path", fontsize=15, fontweight="bold", y=0.985)
        sf.text(0.5, 0.935, textwrap.fill(sc["note"], 165), ha="center", va="top", fontsize=10.5, color="0.25")
        for row, (key, label, color) in enumerate((("blender", "Blender's IK\nconstraint", BLENDER),
                                                   ("soft", "Soft IK 2D", SOFT))):
            for col, f in enumerate(shown):
                ax = sf.add_subplot(gs[row, col])
                ax.imshow(Image.open(work / "compare" / f"{sc['name']}_{key}_{f:03d}.png"))
                ax.set_xticks([])
                ax.set_yticks([])
                for spine in ax.spines.values():
                    spine.set_color(color)
                    spine.set_linewidth(2)
                i = int(np.where(frames == f)[0][0])
                text, tcolor = _cell_note(sc, key, i)
                ax.text(0.03, 0.04, text, transform=ax.transAxes, fontsize=8.8, color=tcolor,
                        fontweight="bold", bbox={"fc": "white", "ec": "none", "alpha": 0.8, "pad": 1.5})
                if row == 0:
                    reach = sc["soft"]["reach"][i]
                    ax.set_title(f"frame {f} · target {reach:.2f}× reach", fontsize=9)
                if col == 0:
                    ax.set_ylabel(label, fontsize=12, color=color, fontweight="bold")
        ax = sf.add_subplot(gs[:, -1])
        metric = sc.get("plot", "elbow_deg")
        for key, label, color in (("blender", "Blender's IK constraint", BLENDER), ("soft", "Soft IK 2D", SOFT)):
            ax.plot(frames, sc[key][metric], color=color, lw=2.2, marker=".", ms=5, label=label)
        for f in shown:
            ax.axvline(f, color="0.6", lw=0.8, ls=":")
        ax.axhline(0, color="0.4", lw=0.8)
        ax.set_xlabel("frame (dotted: the frames shown)")
        if metric == "facing":
            ax.set_ylabel("sprites face the camera: +1 front, -1 back\n(bone normal axes, measured in Blender)")
            ax.set_ylim(-1.15, 1.15)
        else:
            ax.set_ylabel("elbow bend (°), measured in Blender")
        ax.yaxis.set_label_position("right")
        ax.yaxis.tick_right()
        ax.grid(alpha=0.3)
        ax.legend(fontsize=9, loc="best", framealpha=0.9)
    fig.savefig(path)
    plt.close(fig)


def walk_gif(data: dict, work: Path, path: Path) -> None:
    frames = sorted((work / "walk").glob("walk_*.png"))
    if not frames:
        raise SystemExit(f"no rendered frames in {work / 'walk'}")
    font = ImageFont.load_default(size=13)
    caption = "Soft IK 2D bake | feet: WORLD | hand on hip: CHARACTER | hand on door: OBJECT"
    images = []
    for p in frames:
        im = Image.open(p).convert("RGB")
        draw = ImageDraw.Draw(im)
        draw.rectangle((0, 0, im.width, 22), fill=(255, 255, 255))
        draw.text((8, 4), caption, fill=(40, 40, 40), font=font)
        frame = int(p.stem.split("_")[-1])
        draw.text((im.width - 8, 4), f"frame {frame}", fill=(110, 110, 110), font=font, anchor="ra")
        images.append(im)
    duration = round(1000 * data["gif_step"] / data["fps"])
    scale = 1.0
    while True:
        size = (int(images[0].width * scale), int(images[0].height * scale))
        pal = [im.resize(size, Image.Resampling.LANCZOS).quantize(colors=96, method=Image.Quantize.MEDIANCUT)
               for im in images]
        pal[0].save(path, save_all=True, append_images=pal[1:], duration=duration, loop=0, optimize=True)
        if path.stat().st_size <= GIF_LIMIT or scale < 0.5:
            break
        scale *= 0.85


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    work, docs = Path(argv[0]), Path(argv[1])
    docs.mkdir(parents=True, exist_ok=True)
    data = json.loads((work / "demo.json").read_text(encoding="utf-8"))
    outputs = [docs / "demo_error.png"]
    error_plot(data, outputs[0])
    if "compare" in data:
        outputs += [docs / "demo_compare.png", docs / "demo_walk.gif"]
        compare_plot(data, work, outputs[1])
        walk_gif(data, work, outputs[2])
    for p in outputs:
        print(f"wrote {p} ({p.stat().st_size / 1e3:.0f} kB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
