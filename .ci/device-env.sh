# Sourced by the scripts that run a headless bundle (.ci/gpu-run build) on the GPU machine:
# .ci/gpu-run, .ci/multi-gpu-sweep, .ci/scale-table. Needs ROOT (the checkout) and DEV (the bundle).

# Unpacks the bundle's binaries and libraries (they travel as one xz archive: ICU's data alone is
# 30 MB uncompressed) and puts them and the machine's CUDA libraries on the library path.
fxray_device_env() {
  [ -d "$DEV/lib" ] && [ -d "$DEV/bin" ] ||
    python3 -c "import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$DEV/lib.tar.xz" "$DEV"
  export LD_LIBRARY_PATH="$ROOT/$DEV/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local d
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -d "$d" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
  done
  return 0
}

# fxray_gen_scale DIR MODELS LOG: the realistic-size graphs of ../shared/tools/gen_scale.py that DIR
# lacks (their inputs are GBs: generated here, never carried); a failure prints the log's tail.
fxray_gen_scale() {
  local dir="$1" models="$2" log="$3" missing="" m
  for m in ${models//,/ }; do [ -d "$dir/$m/numerics" ] || missing="$missing,$m"; done
  [ -z "$missing" ] && return 0
  python3 "$DEV/tools/tools/gen_scale.py" "$dir" "${missing#,}" >"$log" 2>&1 ||
    { echo "gen_scale failed:"; tail -n 20 "$log"; }
}
