"""The command line against a real Blender binary (inside the GUI chroot, started by scripts/cli_tests.sh; plain
Python, no pytest there). Needs the extension installed and enabled in $BLENDER_USER_RESOURCES.

Files (tests/cli/make_shots.py): two good shots, one with a refused chain, a truncated one, one whose target a
Python-expression driver moves, and a missing path. Truth comes from playing the saved files back in Blender
without the add-on (tests/cli/check_shots.py). One line per test, ``CLI-RESULT passed|failed NAME``, and
pytest's closing line ``N passed, M failed in Ts``. Exit status 1 if anything failed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = Path(os.environ.get("CLI_WORK", "/tmp/cli"))
OUT = Path(os.environ.get("CLI_OUT", "/out"))
BLENDER = os.environ.get("CLI_BLENDER", "blender")
FLAMENCO = OUT / "flamenco_tasks.json"  # the job compiler's command lines, made on the host with node
SHOTS = WORK / "shots"
TOL = 1e-4 * 1.8  # 1e-4 of the arm's length, as the bake's own verification
FILES = ["good_a.blend", "good_b.blend", "bad.blend", "truncated.blend", "driver.blend", "missing.blend"]
state: dict[str, object] = {}


def run(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, check=False)
    log = OUT / "commands.log"
    with log.open("a") as f:
        f.write(f"$ {' '.join(args)}\n(rc={proc.returncode})\n{proc.stdout}\n{proc.stderr}\n")
    return proc


def bake(*args: str) -> subprocess.CompletedProcess[str]:
    return run(BLENDER, "--command", "soft_ik_2d", "bake", *args)


def copy_shots(name: str) -> Path:
    folder = WORK / name
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(SHOTS, folder)
    return folder


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def playback(path: Path, autoexec: bool = False) -> dict[str, dict]:
    out = WORK / f"check_{path.parent.name}_{path.stem}.json"
    proc = run(BLENDER, "--background", "--factory-startup", "--python", str(HERE / "check_shots.py"), "--",
               str(path), str(SHOTS / "truth.json"), str(out), *(["--autoexec"] if autoexec else []))
    assert proc.returncode == 0 and out.exists(), proc.stderr[-2000:]
    return json.loads(out.read_text())


def by_name(report: dict) -> dict[str, dict]:
    return {os.path.basename(e["file"]): e for e in report["files"]}


def assert_baked_true(path: Path, entry: dict, autoexec: bool = False) -> None:
    """Every baked chain plays back with the tip on the target, and the keyed error is that distance."""
    truth = playback(path, autoexec)
    for chain in entry["chains"]:
        assert chain["status"] == "baked", chain
        rows = truth[chain["chain"]]["rows"]
        assert len(rows) == chain["frames"], (len(rows), chain)
        worst = max(r["distance"] for r in rows)
        assert worst < TOL, f"{path.name} {chain['chain']}: tip {worst} from the target"
        assert all(abs(r["keyed_error"] - r["distance"]) < TOL for r in rows), chain["chain"]
        assert abs(chain["error_max"] - max(r["keyed_error"] for r in rows)) < 1e-6, chain


# --- the tests, in order (later ones use what earlier ones made) ---------------------------------------------


def test_make_shots() -> None:
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    proc = run(BLENDER, "--background", "--factory-startup", "--python", str(HERE / "make_shots.py"), "--",
               str(SHOTS))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert all((SHOTS / f).exists() for f in FILES if f != "missing.blend")


def _bake_all(jobs: int) -> tuple[subprocess.CompletedProcess[str], dict, Path, dict[str, str]]:
    folder = copy_shots(f"jobs{jobs}")
    before = {f: sha(folder / f) for f in FILES if (folder / f).exists()}
    report = WORK / f"report_jobs{jobs}.json"
    proc = bake(*[str(folder / f) for f in FILES], "--save", "--jobs", str(jobs), "--report", str(report))
    return proc, json.loads(report.read_text()), folder, before


def test_bake_jobs_1() -> None:
    proc, report, folder, before = _bake_all(1)
    state["jobs1"] = (proc, report, folder, before)
    (OUT / "report_jobs1.json").write_text(json.dumps(report, indent=2))  # kept with the logs, for reading
    assert proc.returncode == 1, proc.returncode  # refused and failed files
    lines = [line for line in proc.stdout.splitlines() if line.startswith("[")]
    assert len(lines) == len(FILES), lines  # one progress line per file
    assert not report["ok"]


def test_report_contents() -> None:
    _proc, report, folder, _before = state["jobs1"]
    files = by_name(report)
    assert [os.path.basename(e["file"]) for e in report["files"]] == FILES
    assert files["good_a.blend"]["status"] == "baked" and files["good_b.blend"]["status"] == "baked"
    assert [c["chain"] for c in files["good_b.blend"]["chains"]] == ["LeftArm", "RightArm"]
    for name, frames in (("good_a.blend", 24), ("good_b.blend", 30)):
        for chain in files[name]["chains"]:
            assert chain["frames"] == frames and chain["error_max"] < TOL and chain["error_mean"] <= chain["error_max"]
            assert chain["limited_frames"] == 0 and chain["skipped_frames"] == []
        assert files[name]["saved"] == str(folder / name)
        assert files[name]["stepped_inputs"] == {}
    bad = files["bad.blend"]
    assert bad["status"] == "refused" and bad["saved"] is None
    assert "Copy Rotation" in bad["chains"][0]["message"] and "'Lower'" in bad["chains"][0]["message"], bad
    driver = files["driver.blend"]
    assert driver["status"] == "refused", driver
    message = driver["chains"][0]["message"]
    assert "driver location[0] of 'RigTarget' needs auto-run" in message, message
    assert "__import__" in message and "--enable-autoexec" in message
    truncated = files["truncated.blend"]
    assert truncated["status"] == "failed" and "could not be opened" in truncated["error"], truncated
    missing = files["missing.blend"]
    assert missing["status"] == "failed" and "does not exist" in missing["error"], missing


def test_good_files_baked_true() -> None:
    _proc, report, folder, _before = state["jobs1"]
    files = by_name(report)
    for name in ("good_a.blend", "good_b.blend"):
        assert_baked_true(folder / name, files[name])


def test_refused_files_unchanged() -> None:
    _proc, _report, folder, before = state["jobs1"]
    for name in ("bad.blend", "driver.blend", "truncated.blend"):
        assert sha(folder / name) == before[name], name
    assert sha(folder / "good_a.blend") != before["good_a.blend"]
    assert not (WORK / "AUTORUN_RAN").exists(), "the file's script ran: auto-run was on"


def _normal(report: dict) -> list[dict]:
    """The report without what differs between runs (timings, folders, process details)."""
    out = []
    for e in report["files"]:
        e = {k: v for k, v in e.items() if k not in ("seconds", "process_seconds", "exit_status", "log")}
        e["file"] = os.path.basename(e["file"])
        e["saved"] = e["saved"] and os.path.basename(e["saved"])
        e["error"] = e["error"] and e["error"].replace("jobs2", "jobsN").replace("jobs1", "jobsN")
        out.append(e)
    return out


def test_jobs_2_same_as_jobs_1() -> None:
    proc, report, folder, _before = _bake_all(2)
    assert proc.returncode == state["jobs1"][0].returncode
    assert _normal(report) == _normal(state["jobs1"][1])
    a = playback(folder / "good_b.blend")
    b = playback(state["jobs1"][2] / "good_b.blend")
    assert a == b


def test_all_good_exit_zero_and_output_dir() -> None:
    folder = copy_shots("good_only")
    out = WORK / "baked"
    report = WORK / "report_good.json"
    before = sha(folder / "good_a.blend")
    proc = bake(str(folder / "good_a.blend"), str(folder / "good_b.blend"), "--output-dir", str(out),
                "--report", str(report), "--frames", "3-20")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(report.read_text())
    assert data["ok"] and sha(folder / "good_a.blend") == before  # the input is untouched
    for entry in data["files"]:
        assert entry["saved"] == str(out / os.path.basename(entry["file"]))
        assert (entry["frame_start"], entry["frame_end"]) == (3, 20)
        assert all(c["frames"] == 18 for c in entry["chains"])


def test_chain_and_armature_filters() -> None:
    folder = copy_shots("filters")
    report = WORK / "report_filters.json"
    proc = bake(str(folder / "good_b.blend"), "--armature", "Right", "--save", "--report", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    entry = json.loads(report.read_text())["files"][0]
    assert [c["chain"] for c in entry["chains"]] == ["RightArm"]
    proc = bake(str(folder / "good_b.blend"), "--chain", "NoSuchArm", "--report", str(report))
    assert proc.returncode == 1
    entry = json.loads(report.read_text())["files"][0]
    assert "NoSuchArm" in entry["error"] and "LeftArm" in entry["error"], entry


def test_autoexec_preference_ignored_flag_honoured() -> None:
    # The user's preferences turn auto-run on: the command still keeps it off.
    proc = run(BLENDER, "--background", "--python-expr",
               "import bpy; bpy.context.preferences.filepaths.use_scripts_auto_execute = True; "
               "bpy.ops.wm.save_userpref()")
    assert proc.returncode == 0, proc.stderr
    try:
        folder = copy_shots("autoexec")
        report = WORK / "report_autoexec.json"
        before = sha(folder / "driver.blend")
        proc = bake(str(folder / "driver.blend"), "--save", "--report", str(report))
        assert proc.returncode == 1
        assert "needs auto-run" in json.loads(report.read_text())["files"][0]["chains"][0]["message"]
        assert sha(folder / "driver.blend") == before
        assert not (WORK / "AUTORUN_RAN").exists(), "the file's script ran: auto-run was on"
    finally:
        run(BLENDER, "--background", "--python-expr",
            "import bpy; bpy.context.preferences.filepaths.use_scripts_auto_execute = False; "
            "bpy.ops.wm.save_userpref()")
    proc = bake(str(folder / "driver.blend"), "--save", "--enable-autoexec", "--report", str(report))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    entry = json.loads(report.read_text())["files"][0]
    assert entry["status"] == "baked" and entry["autoexec"], entry
    assert (WORK / "AUTORUN_RAN").exists(), "--enable-autoexec did not run the file's script"
    assert_baked_true(folder / "driver.blend", entry, autoexec=True)
    # Its target's location[0] is driven and [1..2] keyed: the property Blender 4.5-5.2 race on, named.
    assert entry["racing_properties"] == ["RigTarget: location"] and entry["unsettled_frames"] == [], entry
    # The driver really moved the target (so the check above is not a still target).
    xs = [r["target"][0] for r in playback(folder / "driver.blend", autoexec=True)["RigArm"]["rows"]]
    assert max(xs) - min(xs) > 0.3, xs


def test_crashing_process_reported_others_bake() -> None:
    folder = copy_shots("crash")
    shutil.copy(folder / "good_a.blend", folder / "crash_me.blend")
    shutil.copy(folder / "good_a.blend", folder / "hang_me.blend")
    wrapper = WORK / "crashing_blender.sh"
    # A Blender that dies from a segmentation fault on one file, as a crash would, and hangs on another.
    wrapper.write_text(f'#!/bin/sh\ncase "$*" in *crash_me*) kill -SEGV $$ ;; *hang_me*) exec sleep 600 ;; esac\n'
                       f'exec {BLENDER} "$@"\n')
    wrapper.chmod(0o755)
    report = WORK / "report_crash.json"
    proc = bake(str(folder / "crash_me.blend"), str(folder / "hang_me.blend"), str(folder / "good_a.blend"),
                "--save", "--jobs", "2", "--timeout", "60", "--blender", str(wrapper), "--report", str(report))
    assert proc.returncode == 1
    files = by_name(json.loads(report.read_text()))
    assert files["crash_me.blend"]["status"] == "failed" and "without a report" in files["crash_me.blend"]["error"]
    assert files["crash_me.blend"]["exit_status"] == -11, files["crash_me.blend"]
    assert files["hang_me.blend"]["status"] == "failed" and "longer than 60" in files["hang_me.blend"]["error"]
    assert files["good_a.blend"]["status"] == "baked"
    assert_baked_true(folder / "good_a.blend", files["good_a.blend"])


def test_help_and_bad_arguments() -> None:
    proc = run(BLENDER, "--command", "soft_ik_2d", "bake", "--help")
    assert proc.returncode == 0 and "--enable-autoexec" in proc.stdout and "--jobs N" in proc.stdout, proc.stdout
    proc = bake(str(SHOTS / "good_a.blend"), "--frames", "9-3")
    assert proc.returncode == 2 and "--frames must be START-END" in proc.stderr, proc.stderr


def test_flamenco_command_lines() -> None:
    """Run the exact command lines the Flamenco job compiler generated (made on the host with node)."""
    tasks = json.loads(FLAMENCO.read_text())
    folder = WORK / "flamenco"
    assert len(tasks) == 2
    for task in tasks:
        (command,) = task["commands"]
        assert command["type"] == "exec"
        argv = [BLENDER if a == "{blender}" else a for a in [command["parameters"]["exe"],
                                                              *command["parameters"]["args"]]]
        if task is tasks[0]:
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(SHOTS, folder)
        proc = run(*argv)
        assert proc.returncode == 0, (argv, proc.stdout, proc.stderr)
    for name in ("good_a.blend", "good_b.blend"):
        report = json.loads((folder / "reports" / f"{Path(name).stem}.json").read_text())
        assert_baked_true(folder / "baked" / name, report["files"][0])


def test_timing() -> None:
    """Seconds per file for --jobs 1 and 2 (eight copies of good_b.blend); printed for the README."""
    folder = WORK / "timing"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    files = []
    for i in range(8):
        shutil.copy(SHOTS / "good_b.blend", folder / f"shot_{i}.blend")
        files.append(str(folder / f"shot_{i}.blend"))
    for jobs in (1, 2):
        start = time.perf_counter()
        report = folder / f"report{jobs}.json"
        proc = bake(*files, "--jobs", str(jobs), "--output-dir", str(folder / f"out{jobs}"), "--report", str(report))
        seconds = time.perf_counter() - start
        assert proc.returncode == 0, proc.stdout + proc.stderr
        inside = sum(e["seconds"] for e in json.loads(report.read_text())["files"]) / len(files)
        print(f"CLI-TIMING jobs={jobs}: {len(files)} files in {seconds:.1f} s, {seconds / len(files):.2f} s per file "
              f"(of which opening, baking and saving inside Blender {inside:.2f} s; the rest is starting Blender)",
              flush=True)


def main() -> int:
    names = [name for name in globals() if name.startswith("test_")]
    wanted = os.environ.get("CLI_K", "")
    passed = failed = 0
    start = time.time()
    for name in names:
        if wanted and wanted not in name and name not in ("test_make_shots", "test_bake_jobs_1"):
            continue
        try:
            globals()[name]()
        except Exception:
            failed += 1
            print(f"CLI-RESULT failed {name}", flush=True)
            traceback.print_exc(file=sys.stdout)
            if name == "test_make_shots":
                break
        else:
            passed += 1
            print(f"CLI-RESULT passed {name}", flush=True)
    print(f"{failed} failed, {passed} passed in {time.time() - start:.1f}s" if failed
          else f"{passed} passed in {time.time() - start:.1f}s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
