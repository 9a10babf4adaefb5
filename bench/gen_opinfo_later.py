#!/usr/bin/env python3
"""OpInfo sample inputs past the public set's first two, as graphs in the corpus layout.

../shared/opinfo holds samples 0 and 1 of each OpInfo; later samples reach other shapes and
arguments (0-d tensors, empty indices, other norms, larger sizes) of the same ops, which is what
graphs held back from us look like. This runs the shared generator (tools/gen_opinfo.py, on the
GPU machine: it needs PyTorch with CUDA) for the first N samples and keeps those from index
FIRST on, so a sweep over OUT checks only what the public set does not hold.

usage: gen_opinfo_later.py GEN_OPINFO_PY OUT [--samples 4] [--first 2] [--budget-s 300]
"""
import argparse, json, os, re, shutil, subprocess, sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gen")
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--first", type=int, default=2)
    ap.add_argument("--budget-s", type=float, default=300)
    args = ap.parse_args()
    tmp = args.out + ".all"
    env = dict(os.environ)
    stubs = os.path.join(os.path.dirname(os.path.abspath(args.gen)), "stubs")
    env["PYTHONPATH"] = stubs + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    subprocess.run([sys.executable, args.gen, tmp, "--samples", str(args.samples), "--budget-s", str(args.budget_s)],
                   env=env, check=True)
    os.makedirs(args.out, exist_ok=True)
    keep = re.compile(r"__s(\d+)$")
    index = json.load(open(os.path.join(tmp, "index.json")))
    kept = []
    for case in sorted(os.listdir(tmp)):
        m = keep.search(case)
        if not m or int(m.group(1)) < args.first:
            continue
        shutil.move(os.path.join(tmp, case), os.path.join(args.out, case))
        kept.append(case)
    index["cases"] = [c for c in index["cases"] if c["case"] in set(kept)]
    json.dump(index, open(os.path.join(args.out, "index.json"), "w"), indent=1)
    shutil.rmtree(tmp)
    print(f"{len(kept)} cases of samples {args.first}..{args.samples - 1} in {args.out}")


if __name__ == "__main__":
    sys.exit(main())
