#!/usr/bin/env python3
"""Where PyTorch eager's time goes on one recorded graph: the CUDA kernels of one run (torch.profiler,
averaged over a few runs), grouped by kernel name and sorted by time, to set beside `fxray bench`'s
per-step table of the same graph and inputs (issue 17: finding what fxray loses to eager).

usage: python3 bench/torch_kernels.py GRAPH.py INPUTS_DIR [--top N] [--runs N]"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_anchor  # noqa: E402  (same folder: build_module, load_inputs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("graph")
    ap.add_argument("inputs")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    import numpy as np
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    src = open(a.graph).read()
    mod = torch_anchor.build_module(torch, src, "cuda")
    inputs = torch_anchor.load_inputs(torch, np, src, a.inputs, "cuda")
    with torch.no_grad():
        for _ in range(3):
            mod(*inputs)
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(a.runs):
                mod(*inputs)
            torch.cuda.synchronize()
    rows = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            r = rows.setdefault(e.name, [0, 0.0])
            r[0] += 1
            r[1] += e.device_time if hasattr(e, "device_time") else e.cuda_time
    total = sum(r[1] for r in rows.values()) / a.runs / 1e3
    print(f"{a.graph}: eager kernels {total:.3f} ms per run ({sum(r[0] for r in rows.values()) // a.runs} launches)")
    for name, (n, us) in sorted(rows.items(), key=lambda kv: -kv[1][1])[: a.top]:
        print(f"  {us / a.runs / 1e3:8.3f} ms  x{n // a.runs:<4d} {name[:110]}")


if __name__ == "__main__":
    main()
