#!/bin/bash
# A stand-in for `fxray __sweep-serve` (tst_serve_worker): reads a request per line from
# descriptor 3, writes the command's first word to the request's stdout file and its pid to its
# stderr file, and answers as the word says: "ok" 0, "differ" 1, "env" 0 after writing
# $CUDA_VISIBLE_DEVICES, "crash" dies of SIGSEGV, "hang" never answers.
[ "$1" = "__sweep-serve" ] || exit 2
while IFS= read -r line <&3; do
  out=$(printf '%s' "$line" | sed -n 's/.*"stdout":"\([^"]*\)".*/\1/p')
  err=$(printf '%s' "$line" | sed -n 's/.*"stderr":"\([^"]*\)".*/\1/p')
  word=$(printf '%s' "$line" | sed -n 's/.*"argv":\["\([^"]*\)".*/\1/p')
  echo "ran $word" >"$out"
  echo "$$" >"$err"
  case "$word" in
    ok) echo '{"exit":0}' >&3 ;;
    differ) echo '{"exit":1}' >&3 ;;
    env) echo "$CUDA_VISIBLE_DEVICES" >"$out"; echo '{"exit":0}' >&3 ;;
    crash) kill -SEGV $$ ;;
    hang) sleep 30 ;;
  esac
done
