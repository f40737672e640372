// Runs a Flamenco 3 job compiler under node with a stub of the author API Flamenco gives its job compilers
// (author.Task / author.Command / job.addTask, the `path` helpers, print), and prints the compiled tasks as
// JSON: [{name, type, commands: [{type, parameters}]}].
//   node flamenco_stub.js JOB_TYPE.js '{"shots": "...", ...}'
// Settings not given take the job type's defaults, as Flamenco fills them in at submission.
"use strict";
const fs = require("fs");
const vm = require("vm");
const nodePath = require("path").posix;

const [script, settingsJson] = process.argv.slice(2);
const tasks = [];
const sandbox = {
    print: (...args) => process.stderr.write(args.join(" ") + "\n"),
    path: {
        join: (...parts) => nodePath.join(...parts),
        basename: (p) => nodePath.basename(p),
        dirname: (p) => nodePath.dirname(p),
    },
    author: {
        Task: (name, type) => {
            const task = { name, type, commands: [], dependencies: [] };
            return {
                _task: task,
                addCommand: (command) => task.commands.push(command),
                addDependency: (other) => task.dependencies.push(other._task.name),
            };
        },
        Command: (type, parameters) => ({ type, parameters }),
    },
};
vm.createContext(sandbox);
vm.runInContext(fs.readFileSync(script, "utf8") + "\nthis.JOB_TYPE = JOB_TYPE; this.compileJob = compileJob;",
                sandbox, { filename: script });
const settings = {};
for (const s of sandbox.JOB_TYPE.settings) if ("default" in s) settings[s.key] = s.default;
Object.assign(settings, JSON.parse(settingsJson || "{}"));
const job = { name: "test", settings, addTask: (t) => tasks.push(t._task) };
try {
    sandbox.compileJob(job);
} catch (err) {
    process.stderr.write(`job compiler refused the job: ${err}\n`);
    process.exit(2);
}
process.stdout.write(JSON.stringify(tasks, null, 2) + "\n");
