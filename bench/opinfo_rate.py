#!/usr/bin/env python3
"""Runs `fxray run` on every graph of PyTorch's OpInfo set (../shared/opinfo) and prints the
match rate, the failures grouped by their first message line, and the missing ops.

Usage: bench/opinfo_rate.py FXRAY_BINARY [--opinfo DIR] [--backend ref|cpu|cuda] [--jobs N]
                            [--filter SUBSTR] [--ops FILE] [--json OUT.json] [--failures]

A developer tool (the CI test is tests/engine/exec/tst_opinfo); each graph runs in its own
process so that a crash is a result, not the end.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time


def run_case(binary, opinfo, case, stage, backend, timeout):
    base = os.path.join(opinfo, case, "numerics")
    graph = os.path.join(base, stage + ".py")
    cmd = [binary, "run", graph, "--inputs", os.path.join(base, stage, "inputs"),
           "--expect", os.path.join(base, stage, "outputs"), "--backend", backend, "--json"]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return case, stage, "timeout", "timed out after %ds" % timeout, time.time() - t0, {}
    dt = time.time() - t0
    info = {}
    try:
        info = json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}
    except ValueError:
        pass
    if p.returncode == 0:
        status = "ok"
        if backend != "ref" and info.get("fallbacks"):
            status = "fallback"
            return case, stage, status, "fallbacks: " + ",".join(sorted(info["fallbacks"])), dt, info
        if backend != "ref" and info.get("extern_calls"):
            # Matched with no fallback, but some nodes ran as the backend's extern kernels
            # (GEMM, convolution, sort, ...) rather than generated code.
            status = "ok-extern"
        return case, stage, status, "", dt, info
    msg = (p.stderr.strip().splitlines() or [p.stdout.strip()[:300]] or [""])[-1]
    if p.returncode == 1:
        bad = [o for o in info.get("outputs", []) if not o.get("ok", True)]
        msg = "differs: " + "; ".join("out %s rel_err %s" % (o.get("index"), o.get("rel_err")) for o in bad[:3])
        return case, stage, "differ", msg, dt, info
    if p.returncode < 0 or p.returncode > 2:
        return case, stage, "crash", "exit %d: %s" % (p.returncode, msg), dt, info
    return case, stage, "error", msg, dt, info


def message_key(msg):
    m = re.search(r"unknown op '([^']+)'", msg)
    if m:
        return "unknown op " + m.group(1)
    m = re.search(r"((?:aten|prims)\.[A-Za-z0-9_]+\.[A-Za-z0-9_]+)", msg)
    op = m.group(1) if m else ""
    # Strip file paths and numbers so similar messages group together.
    short = re.sub(r"/\S+", "FILE", msg)
    short = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", short)
    return (op + ": " if op and op not in short else "") + short[:160]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--opinfo", default=os.path.join(here, "..", "..", "shared", "opinfo"))
    ap.add_argument("--backend", default="ref")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="", help="only cases whose name contains this")
    ap.add_argument("--ops", help="a file naming ops (first word of each line): only cases using one")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--json")
    ap.add_argument("--failures", action="store_true", help="list every failing case")
    a = ap.parse_args()
    index = json.load(open(os.path.join(a.opinfo, "index.json")))
    wanted = None
    if a.ops:
        wanted = {line.split()[0] for line in open(a.ops) if line.strip()}
    cases = [(c["case"], c["stage"]) for c in index["cases"] if a.filter in c["case"]
             and (wanted is None or wanted & set(c["targets"]))]
    targets = {(c["case"], c["stage"]): c["targets"] for c in index["cases"]}
    results = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = [ex.submit(run_case, a.binary, a.opinfo, c, s, a.backend, a.timeout) for c, s in cases]
        for f in concurrent.futures.as_completed(futs):
            results.append(f.result())
    results.sort()
    counts = collections.Counter(r[2] for r in results)
    groups = collections.defaultdict(list)
    for case, stage, status, msg, _, _ in results:
        if not status.startswith("ok"):
            groups[message_key(msg) if status != "differ" else "differs"].append("%s/%s" % (case, stage))
    print("failure groups (count, first message, examples):")
    for key, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print("%5d  %s\n       %s" % (len(items), key, " ".join(items[:4])))
    if a.failures:
        print("\nfailing cases:")
        for case, stage, status, msg, _, _ in results:
            if not status.startswith("ok"):
                print("%s/%s\t%s\t%s" % (case, stage, status, msg))
    total = len(results)
    ok = counts.get("ok", 0) + counts.get("ok-extern", 0)
    print("\nbackend %s: %d of %d graphs match with no fallback (%.1f%%); %s" % (
        a.backend, ok, total, 100.0 * ok / max(total, 1),
        ", ".join("%s %d" % kv for kv in sorted(counts.items()) if not kv[0].startswith("ok"))))
    if a.backend != "ref":
        # What "no fallback" is made of: generated kernels only, or with extern kernels.
        print("  ok (lowered, generated kernels only) %d; ok with extern kernels %d" % (
            counts.get("ok", 0), counts.get("ok-extern", 0)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{"case": c, "stage": s, "status": st, "message": m, "seconds": round(dt, 3),
                        "targets": targets.get((c, s), [])} for c, s, st, m, dt, _ in results], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
