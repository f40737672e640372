#!/usr/bin/env bash
# Mutation testing of solver/ against tests/solver with mutmut 3 (on demand, not in CI: a full run takes hours on
# two shared cores). Plants one small bug at a time (an operator, a constant, a dropped argument...) in solver/
# and runs the solver tests that reach the mutated function; a mutant no test fails on "survived".
# Usage: bash scripts/mutation.sh [MODULE ...]   e.g. scripts/mutation.sh soft two_bone/kernel   (a package name: all
#        of its modules; default: all of solver/)
# Environment:
#   MUTATION_BUDGET    seconds before the run is stopped (default 3600); what was tested by then is kept and scored
#   MUTATION_CHILDREN  parallel mutant runs (default 2)
#   MUTATION_DIR       work directory (default ${TMPDIR:-/tmp}/soft_ik_2d_mutation); kept, so the next run resumes
#                      and re-tests only the functions whose code changed
# Prints the score (killed / tested) and the survivors; `cd $MUTATION_DIR && $venv/bin/python -m mutmut show NAME`
# shows one.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3.11}"
command -v "$py" >/dev/null || py=python3
budget="${MUTATION_BUDGET:-3600}"
children="${MUTATION_CHILDREN:-2}"
work="${MUTATION_DIR:-${TMPDIR:-/tmp}/soft_ik_2d_mutation}"

# Its own venv: mutmut pins its own pytest range, which must not move the dev env's.
venv="$root/.venvs/mutation"
spec="mutmut==3.8.1 numpy>=2,<3 pytest==9.0.3 hypothesis==6.155.2"
if [ ! -f "$venv/.stamp" ] || [ "$(cat "$venv/.stamp")" != "$spec" ]; then
  echo "setting up $venv ($spec)" >&2
  rm -rf "$venv"
  "$py" -m venv "$venv" && "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $spec || exit 1
  echo "$spec" > "$venv/.stamp"
fi

# mutmut copies the code into ./mutants and rewrites every function into a trampoline, so it runs on a copy of
# just what the solver tests import (solver/) with a pyproject of its own: nothing is
# written into the working tree, and the repository root (itself a package with relative imports) stays out.
mkdir -p "$work/tests"
rm -rf "$work/solver" "$work/tests/solver"
cp -r "$root/solver" "$work/solver"
cp -r "$root/tests/solver" "$work/tests/solver"
# Tests of the add-on's sources as a whole (layers, docstrings) need rigging/ and the rest, and kill no mutant.
rm -f "$work"/{,mutants/}tests/solver/test_{layers,docstrings}.py  # mutants/ is kept for resuming
find "$work" -name __pycache__ -prune -exec rm -rf {} +

only=""
for m in "$@"; do
  m="${m%.py}"; m="${m#solver/}"; m="${m%/}"
  if [ -d "$root/solver/$m" ]; then  # a package (two_bone): all of its modules
    only+="\"solver/$m/*\", "
  elif [ -f "$root/solver/$m.py" ]; then
    only+="\"solver/$m.py\", "
  else
    echo "no module solver/$m.py or package solver/$m/" >&2; exit 2
  fi
done
cat > "$work/pyproject.toml" <<EOF
[tool.pytest.ini_options]
pythonpath = ["."]
testpaths = ["tests/solver"]

[tool.mutmut]
source_paths = ["solver/"]
pytest_add_cli_args_test_selection = ["tests/solver"]
${only:+only_mutate = [${only%, }]}
EOF

# mutmut keeps the map of tests to functions from its first run and re-measures it only for new tests, and that
# map covers only the modules mutated then: another selection of modules starts afresh.
selection="${only:-all}"
if [ "$(cat "$work/.selection" 2>/dev/null)" != "$selection" ]; then
  rm -rf "$work/mutants"
  echo "$selection" > "$work/.selection"
fi

cd "$work" || exit 1
# Through the venv's python rather than its bin/mutmut: entry-point scripts keep the absolute path of the
# directory the venv was made in, so a venv made in another checkout (and linked here) breaks them.
mutmut=("$venv/bin/python" -m mutmut)
export HYPOTHESIS_STORAGE_DIRECTORY="$work/.hypothesis" PYTHONDONTWRITEBYTECODE=1
echo "mutmut on solver/${*:+ ($*)} in $work, budget ${budget}s, $children children" >&2
start=$(date +%s)
# SIGINT first: mutmut records each verdict as it comes, so a stopped run keeps what it tested.
timeout --signal=INT --kill-after=60 "$budget" "${mutmut[@]}" run --max-children "$children" \
  > "$work/run.log" 2>&1
rc=$?
echo "mutmut stopped after $(( $(date +%s) - start ))s (exit $rc; 124 = budget reached); log: $work/run.log" >&2

"${mutmut[@]}" results --all true > "$work/results.txt" 2>/dev/null
[ -s "$work/results.txt" ] || { echo "no mutmut results (see $work/run.log)" >&2; tail -n 20 "$work/run.log" >&2; exit 1; }
# One line per mutant: "solver.<module>.x_<function>__mutmut_<n>: <status>". Timeouts and crashes count as
# killed (the planted bug made the tests hang or crash); "not checked" means the budget ran out first.
awk -F': ' '
  { split($1, parts, "."); mod = parts[2]; st = $2; gsub(/ /, "", st)
    n[mod, st]++; mods[mod] = 1; total[st]++ }
  END {
    printf "%-14s %7s %8s %7s %8s %11s\n", "module", "killed", "survived", "timeout", "no tests", "not checked"
    for (m in mods) printf "%-14s %7d %8d %7d %8d %11d\n", m, n[m, "killed"], n[m, "survived"], n[m, "timeout"],
      n[m, "notests"], n[m, "notchecked"] | "sort"
    close("sort")
    k = total["killed"] + total["timeout"] + total["segfault"]
    t = k + total["survived"] + total["notests"] + total["suspicious"]
    printf "score: %d of %d tested mutants killed (%.1f%%); %d not checked\n", k, t, t ? 100 * k / t : 0,
      total["notchecked"]
  }' "$work/results.txt"
echo
echo "survivors (show one: cd $work && ${mutmut[*]} show NAME):"
grep -E ': (survived|no tests|suspicious)$' "$work/results.txt" | sed 's/^ *//'
