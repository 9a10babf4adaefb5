#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (address+undefined sanitizers) and runs each for
# SECONDS (default 60) on seeds from the corpus. Crashes are left as crash-* files in
# build/fuzz/findings/<target>/ and make this script exit non-zero.
# Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}; shift || true
corpus=${FXRAY_CORPUS_DIR:-../shared/corpus}
CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DFXRAY_FUZZ=ON -DFXRAY_BUILD_GUI=OFF \
  -DFXRAY_BUILD_TESTS=OFF -DFXRAY_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" >/dev/null || exit 2
cmake --build build/fuzz -j"$(nproc)" >/dev/null || exit 2
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=($(cd build/fuzz/tests/fuzz && ls fuzz_* 2>/dev/null | grep -v '\.'))
status=0
printf "%-22s %8s %10s %8s %s\n" target seconds execs crashes seeds
for t in "${targets[@]}"; do
  seeds=build/fuzz/seeds/$t; out=build/fuzz/findings/$t
  rm -rf "$seeds"; mkdir -p "$seeds" "$out"
  case $t in
    fuzz_fx_text) find "$corpus" -path '*graphs/*.py' -size -64k -exec cp {} "$seeds/" \; ;;
    fuzz_npy) find "$corpus" -name '*.npy' -size -16k | head -200 | while read -r f; do cp "$f" "$seeds/$(echo "$f" | md5sum | cut -c1-12).npy"; done ;;
    fuzz_compile_story) for f in "$corpus"/../traces/*/trace/*.log; do head -c 300000 "$f" > "$seeds/$(basename "$(dirname "$(dirname "$f")")").log"; done ;;
    fuzz_torch_trace) find "$corpus" -name 'torch_trace.log' -size -2M | head -3 | while read -r f; do head -c 200000 "$f" > "$seeds/$(echo "$f" | md5sum | cut -c1-12).log"; done ;;
    fuzz_pickle) i=0; find "$corpus" -name '*.pt' -size -64k | while read -r f; do i=$((i+1)); unzip -p "$f" '*/data.pkl' > "$seeds/s$i.pkl.tmp" 2>/dev/null && (printf '\001'; cat "$seeds/s$i.pkl.tmp") > "$seeds/s$i.pkl"; rm -f "$seeds/s$i.pkl.tmp"; done ;;
    fuzz_pt2_json) find "$corpus" -path '*export*' -name 'model.json' -size -64k -exec cp --backup=numbered {} "$seeds/" \; ; for f in "$corpus"/*/export/exported.pt2; do unzip -p "$f" '*/models/model.json' > "$seeds/$(basename "$(dirname "$(dirname "$f")")").json" 2>/dev/null; done ;;
    fuzz_session) for m in mlp attention ln_gelu; do python3 - "$corpus/$m/graphs/aot_joint_graph.py" "$seeds/$m.fxray" <<'PY'
import json, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
meta = {"format": "fxray-session", "version": 1, "graphs": [{"id": "0", "stage": "aot_joint_graph", "file": "graphs/0.py",
        "inputs": [{"name": "primals_1", "tensor": "f32[4, 4][4, 1]cuda:0"}]}], "state": {"graph": "0", "pass": 2}}
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("session.json", json.dumps(meta))
    z.write(src, "graphs/0.py")
PY
      done ;;
    fuzz_repro) find "$corpus" -name 'fx_graph_runnable.py' -size -64k -exec cp --backup=numbered {} "$seeds/" \; ;;
    fuzz_python_expr) find "$corpus" \( -path '*graphs/*.py' -o -name 'fx_graph_runnable.py' -o -name 'module.py' \) -size -64k \
                        -exec cp --backup=numbered {} "$seeds/" \; ;;
  esac
  log=$out/log.txt
  (cd "$out" && ../../tests/fuzz/$t -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
     -max_len=262144 -print_final_stats=1 "../../seeds/$t" > log.txt 2>&1)
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  crashes=$(ls "$out" | grep -c -E '^(crash|leak|timeout|oom)-' || true)
  printf "%-22s %8s %10s %8s %s\n" "$t" "$secs" "${execs:-?}" "$crashes" "$(ls "$seeds" | wc -l)"
  [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ] && status=1
done
exit $status
