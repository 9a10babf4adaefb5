#!/usr/bin/env bash
# One shard of an fxray sweep. Every scheduler example here runs this script; the scheduler's own
# variables pick the shard, and fxray reads them itself:
#   Slurm job array      SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT
#   Kubernetes indexed   JOB_COMPLETION_INDEX, with NUM_SHARDS = the job's completions
#   CI matrix            NUM_SHARDS and SHARD_INDEX from the matrix
# Settings (environment): GRAPHS (folders, space-separated), RESULTS (a folder every shard shares),
# CHECK (default run; e.g. compare:ref,cuda), GPUS (e.g. 0 or 0,1: one worker per entry), JOBS
# (workers without GPUS; default: the CPU count), TIMEOUT (seconds per graph), FXRAY (the binary).
# A shard that is preempted and started again skips the graphs that already have a result.
set -euo pipefail
: "${GRAPHS:?set GRAPHS to the folder(s) holding the graphs}"
: "${RESULTS:?set RESULTS to the results folder all shards share}"
args=(--check "${CHECK:-run}" --out "$RESULTS" --timeout "${TIMEOUT:-300}")
if [ -n "${GPUS:-}" ]; then args+=(--gpus "$GPUS"); else args+=(--jobs "${JOBS:-$(nproc)}"); fi
[ -n "${NUM_SHARDS:-}" ] && args+=(--num-shards "$NUM_SHARDS")
[ -n "${SHARD_INDEX:-}" ] && args+=(--shard-index "$SHARD_INDEX")
# shellcheck disable=SC2086  # GRAPHS may name several folders
exec "${FXRAY:-fxray}" sweep $GRAPHS "${args[@]}"
