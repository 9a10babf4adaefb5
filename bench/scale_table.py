#!/usr/bin/env python3
"""Issue 17's realistic-size table in one run on the GPU machine: fxray's CUDA backend beside
PyTorch eager, Inductor and Inductor with CUDA graphs, on the same graph files and inputs.

  python3 bench/scale_table.py --fxray BIN --anchor-best TOOLS/anchor_best.py \
      --torch-anchor bench/torch_anchor.py --data DIR --models gpt2_s512,vit_s224 \
      [--modes default,reduce-overhead] [--model-timeout 150] [--iters 20] [--json OUT.json]

DIR holds ../shared/tools/gen_scale.py's output (`MODEL/numerics/{forward,backward}.py` and their
recorded inputs). fxray is timed first for every graph (`fxray bench --json`: median of --iters
runs, inputs resident on the device, one synchronize per run), then PyTorch, one child process
per model bounded by --model-timeout (Inductor's cold compiles take minutes on the big graphs):
a model whose compile runs out of time keeps its eager column and says so, never a made-up
number. Ratios are speed-ups (PyTorch's time / fxray's time, > 1 means fxray is faster); the
geomean row is over the graphs that have both numbers. The ceiling column is eager's time over
fxray's cuBLAS/cuDNN time in its profiled run: the most fxray could gain keeping those calls
(bench/scale_bound.py breaks both sides' time down).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scale_bound  # noqa: E402  (same folder: bench_json, fxray_category)


def fxray_time(binary, py, inputs, iters):
    """(median ms, (host fallbacks, cuBLAS/cuDNN ms)) of one graph on fxray's CUDA backend, or (None, why)."""
    j, why = scale_bound.bench_json(binary, py, inputs, iters)
    if j is None:
        return None, why
    host = sorted({st["name"] for st in j.get("steps", []) if st.get("kind") == "host"})
    # fxray's cuBLAS/cuDNN time in one profiled run, for the ceiling column (bench/scale_bound.py).
    lib = sum(st.get("ms", 0.0) for st in j.get("steps", []) if scale_bound.fxray_category(st) in ("gemm", "conv"))
    return j.get("median_ms"), (host, lib)


def anchor_rows(anchor_best, torch_anchor, data, model, modes, timeout):
    """anchor_best.py's JSON rows for one model ({graph, eager_ms, default_ms, ...})."""
    env = dict(os.environ, ANCHOR_MODES=modes, OUT=tempfile.mkdtemp(prefix="scale-table-"))
    # anchor_best.py always compiles at least once (an empty mode list reads as one mode, ""), so
    # eager alone goes through torch_anchor.py, whose timing it shares (best of three medians).
    cmd = [sys.executable, anchor_best, torch_anchor, data, model]
    if not modes:
        cmd = [sys.executable, torch_anchor, "--device", "cuda", "--modes", "eager", "--stages", "forward,backward",
               "--corpus", data, "--models", model, "--json"]
    rows, why = [], None
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        out = p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        why = f"timed out after {timeout} s"
    if out.lstrip().startswith("["):  # torch_anchor.py --json: one indented array
        rows = [r for r in json.loads(out) if "graph" in r]
    else:  # anchor_best.py: one object per line, as each graph finishes
        rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return rows, why


def fmt(ms):
    return "—" if ms is None else f"{ms:.3f}"


def ratio(a, b):
    return None if a is None or b is None or b <= 0 else a / b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fxray", required=True)
    ap.add_argument("--anchor-best", required=True)
    ap.add_argument("--torch-anchor", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--modes", default="default,reduce-overhead")
    ap.add_argument("--model-timeout", type=int, default=150)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--json")
    args = ap.parse_args()
    models = args.models.split(",")
    graphs = {}
    for m in models:
        for st in ("forward", "backward"):
            py = os.path.join(args.data, m, "numerics", st + ".py")
            if not os.path.isfile(py):
                continue
            ms, extra = fxray_time(args.fxray, py, os.path.join(args.data, m, "numerics", st, "inputs"), args.iters)
            g = graphs.setdefault(f"{m}/{st}", {"graph": f"{m}/{st}"})
            g["fxray_ms"] = ms
            if ms is None:
                g["fxray_error"] = extra
            else:
                g["fallbacks"], g["fxray_lib_ms"] = extra
            print(f"fxray {m}/{st}: {fmt(ms)} ms", file=sys.stderr, flush=True)
    # Eager for every model first (seconds), so that a model whose Inductor compile runs out of
    # time still has its eager column; then the compiled modes.
    for mode_set in [""] + ([args.modes] if args.modes else []):
        for m in models:
            rows, why = anchor_rows(args.anchor_best, args.torch_anchor, args.data, m, mode_set, args.model_timeout)
            for r in rows:
                if mode_set:  # keep the eager time measured next to fxray's
                    r.pop("eager_ms", None)
                graphs.setdefault(r["graph"], {"graph": r["graph"]}).update(r)
            for g in graphs.values():
                if why and g["graph"].startswith(m + "/"):
                    g.setdefault("anchor_note", f"{mode_set or 'eager'}: {why}")
            print(f"anchor {m} {mode_set or 'eager'}: {len(rows)} rows{' (' + why + ')' if why else ''}",
                  file=sys.stderr, flush=True)
    modes = args.modes.split(",") if args.modes else []
    head = ["graph", "eager ms"] + [f"{'Inductor' if m == 'default' else 'Inductor ' + m} ms" for m in modes]
    head += ["fxray ms", "vs eager", "vs best Inductor", "ceiling vs eager", "note"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    vs_eager, vs_ind, ceilings = [], [], []
    for g in graphs.values():
        ind = [g.get(f"{m}_ms") for m in modes]
        best = min([x for x in ind if x is not None], default=None)
        re, ri = ratio(g.get("eager_ms"), g.get("fxray_ms")), ratio(best, g.get("fxray_ms"))
        if re:
            vs_eager.append(re)
        if ri:
            vs_ind.append(ri)
        cells = [g["graph"], fmt(g.get("eager_ms"))] + [fmt(x) for x in ind] + [fmt(g.get("fxray_ms"))]
        # The most fxray could gain over eager keeping its GEMM/convolution calls (all else free).
        ce = ratio(g.get("eager_ms"), g.get("fxray_lib_ms"))
        if ce:
            ceilings.append(ce)
        cells += [f"{re:.2f}×" if re else "—", f"{ri:.2f}×" if ri else "—", f"{ce:.2f}×" if ce else "—"]
        notes = [x for x in (g.get("fxray_error"), g.get("error"), g.get("anchor_note")) if x]
        if g.get("fallbacks"):
            notes.append("host fallbacks: " + ", ".join(map(str, g["fallbacks"])))
        print("| " + " | ".join(cells + ["; ".join(notes)]) + " |")
    gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None
    ge, gi = gm(vs_eager), gm(vs_ind)
    print(f"\ngeomean speed-up: vs eager {ge:.3f}× over {len(vs_eager)} graphs" if ge else "\nno eager ratios")
    if gi:
        print(f"geomean speed-up: vs best Inductor {gi:.3f}× over {len(vs_ind)} graphs")
    gc = gm(ceilings)
    if gc:
        print(f"geomean ceiling vs eager: {gc:.3f}× over {len(ceilings)} graphs (fxray's cuBLAS/cuDNN time "
              "alone against eager's whole time)")
    if args.json:
        json.dump(list(graphs.values()), open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
