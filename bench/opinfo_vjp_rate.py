#!/usr/bin/env python3
"""Runs `fxray autodiff forward.py --check-grads numerics/` on every case of PyTorch's OpInfo set
(../shared/opinfo) that has a recorded backward stage, and prints how many match, differ, stop at
an op without a VJP rule (grouped by op, most cases first) or fail otherwise (grouped by message).

Usage: bench/opinfo_vjp_rate.py FXRAY_BINARY [--opinfo DIR] [--jobs N] [--filter SUBSTR]
                                [--json OUT.json] [--failures]

A developer tool, like bench/opinfo_rate.py; each case runs in its own process so that a crash
is a result, not the end.
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

MISSING = re.compile(r"no VJP rule for (\S+?):")


def run_case(binary, opinfo, case, timeout):
    base = os.path.join(opinfo, case, "numerics")
    cmd = [binary, "autodiff", os.path.join(base, "forward.py"), "--check-grads", base, "--json"]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return case, "error", "timed out after %ds" % timeout, time.time() - t0
    dt = time.time() - t0
    msg = (p.stderr.strip().splitlines() or [p.stdout.strip()[:300]] or [""])[-1]
    if p.returncode == 0:
        return case, "matched", "", dt
    if p.returncode == 1:
        try:
            info = json.loads(p.stdout)
        except ValueError:
            info = {}
        if info.get("mismatch"):
            return case, "differ", "mismatch: " + info["mismatch"], dt
        bad = [g for g in info.get("gradients", []) if not g.get("ok", True)]
        return case, "differ", "; ".join("grad of %s rel_err %.2e max_abs_err %.2e" % (
            g["input"], g["rel_err"], g["max_abs_err"]) for g in bad[:3]), dt
    m = MISSING.search(msg)
    if p.returncode == 2 and m:
        return case, "missing", m.group(1), dt
    if p.returncode == 2:
        return case, "error", msg, dt
    return case, "error", "crash (exit %d): %s" % (p.returncode, msg), dt


def message_key(msg):
    short = re.sub(r"/\S+", "FILE", msg)
    short = re.sub(r"'[a-z_0-9]+'", "'X'", short)
    short = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", short)
    return short[:170]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--opinfo", default=os.path.join(here, "..", "..", "shared", "opinfo"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--filter", default="", help="only cases whose name contains this")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--json")
    ap.add_argument("--failures", action="store_true", help="list every case that does not match")
    a = ap.parse_args()
    index = json.load(open(os.path.join(a.opinfo, "index.json")))
    cases = sorted({c["case"] for c in index["cases"] if c["stage"] == "backward" and a.filter in c["case"]})
    results = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for f in concurrent.futures.as_completed([ex.submit(run_case, a.binary, a.opinfo, c, a.timeout)
                                                  for c in cases]):
            results.append(f.result())
    results.sort()
    counts = collections.Counter(r[1] for r in results)
    missing = collections.defaultdict(list)
    errors = collections.defaultdict(list)
    for case, status, msg, _ in results:
        if status == "missing":
            missing[msg].append(case)
        elif status == "error":
            errors[message_key(msg)].append(case)
    if missing:
        print("missing VJP rules (cases, op, examples):")
        for op, items in sorted(missing.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print("%5d  %s  %s" % (len(items), op, " ".join(items[:3])))
    if errors:
        print("\nerrors (cases, first message, examples):")
        for key, items in sorted(errors.items(), key=lambda kv: -len(kv[1])):
            print("%5d  %s\n       %s" % (len(items), key, " ".join(items[:4])))
    differ = [(c, m) for c, s, m, _ in results if s == "differ"]
    if differ:
        print("\ndiffer:")
        for c, m in differ:
            print("  %s  %s" % (c, m))
    if a.failures:
        print("\ncases that do not match:")
        for case, status, msg, _ in results:
            if status != "matched":
                print("%s\t%s\t%s" % (case, status, msg))
    total = len(results)
    print("\n%d cases with a backward stage: %d matched (%.1f%%), %d differ, %d missing a VJP rule (%d ops), "
          "%d errors" % (total, counts["matched"], 100.0 * counts["matched"] / max(total, 1), counts["differ"],
                         counts["missing"], len(missing), counts["error"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{"case": c, "status": s, "message": m, "seconds": round(dt, 3)} for c, s, m, dt in results],
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
