// SPDX-License-Identifier: GPL-3.0-or-later
// Flamenco 3 custom job type: bake the Soft IK 2D chains of many shot files, one task per shot file, each
// running `blender --command soft_ik_2d bake SHOT.blend ...` (README "Pipelines"; install notes: README.md
// next to this file). The farm schedules, retries and logs the tasks; the add-on does not.

const JOB_TYPE = {
    label: "Soft IK 2D Bake",
    description: "Bake the Soft IK 2D chains of shot .blend files headless, one task per file",
    settings: [
        // Paths as the Workers see them; one per line (or separated by ';'). Flamenco variables work.
        { key: "shots", type: "string", required: true,
          description: "Shot .blend files to bake, one per line or separated by ';'" },
        { key: "frames", type: "string", required: false,
          description: "Frames to bake as START-END (empty: each file's scene range)" },
        { key: "output_dir", type: "string", subtype: "dir_path", required: false,
          description: "Save the baked files here (empty: save each file in place)" },
        { key: "report_dir", type: "string", subtype: "dir_path", required: true,
          description: "Each task writes its JSON report here, named after its shot" },
        { key: "armatures", type: "string", required: false,
          description: "Only these armatures (comma-separated; empty: all)" },
        { key: "chains", type: "string", required: false,
          description: "Only these chains (comma-separated; empty: all)" },
        { key: "enable_autoexec", type: "bool", default: false,
          description: "Run the files' Python scripts and drivers: only for files you trust" },
        { key: "blender_cmd", type: "string", default: "{blender}", visible: "hidden",
          description: "The Blender the Workers run (Flamenco's 'blender' variable)" },
    ],
};

function splitList(text, separator) {
    return String(text || "").split(separator).map((s) => s.trim()).filter((s) => s.length > 0);
}

function shotList(settings) {
    return splitList(settings.shots, /[\n;]/);
}

// The command's flags shared by every task (everything but the file and its report).
function sharedArgs(settings) {
    const args = [];
    if (settings.frames) {
        if (!/^-?\d+--?\d+$/.test(String(settings.frames).trim())) {
            throw `frames must be START-END, got "${settings.frames}"`;
        }
        // One word: a negative start frame would otherwise read as an option.
        args.push(`--frames=${String(settings.frames).trim()}`);
    }
    if (settings.output_dir) {
        args.push("--output-dir", settings.output_dir);
    } else {
        args.push("--save");
    }
    for (const name of splitList(settings.armatures, ",")) args.push("--armature", name);
    for (const name of splitList(settings.chains, ",")) args.push("--chain", name);
    if (settings.enable_autoexec) args.push("--enable-autoexec");
    return args;
}

// Report names follow the shot's file name; a name used twice gets the task number too.
function reportNames(shots) {
    const seen = {};
    return shots.map((shot, i) => {
        // Flamenco's path helpers are basename/dirname/join (no stem).
        const stem = path.basename(shot).replace(/\.[^.]*$/, "");
        const name = seen[stem] ? `${stem}-${i + 1}` : stem;
        seen[stem] = true;
        return name + ".json";
    });
}

function compileJob(job) {
    const settings = job.settings;
    const shots = shotList(settings);
    if (shots.length === 0) throw "no shot files given (setting 'shots')";
    const shared = sharedArgs(settings);
    const reports = reportNames(shots);
    shots.forEach((shot, i) => {
        const task = author.Task(`bake-${path.basename(shot)}`, "blender");
        // "exec", not "blender-render": that one puts Flamenco's blenderArgs (usually "-b -y", and -y turns
        // auto-run on) and the file before our command.
        task.addCommand(author.Command("exec", {
            exe: settings.blender_cmd || "{blender}",
            args: ["--command", "soft_ik_2d", "bake", shot, ...shared,
                   "--report", path.join(settings.report_dir, reports[i])],
        }));
        job.addTask(task);
    });
}
