#!/usr/bin/env python3
"""PyTorch's own time for the corpus's AOT graphs: the anchor that bench_cpu_backend and
bench_cuda print next to fxray's numbers.

For every `<model>/numerics/<stage>.py` of the corpus (the graph PyTorch compiled, as FX code,
with the exact inputs it ran on in `<stage>/inputs/*.npy`), this runs the same FX graph file with
PyTorch: eagerly (op by op, no fusion) and, when asked, through `torch.compile` (Inductor), and
prints the median time per run. The graph files are PyTorch's own output, so running them with
PyTorch is what PyTorch would do; fxray itself never executes them.

  python3 bench/torch_anchor.py --corpus DIR --device cpu|cuda [--modes eager,inductor]
                                [--stages forward,backward,inference] [--threads N] [--json]

Output (--json): a JSON array of {"graph": "mlp/forward", "eager_ms": .., "inductor_ms": ..,
"inductor_compile_s": .., "error": null | "why this graph has no number"}. A graph that this
PyTorch cannot run (an op newer than it, control flow) gets an error, never a made-up number.

Conventions shared with fxray's benches (so both sides time the same work):
- inputs are laid out with the strides annotated on the placeholders (as fxray does);
- lifted tensor constants (`self._tensor_constant0`, printed without their values) are zeros
  of the annotated shape: they are tiny and do not change the time;
- on the GPU every timed run ends with a synchronize; the best of three medians is reported
  (bench_cpu_backend times fxray the same way; bench_cuda reports one median of 50 runs);
- Inductor's compile time is the first call's wall time with a fresh cache folder (cold).
"""
import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time

DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "i64": "int64",
          "i32": "int32", "i16": "int16", "i8": "int8", "u8": "uint8", "b8": "bool"}
# `name: "f32[2, 3][3, 1]cuda:0"` in a forward signature or on a node.
ANNOT = re.compile(r'(\w+): "(\w+)\[([^\]]*)\]\[([^\]]*)\][^"]*"')


def parse_ints(s):
    s = s.strip()
    return [int(x) for x in s.split(",") if x.strip()] if s else []


def signature_specs(src):
    """(name, dtype, shape, stride) of each placeholder, from the top-level forward's signature."""
    m = re.search(r"def forward\(self, (.*?)\):", src)
    if not m:
        raise ValueError("no forward(self, ...) signature")
    specs = []
    for part in re.finditer(r'(\w+)(?:: "([^"]*)")?', m.group(1)):
        name, ann = part.group(1), part.group(2) or ""
        a = re.match(r"(\w+)\[([^\]]*)\]\[([^\]]*)\]", ann)
        if a and all(re.fullmatch(r"-?\d+", x.strip()) for x in (a.group(2) + "," + a.group(3)).split(",") if x.strip()):
            specs.append((name, a.group(1), parse_ints(a.group(2)), parse_ints(a.group(3))))
        else:
            specs.append((name, None, None, None))
    return specs


def build_module(torch, src, device):
    """The GraphModule class of the file, instantiated, on `device`."""
    src = re.sub(r"^class <lambda>\(", "class GraphModule(", src, flags=re.M)
    if device == "cpu":
        src = src.replace("device(type='cuda', index=0)", "device(type='cpu')")
    env = {"torch": torch, "device": torch.device, "inf": float("inf"), "nan": float("nan")}
    exec(compile(src, "<graph>", "exec"), env)  # the anchor runs PyTorch's own FX code
    cls = env["GraphModule"]
    mod = cls()
    # Nested classes are the subgraphs of higher-order ops (cond branches).
    for k, v in vars(cls).items():
        if isinstance(v, type) and issubclass(v, torch.nn.Module):
            setattr(mod, k, v())
    for m in ANNOT.finditer(src):
        name, dt, shape = m.group(1), m.group(2), m.group(3)
        if name.startswith("_tensor_constant") and not hasattr(mod, name) and dt in DTYPES:
            mod.register_buffer(name, torch.zeros(parse_ints(shape), dtype=getattr(torch, DTYPES[dt]), device=device))
    return mod


def load_inputs(torch, np, src, folder, device):
    specs = signature_specs(src)
    files = sorted(f for f in os.listdir(folder) if f.endswith(".npy"))
    if len(files) != len(specs):
        raise ValueError(f"{len(files)} input files for {len(specs)} placeholders")
    out = []
    for f, (_, dt, shape, stride) in zip(files, specs):
        a = np.load(os.path.join(folder, f), allow_pickle=False)
        t = torch.from_numpy(np.ascontiguousarray(a))
        if a.ndim == 0 and dt is None:
            out.append(t.item())
            continue
        t = t.to(device)
        if shape is not None and list(t.shape) == shape and stride and list(t.stride()) != stride:
            if 0 in stride:
                # An expanded input (stride 0): the same storage walk as the graph saw; the
                # values along the broadcast dimensions repeat, as they did in PyTorch's run.
                need = 1 + sum((n - 1) * st for n, st in zip(shape, stride) if n > 0)
                t = t.flatten()[:need].clone().as_strided(shape, stride)
            else:
                s = torch.empty_strided(shape, stride, dtype=t.dtype, device=device)
                s.copy_(t)
                t = s
        out.append(t)
    return out


def time_runs(torch, fn, device, rounds=3):
    """The best of `rounds` medians: a round disturbed by the rest of the machine is dropped."""
    return min(median_run(torch, fn, device) for _ in range(rounds))


def median_run(torch, fn, device, min_runs=5, budget_s=0.3, max_runs=50):
    def once():
        t0 = time.perf_counter()
        fn()
        if device == "cuda":
            torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 1e3
    for _ in range(2):
        once()
    times = []
    start = time.perf_counter()
    while len(times) < min_runs or (len(times) < max_runs and time.perf_counter() - start < budget_s):
        times.append(once())
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--modes", default="eager")
    ap.add_argument("--stages", default="forward,backward,inference")
    ap.add_argument("--models", default="")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    modes = args.modes.split(",")
    if args.device == "cpu":
        # libgomp's spinning workers and OpenBLAS's own threads oversubscribe a small machine and
        # made single runs 40x slower at random; passive waiting gives PyTorch its steady best.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if "inductor" in modes:
        # Cold compiles: a fresh cache folder, before torch is imported.
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="fxray-anchor-inductor-")
    try:
        import numpy as np
        import torch
    except ImportError as e:
        print(json.dumps({"error": f"cannot import torch/numpy: {e}"}))
        return 3
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    if args.device == "cuda" and not torch.cuda.is_available():
        print(json.dumps({"error": "torch sees no CUDA device"}))
        return 3
    if args.device == "cuda":
        # Same rule as fxray's cuBLAS calls: fp32 GEMMs in fp32, not TF32.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    models = args.models.split(",") if args.models else sorted(os.listdir(args.corpus))
    rows = []
    for model in models:
        for stage in args.stages.split(","):
            path = os.path.join(args.corpus, model, "numerics", stage + ".py")
            folder = os.path.join(args.corpus, model, "numerics", stage, "inputs")
            if not (os.path.isfile(path) and os.path.isdir(folder)):
                continue
            row = {"graph": f"{model}/{stage}", "eager_ms": None, "inductor_ms": None,
                   "inductor_compile_s": None, "error": None}
            rows.append(row)
            try:
                with open(path) as fh:
                    src = fh.read()
                mod = build_module(torch, src, args.device)
                inputs = load_inputs(torch, np, src, folder, args.device)
                with torch.no_grad():
                    if "eager" in modes:
                        row["eager_ms"] = time_runs(torch, lambda: mod(*inputs), args.device)
                    if "inductor" in modes:
                        torch._dynamo.reset()
                        compiled = torch.compile(mod, backend="inductor")
                        t0 = time.perf_counter()
                        compiled(*inputs)
                        if args.device == "cuda":
                            torch.cuda.synchronize()
                        row["inductor_compile_s"] = time.perf_counter() - t0
                        row["inductor_ms"] = time_runs(torch, lambda: compiled(*inputs), args.device)
            except Exception as e:  # one graph's failure is that graph's row, not the run's end
                msg = " ".join(str(e).split())
                row["error"] = f"{type(e).__name__}: {msg}"[:400]
            if not args.json:
                print(row, file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            print(f"{r['graph']:40s} eager {r['eager_ms']} inductor {r['inductor_ms']} {r['error'] or ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
