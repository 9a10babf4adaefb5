#!/usr/bin/env python3
"""fxray's fused attention per call against PyTorch's memory-efficient kernel, fp32 on CUDA.

  python3 bench/attention_bench.py --fxray PATH/fxray [--sizes 16,6,197,64 ...] [--paths auto,gemm]
                                   [--reps 10] [--json]

For each size B,H,S,D (q, k, v and grad_out [B, H, S, D] viewed from [B, S, H, D] storage, as
ViT's qkv projection lays them out; no bias, not causal) this writes two FX graph files: REPS
forward calls of aten._scaled_dot_product_efficient_attention, and one forward followed by REPS
of its backward. Each call gets a slightly different scale so that no pass merges them. fxray
times them with `fxray bench --json` once per path (FXRAY_ATTENTION=auto|tc|fused|gemm): the
median whole run divided by REPS (the backward graph's forward taken off), the calls queued back
to back as in PyTorch's loop; the profiled run's per-step times (which include each step's host
work) go to the JSON. PyTorch runs the same ops with CUDA events over REPS calls, TF32 off,
median of 5 repetitions. The table prints microseconds
per call and fxray's speed-up (PyTorch's time / fxray's).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def ann(shape, strides):
    return '"f32[%s][%s]cuda:0"' % (", ".join(map(str, shape)), ", ".join(map(str, strides)))


def graphs(B, H, S, D, reps):
    qkv = ann([B, H, S, D], [S * H * D, D, H * D, 1])
    L = (S + 31) // 32 * 32
    lse = ann([B, H, L], [H * L, L, 1])
    head = "class GraphModule(torch.nn.Module):\n    def forward(self, q: %s, k: %s, v: %s, go: %s):\n" % (
        qkv, qkv, qkv, qkv)
    scale = lambda i: D ** -0.5 * (1.0 + i * 1e-6)
    fwd, outs = head, []
    for i in range(reps):
        fwd += ("        f%d = torch.ops.aten._scaled_dot_product_efficient_attention.default(q, k, v, None, True, "
                "0.0, False, scale = %r)\n" % (i, scale(i)))
        fwd += "        o%d: %s = f%d[0]\n        l%d: %s = f%d[1];  f%d = None\n" % (i, qkv, i, i, lse, i, i)
        outs += ["o%d" % i, "l%d" % i]
    fwd += "        return (%s,)\n" % ", ".join(outs)
    bwd = head + ("        f = torch.ops.aten._scaled_dot_product_efficient_attention.default(q, k, v, None, True, "
                  "0.0, False, scale = %r)\n" % scale(0))
    bwd += ("        o: %s = f[0]\n        l: %s = f[1]\n        s0: \"i64[][]cuda:0\" = f[2]\n"
            "        s1: \"i64[][]cuda:0\" = f[3];  f = None\n" % (qkv, lse))
    outs = []
    for i in range(reps):
        bwd += ("        b%d = torch.ops.aten._scaled_dot_product_efficient_attention_backward.default(go, q, k, v, "
                "None, o, l, s0, s1, 0.0, [True, True, True, False], False, scale = %r)\n" % (i, scale(0)))
        for j, n in enumerate("qkv"):
            bwd += "        d%s%d: %s = b%d[%d]\n" % (n, i, qkv, i, j)
            outs.append("d%s%d" % (n, i))
    bwd += "        return (%s,)\n" % ", ".join(outs)
    return fwd, bwd


def fxray_bench(fxray, graph, env_path, iters):
    """fxray bench --json on the graph: (median ms of whole runs, {node name: profiled step ms}) or an error."""
    env = dict(os.environ)
    if env_path != "auto":
        env["FXRAY_ATTENTION"] = env_path
    r = subprocess.run([fxray, "bench", graph, "--backend", "cuda", "--iters", str(iters), "--json"], env=env,
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return None, (r.stderr or r.stdout).strip()[-300:]
    j = json.loads(r.stdout)
    steps = {n: s["ms"] for s in j["steps"] for n in s["nodes"]}
    return (j["median_ms"], steps), None


def fxray_us(fxray, gf, gb, env_path, reps, iters):
    """Per call: (fwd us, bwd us, profiled fwd us, profiled bwd us) from whole-run medians (the graphs
    queue their calls back to back, as PyTorch's loop does; the backward graph's one forward is
    taken off), and the profiled run's per-step times, which include each step's host work."""
    rf, err = fxray_bench(fxray, gf, env_path, iters)
    if err:
        return None, err
    rb, err = fxray_bench(fxray, gb, env_path, iters)
    if err:
        return None, err
    fwd = 1e3 * rf[0] / reps
    bwd = (1e3 * rb[0] - fwd) / reps
    pf = [ms for n, ms in rf[1].items() if re.match(r"^f\d+$", n)]
    pb = [ms for n, ms in rb[1].items() if re.match(r"^b\d+$", n)]
    prof = lambda xs: 1e3 * statistics.mean(xs) if len(xs) >= reps else None
    return (fwd, bwd, prof(pf), prof(pb)), None


def torch_us(B, H, S, D, reps):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    g = torch.Generator(device="cuda").manual_seed(0)
    mk = lambda: torch.randn(B, S, H, D, device="cuda", generator=g).transpose(1, 2).requires_grad_(False)
    q, k, v, go = mk(), mk(), mk(), mk()
    f = torch.ops.aten._scaled_dot_product_efficient_attention
    fb = torch.ops.aten._scaled_dot_product_efficient_attention_backward
    o, l, s0, s1 = f(q, k, v, None, True, 0.0, False)

    def time(fn):
        for _ in range(3):
            fn()
        meds = []
        for _ in range(5):
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            e0.record()
            for _ in range(reps):
                fn()
            e1.record()
            torch.cuda.synchronize()
            meds.append(e0.elapsed_time(e1) * 1e3 / reps)
        return statistics.median(meds)

    return (time(lambda: f(q, k, v, None, True, 0.0, False)),
            time(lambda: fb(go, q, k, v, None, o, l, s0, s1, 0.0, [True, True, True, False], False)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fxray", required=True)
    ap.add_argument("--sizes", nargs="*", default=["16,6,197,64", "16,6,512,64", "8,6,1024,64", "8,6,512,128"])
    ap.add_argument("--paths", default="auto,gemm,fused")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--emit", help="only write the graphs, DIR/fwd_B_H_S_D.py and bwd_B_H_S_D.py (for a profiler)")
    a = ap.parse_args()
    if a.emit:
        os.makedirs(a.emit, exist_ok=True)
        for size in a.sizes:
            fwd, bwd = graphs(*map(int, size.split(",")), a.reps)
            tag = size.replace(",", "_")
            open(os.path.join(a.emit, "fwd_%s.py" % tag), "w").write(fwd)
            open(os.path.join(a.emit, "bwd_%s.py" % tag), "w").write(bwd)
        return
    paths = a.paths.split(",")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in a.sizes:
            B, H, S, D = map(int, size.split(","))
            fwd, bwd = graphs(B, H, S, D, a.reps)
            gf, gb = os.path.join(tmp, "fwd.py"), os.path.join(tmp, "bwd.py")
            open(gf, "w").write(fwd)
            open(gb, "w").write(bwd)
            row = {"size": size}
            try:
                row["torch_fwd_us"], row["torch_bwd_us"] = torch_us(B, H, S, D, a.reps)
            except Exception as e:  # no PyTorch here: fxray's side alone
                row["torch_error"] = str(e)[:200]
            for p in paths:
                r, err = fxray_us(a.fxray, gf, gb, p, a.reps, a.iters)
                if err:
                    row["%s_error" % p] = err
                    continue
                row["%s_fwd_us" % p], row["%s_bwd_us" % p], row["%s_fwd_prof_us" % p], row["%s_bwd_prof_us" % p] = r
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    if a.json:
        print(json.dumps(rows, indent=1))
        return
    print("fp32 attention, us per call (B,H,S,D; [B,S,H,D] storage; speed-up = PyTorch / fxray; "
          "fxray's profiled per-step times, host work included, in the JSON)")
    head = "%-14s %9s %9s" % ("B,H,S,D", "torch fwd", "torch bwd")
    for p in paths:
        head += " %10s %6s %10s %6s" % (p + " fwd", "x", p + " bwd", "x")
    print(head)
    for r in rows:
        line = "%-14s %9s %9s" % (r["size"], fmt(r.get("torch_fwd_us")), fmt(r.get("torch_bwd_us")))
        for p in paths:
            for kind in ("fwd", "bwd"):
                us, t = r.get("%s_%s_us" % (p, kind)), r.get("torch_%s_us" % kind)
                line += " %10s %6s" % (fmt(us), "%.2f" % (t / us) if us and t else "-")
        print(line)
    for r in rows:
        for k, v in r.items():
            if k.endswith("error"):
                print("%s %s: %s" % (r["size"], k, v))


def fmt(x):
    return "-" if x is None else "%.1f" % x


if __name__ == "__main__":
    main()
