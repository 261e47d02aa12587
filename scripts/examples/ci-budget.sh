#!/bin/sh
# Asserts a project's kernel budgets with gpucalc, for CI (docs/ci.md). Each line of BUDGETS is
# one gpucalc call: a calculator, its options or a --batch CSV with one kernel a row, and the
# --require checks every row must pass. Blank lines and lines starting with # are skipped;
# words are split at spaces (no quotes, no globbing), and paths are read from BUDGETS' folder.
#
# Prints each call's results (CSV, unless the line says --format); on stderr, every requirement that broke, with where it came from:
#   budgets.txt:3: occupancy --batch kernels.csv --require occupancy>=50%: line 4: requirement failed: occupancy >= 0.5 (got 0.1875)
# Exit: 0 every budget holds; 1 a requirement failed; 2 a budget line gpucalc could not run.
#
# Usage: ci-budget.sh BUDGETS [GPUCALC]    (GPUCALC: the binary, default $GPUCALC or gpucalc)
set -u
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: ci-budget.sh BUDGETS [GPUCALC]" >&2
  exit 2
fi
budgets=$1
gpucalc=${2:-${GPUCALC:-gpucalc}}
if [ ! -f "$budgets" ]; then
  echo "ci-budget.sh: $budgets: no such file" >&2
  exit 2
fi
case $gpucalc in
  */*) gpucalc=$(cd "$(dirname "$gpucalc")" && pwd)/$(basename "$gpucalc") ;;
esac
name=$(basename "$budgets")
cd "$(dirname "$budgets")" || exit 2

status=0
n=0
while IFS= read -r line || [ -n "$line" ]; do
  n=$((n + 1))
  case $line in '' | '#'*) continue ;; esac
  set -f
  # shellcheck disable=SC2086 # the line's words are the arguments
  set -- $line
  set +f
  echo "== $name:$n: gpucalc $line"
  command=$1
  shift
  # The results go to the log as CSV (a line's own --format wins); stderr is kept, to prefix
  # each of its lines with where the budget came from.
  { errors=$("$gpucalc" "$command" --format csv "$@" 2>&1 >&3); code=$?; } 3>&1
  if [ -n "$errors" ]; then
    printf '%s\n' "$errors" | while IFS= read -r e; do printf '%s:%s: %s: %s\n' "$name" "$n" "$line" "$e" >&2; done
  fi
  case $code in
    0) ;;
    1) [ $status -eq 2 ] || status=1 ;;
    *) status=2 ;;
  esac
done <"$name"

case $status in
  0) echo "every budget in $name holds" ;;
  1) echo "ci-budget.sh: a budget in $name broke (the requirement lines above)" >&2 ;;
  *) echo "ci-budget.sh: a line of $name could not run (the error above)" >&2 ;;
esac
exit $status
