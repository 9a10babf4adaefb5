#!/usr/bin/env bash
# On the GPU machine: generates bench/gen_popular.py's graphs and runs each forward/backward
# recorded run on the CUDA backend against PyTorch's outputs (fxray run --json, fallbacks listed),
# then packs the graphs and the results into ONE archive under $OUT (the device tool returns few
# files). usage (from the checkout root): DEV=.dev_popular bash DEV/bench/popular_remote.sh [NAMES]
# With POPULAR_GRAPHS=DIR an already generated set is checked again (NAMES, when given, are
# generated into it first). POPULAR_STAGES: the recorded runs checked (default forward backward
# dynamo). NAMES "more": bench/gen_popular_more.py's set with its bf16 copies; "both": both sets
# and their bf16 copies; "third": bench/gen_popular_third.py's set with its bf16 copies (a NAME
# list may mix the sets). POPULAR_JOBS: the
# generator processes and the parallel fxray runs (default 4). POPULAR_ARCHIVE=results packs only
# the CUDA results (*.cuda.json/err/rc), not the graphs.
set -u
ROOT="$PWD"; DEV="${DEV:-.dev_popular}"
source "$ROOT/.ci/device-env.sh"
fxray_device_env
OUTDIR="${OUT:-/tmp/popular-out}"; mkdir -p "$OUTDIR"
G="${POPULAR_GRAPHS:-/tmp/popular}"
names="${1:-all}"
JOBS="${POPULAR_JOBS:-4}"
t0=$SECONDS
[ -n "${POPULAR_GRAPHS:-}" ] && [ -z "${1:-}" ] && names=none
if [ "$names" != none ]; then
  [ "$names" = all ] && names=$(python3 "$DEV/bench/gen_popular.py" --list)
  [ "$names" = more ] && names=$(python3 "$DEV/bench/gen_popular.py" --list more_bf16)
  [ "$names" = third ] && names=$(python3 "$DEV/bench/gen_popular.py" --list third_bf16)
  [ "$names" = both ] && names="$(python3 "$DEV/bench/gen_popular.py" --list bf16),$(python3 "$DEV/bench/gen_popular.py" --list more_bf16)"
  # JOBS generator processes in parallel (each pays PyTorch's import and CUDA start once).
  groups=(); k=0
  for n in ${names//,/ }; do groups[$((k % JOBS))]+="${groups[$((k % JOBS))]:+,}$n"; k=$((k + 1)); done
  for ((i = 0; i < JOBS; i++)); do
    # POPULAR_GEN_TIMEOUT bounds a generator process (a hung capture must not eat the device call).
    [ -n "${groups[$i]:-}" ] && timeout "${POPULAR_GEN_TIMEOUT:-240}" python3 "$DEV/bench/gen_popular.py" "$G" "${groups[$i]}" \
      >"/tmp/popular_gen_$i.log" 2>&1 &
  done
  wait
  # One log file back (the device tool returns at most 8 files).
  cat /tmp/popular_gen_*.log | tee "$OUTDIR/gen.log"
  echo "generated in $((SECONDS - t0)) s"
fi
run_one() {
  local py="$1" st; st="${py%.py}"
  timeout 60 "$DEV/bin/fxray" run "$py" --backend cuda --inputs "$st/inputs" --expect "$st/outputs" --json \
    >"$st.cuda.json" 2>"$st.cuda.err"
  echo $? >"$st.cuda.rc"
}
export -f run_one; export DEV
# POPULAR_DEADLINE (seconds from the start, default 200) bounds the runs so that the archive is
# always written inside the device tool's limit; a run cut short reads as exit 124.
left=$(( ${POPULAR_DEADLINE:-200} - (SECONDS - t0) )); [ "$left" -lt 20 ] && left=20
stages="${POPULAR_STAGES:-forward backward dynamo}"
for st in $stages; do ls "$G"/*/numerics/$st.py 2>/dev/null; done |
  timeout "$left" xargs -P "$JOBS" -I{} bash -c 'run_one {}'
for py in $(for st in $stages; do ls "$G"/*/numerics/$st.py 2>/dev/null; done); do
  st="${py%.py}"; name="$(basename "$(dirname "$(dirname "$py")")")/$(basename "$st")"
  python3 - "$name" "$st" <<'PY'
import json, sys
name, st = sys.argv[1:3]
try:
    rc = open(st + ".cuda.rc").read().strip()
except OSError:
    print(f"{name:32s} not run (deadline)"); sys.exit(0)
try:
    j = json.load(open(st + ".cuda.json"))
except Exception:
    print(f"{name:32s} exit {rc}: {open(st + '.cuda.err').read().strip()[:300]}")
    sys.exit(0)
outs = j.get("outputs", [])
bad = [o for o in outs if not o.get("ok")]
# Outputs with a note (PyTorch's uninitialized philox seeds, fp64-judged near-zero gradients)
# have a rel_err that means nothing: the worst is over the others.
worst = max((o.get("rel_err") or 0 for o in outs if not o.get("note")), default=0)
print(f"{name:32s} exit {rc} {len(outs) - len(bad)}/{len(outs)} match (worst rel_err {worst:.2e}) fallbacks {j.get('fallbacks') or 'none'}")
PY
done | tee "$OUTDIR/summary.txt"
echo "total $((SECONDS - t0)) s"
# POPULAR_ARCHIVE=results: only the CUDA results (a re-check of graphs already at hand).
if [ "${POPULAR_ARCHIVE:-all}" = results ]; then
  (cd "$G" && find . -name "*.cuda.*" | tar -cJf "$OUTDIR/popular_results.tar.xz" -T -)
else
  tar -C "$G" -cJf "$OUTDIR/popular.tar.xz" .
fi
ls -la "$OUTDIR"
