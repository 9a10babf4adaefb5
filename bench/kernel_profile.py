#!/usr/bin/env python3
"""Where a graph's time goes on fxray's CUDA backend, by kind of step, for the realistic-size
graphs (issue 17): one profiled `fxray bench --json` run per graph, its generated kernels grouped
by what they compute (the kernel name without its numbering: k12_add_7_sum_3 -> add+sum) and the
extern calls by kernel name, each group's ms, share of the run, bytes and % of peak bandwidth.

    python3 bench/kernel_profile.py --fxray BIN --data DIR --graphs vit_s224/backward,... [--top 12]

DIR holds ../shared/tools/gen_scale.py's output (MODEL/numerics/STAGE.py and STAGE/inputs).
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scale_bound  # noqa: E402  (same folder: bench_json)


def group_of(step):
    """extern:<name> for library calls; the fused node kinds for generated kernels."""
    if step.get("kind") != "kernel":
        return f"{step.get('kind')}:{step.get('name')}"
    kinds = []
    for n in step.get("nodes", []):
        k = re.sub(r"_\d+$", "", n)
        if k not in kinds:
            kinds.append(k)
    return "kernel:" + "+".join(kinds[:4]) + ("+..." if len(kinds) > 4 else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fxray", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--graphs", required=True, help="MODEL/STAGE,... (STAGE: forward or backward)")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--iters", type=int, default=10)
    args = ap.parse_args()
    for g in args.graphs.split(","):
        model, stage = g.split("/")
        base = os.path.join(args.data, model, "numerics")
        j, why = scale_bound.bench_json(args.fxray, os.path.join(base, stage + ".py"),
                                        os.path.join(base, stage, "inputs"), args.iters)
        if j is None:
            print(f"## {g}: {why}\n")
            continue
        peak = j.get("peak", {}).get("bytes_per_s", 0.0)
        total = sum(s.get("ms", 0.0) for s in j["steps"])
        groups = {}
        for s in j["steps"]:
            e = groups.setdefault(group_of(s), [0, 0.0, 0.0])
            e[0] += 1
            e[1] += s.get("ms", 0.0)
            e[2] += s.get("bytes", 0.0)
        print(f"## {g}: median {j['median_ms']:.3f} ms; profiled steps {total:.3f} ms\n")
        print("| group | steps | ms | share | MB | % peak bw |")
        print("|---|---|---|---|---|---|")
        for name, (n, ms, by) in sorted(groups.items(), key=lambda kv: -kv[1][1])[: args.top]:
            bw = by / (ms * 1e-3) / peak * 100 if ms > 0 and peak else 0.0
            print(f"| {name} | {n} | {ms:.3f} | {ms / total * 100:.1f}% | {by / 1e6:.1f} | {bw:.0f} |")
        print()


if __name__ == "__main__":
    main()
