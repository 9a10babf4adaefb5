#!/usr/bin/env python3
"""How far above eager fxray could go on each realistic-size graph (issue 17's geomean target).

Both sides spend most of these graphs in the same libraries: cuBLAS for GEMMs, cuDNN for
convolutions. A backend that keeps those calls can at best remove everything else, so
eager ms / (fxray's GEMM + convolution ms) bounds fxray's speed-up over eager from above; the
geomean of those ceilings says whether 1.2x is reachable without a faster GEMM or convolution than
the vendor's. Per graph and stage this prints eager's time and where its kernels go (torch.profiler,
kernels grouped by name into GEMM, convolution, attention, other), fxray's time and its steps
grouped the same way (`fxray bench --json`), the speed-up reached and the ceiling.

usage: python3 bench/scale_bound.py --fxray BIN --data SCALE_DIR --models m1,m2 [--iters N] [--json OUT]
(SCALE_DIR from ../shared/tools/gen_scale.py; runs on the GPU machine, fp32 with TF32 off)"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_anchor  # noqa: E402  (same folder: build_module, load_inputs)

CATEGORIES = ("gemm", "conv", "attention", "other")
# Kernel names as the profiler reports them. Attention first: PyTorch's memory-efficient
# attention kernels are CUTLASS kernels too (fmha_cutlassF_...).
_TORCH_PATTERNS = (
    ("attention", re.compile(r"fmha|flash|attention", re.I)),
    ("conv", re.compile(r"conv|cudnn|implicit|dgrad|wgrad|winograd|fft|nchwToNhwc|nhwcToNchw|fprop", re.I)),
    ("gemm", re.compile(r"gemm|gemv|splitK|cublas|cutlass", re.I)),
)
# fxray's extern steps by the extern's name (engine/codegen/cuda/device_externs.cpp).
_FXRAY_EXTERNS = {
    "gemm": {"mm", "bmm", "addmm", "linear", "matmul", "baddbmm", "addbmm"},
    "conv": {"conv", "conv1d", "conv2d", "conv3d", "conv_transpose", "conv_backward"},
    "attention": {"sdpa", "sdpa_efficient", "sdpa_efficient_backward", "efficient_attention_forward",
                  "efficient_attention_backward", "sdpa_cudnn", "sdpa_cudnn_backward"},
}


def torch_category(name):
    for cat, pat in _TORCH_PATTERNS:
        if pat.search(name):
            return cat
    return "other"


def fxray_category(step):
    if step.get("kind") in ("extern", "host"):
        for cat, names in _FXRAY_EXTERNS.items():
            if step.get("name") in names:
                return cat
    return "other"


def eager(torch, np, py, inputs, iters, runs=5):
    """(median ms of `iters` timed runs, {category: kernel ms per run}) of PyTorch eager."""
    src = open(py).read()
    mod = torch_anchor.build_module(torch, src, "cuda")
    args = torch_anchor.load_inputs(torch, np, src, inputs, "cuda")
    with torch.no_grad():
        for _ in range(3):
            mod(*args)
        torch.cuda.synchronize()
        times = []
        for _ in range(iters):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            mod(*args)
            b.record()
            torch.cuda.synchronize()
            times.append(a.elapsed_time(b))
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(runs):
                mod(*args)
            torch.cuda.synchronize()
    cats = dict.fromkeys(CATEGORIES, 0.0)
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            us = e.device_time if hasattr(e, "device_time") else e.cuda_time
            cats[torch_category(e.name)] += us / runs / 1e3
    del mod, args
    torch.cuda.empty_cache()
    return sorted(times)[len(times) // 2], cats


def bench_json(binary, py, inputs, iters):
    """`fxray bench --json` of one graph on the CUDA backend: (its JSON, None), or (None, why)."""
    cmd = [binary, "bench", py, "--backend", "cuda", "--inputs", inputs, "--iters", str(iters), "--json"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return None, "fxray bench timed out"
    if p.returncode != 0:
        return None, " ".join(p.stderr.split())[:200] or f"exit {p.returncode}"
    return json.loads(p.stdout), None


def fxray(binary, py, inputs, iters):
    """(median ms, {category: step ms in one profiled run}) of fxray's CUDA backend, or (None, why)."""
    j, why = bench_json(binary, py, inputs, iters)
    if j is None:
        return None, why
    cats = dict.fromkeys(CATEGORIES, 0.0)
    cats["other_bytes"] = 0.0
    for st in j.get("steps", []):
        c = fxray_category(st)
        cats[c] += st.get("ms", 0.0)
        if c == "other":
            cats["other_bytes"] += st.get("bytes", 0.0)
    cats["peak_bytes_per_s"] = j.get("peak", {}).get("bytes_per_s", 0.0)
    return j["median_ms"], cats


def floor_ms(x):
    """fxray's other kernels' bytes at the device's peak bandwidth, in ms."""
    bw = x.get("peak_bytes_per_s") if x else None
    return x["other_bytes"] / bw * 1e3 if bw else None


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fxray", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--json")
    a = ap.parse_args()
    import numpy as np
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    rows = []
    for model in a.models.split(","):
        for stage in ("forward", "backward"):
            py = os.path.join(a.data, model, "numerics", stage + ".py")
            inputs = os.path.join(a.data, model, "numerics", stage, "inputs")
            if not os.path.exists(py):
                print(f"{model}/{stage}: not generated", file=sys.stderr)
                continue
            row = {"graph": f"{model} {stage[:3]}"}
            try:
                row["eager_ms"], row["eager"] = eager(torch, np, py, inputs, a.iters)
            except Exception as e:  # a graph PyTorch cannot run stays a row, with why
                row["eager_error"] = str(e)[:200]
            ms, cats = fxray(a.fxray, py, inputs, a.iters)
            if ms is None:
                row["fxray_error"] = cats
            else:
                row["fxray_ms"], row["fxray"] = ms, cats
            if "eager_ms" in row and "fxray_ms" in row:
                lib = row["fxray"]["gemm"] + row["fxray"]["conv"]
                row["speedup"] = row["eager_ms"] / row["fxray_ms"]
                row["ceiling"] = row["eager_ms"] / lib if lib > 0 else None
                # Tighter: attention as fast as the faster side's, every other fxray kernel moving
                # its bytes at the device's peak bandwidth (its fusion as it is).
                x, e, bw = row["fxray"], row["eager"], row["fxray"]["peak_bytes_per_s"]
                if bw > 0:
                    floor = lib + min(x["attention"], e["attention"] or x["attention"]) + x["other_bytes"] / bw * 1e3
                    row["ceiling_bw"] = row["eager_ms"] / floor
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)

    def f(x):
        return "—" if x is None else f"{x:.3f}"

    print("| graph | eager ms | eager GEMM+conv | eager attn | eager other | fxray ms | fxray GEMM+conv "
          "| fxray attn | fxray other (at peak GB/s) | fxray vs eager | ceiling | ceiling at peak GB/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        e, x = r.get("eager", {}), r.get("fxray", {})
        el = e.get("gemm", 0) + e.get("conv", 0) if e else None
        xl = x.get("gemm", 0) + x.get("conv", 0) if x else None
        print(f"| {r['graph']} | {f(r.get('eager_ms'))} | {f(el)} | {f(e.get('attention'))} | {f(e.get('other'))} "
              f"| {f(r.get('fxray_ms'))} | {f(xl)} | {f(x.get('attention'))} | {f(x.get('other'))} ({f(floor_ms(x))}) "
              f"| {f(r.get('speedup'))}× | {f(r.get('ceiling'))}× | {f(r.get('ceiling_bw'))}× |"
              + (f" {r.get('eager_error', '')}{r.get('fxray_error', '')}" if "speedup" not in r else ""))
    g, c = geomean([r.get("speedup") for r in rows]), geomean([r.get("ceiling") for r in rows])
    cb = geomean([r.get("ceiling_bw") for r in rows])
    print(f"\ngeomean over {sum(1 for r in rows if r.get('speedup'))} graphs: fxray vs eager {f(g)}×, "
          f"ceiling {f(c)}× (no fxray kernel but its GEMMs and convolutions taking any time), "
          f"{f(cb)}× at peak bandwidth (attention as the faster side's, every other kernel moving its bytes "
          f"at the device's peak)")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
