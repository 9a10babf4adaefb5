#!/usr/bin/env python3
"""Realistic-size training graphs on the CPU for bench_cpu_backend (issue 17 item 6): the graph
kinds of ../shared/tools/gen_scale.py (MLP, LayerNorm-GELU block, 2-layer GPT-2, ResNet-18,
ViT-S/16) at batches that fit a 2-core machine, captured from real PyTorch with AOT autograd
(min-cut partitioner) and written in the corpus layout: OUT/<name>/numerics/{forward,backward}.py
+ <stage>/inputs/NNN.npy + <stage>/outputs/NNN.npy (PyTorch's own results).

This runs with Debian's python3-torch (1.13: functorch's aot_module, no torch.compile; no
transformers or timm), so GPT-2 and ViT-S are written out here with the layers of HF's
GPT2Model and timm's vit_small_patch16_224 (same widths, heads, GELU flavours, LayerNorm eps);
ResNet-18 is torchvision's when python3-torchvision is there. FX of this PyTorch prints no
annotations, so the text is written in PyTorch 2.x's print_readable form ("f32[2, 3][3, 1]cpu"
per value) from shapes propagated on the real inputs.

usage: gen_scale_cpu.py OUTDIR [NAME,...]   (default: all of NAMES)"""
import math
import os
import re
import sys

NAMES = ["mlp_1k", "ln_gelu_s", "gpt2_s128", "vit_s_b2", "resnet18_b2"]


def build(name):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class GPT2Block(nn.Module):  # HF GPT2Block: Conv1D (addmm), eager attention, gelu_new
        def __init__(s, d, h, n):
            super().__init__()
            s.h = h
            s.ln_1, s.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
            s.c_attn, s.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            s.c_fc, s.c_proj2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
            s.register_buffer("bias", torch.tril(torch.ones(n, n, dtype=torch.bool)).view(1, 1, n, n))

        def forward(s, x):
            B, T, C = x.shape
            q, k, v = s.c_attn(s.ln_1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, s.h, C // s.h).transpose(1, 2) for t in (q, k, v))
            w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(C // s.h)
            w = torch.where(s.bias[:, :, :T, :T], w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
            a = torch.matmul(w.softmax(dim=-1), v).transpose(1, 2).reshape(B, T, C)
            x = x + s.c_proj(a)
            hdn = s.c_fc(s.ln_2(x))
            hdn = 0.5 * hdn * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (hdn + 0.044715 * torch.pow(hdn, 3.0))))
            return x + s.c_proj2(hdn)

    class GPT2(nn.Module):
        def __init__(s, vocab=8192, d=768, h=12, layers=2, n=128):
            super().__init__()
            s.wte, s.wpe = nn.Embedding(vocab, d), nn.Embedding(n, d)
            s.h = nn.ModuleList(GPT2Block(d, h, n) for _ in range(layers))
            s.ln_f = nn.LayerNorm(d)

        def forward(s, ids):
            x = s.wte(ids) + s.wpe(torch.arange(ids.shape[1]).unsqueeze(0))
            for b in s.h:
                x = b(x)
            return s.ln_f(x)

    class ViTBlock(nn.Module):  # timm Block: qkv with bias, eager softmax attention, exact GELU
        def __init__(s, d, h):
            super().__init__()
            s.h = h
            s.norm1, s.norm2 = nn.LayerNorm(d, eps=1e-6), nn.LayerNorm(d, eps=1e-6)
            s.qkv, s.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            s.fc1, s.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(s, x):
            B, N, C = x.shape
            qkv = s.qkv(s.norm1(x)).reshape(B, N, 3, s.h, C // s.h).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.unbind(0)
            a = ((q * (C // s.h) ** -0.5) @ k.transpose(-2, -1)).softmax(dim=-1)
            x = x + s.proj((a @ v).transpose(1, 2).reshape(B, N, C))
            return x + s.fc2(F.gelu(s.fc1(s.norm2(x))))

    class ViT(nn.Module):
        def __init__(s, d=384, h=6, depth=12, img=224, patch=16, classes=1000):
            super().__init__()
            s.patch_embed = nn.Conv2d(3, d, patch, patch)
            s.cls_token = nn.Parameter(torch.randn(1, 1, d) * 0.02)
            s.pos_embed = nn.Parameter(torch.randn(1, (img // patch) ** 2 + 1, d) * 0.02)
            s.blocks = nn.ModuleList(ViTBlock(d, h) for _ in range(depth))
            s.norm = nn.LayerNorm(d, eps=1e-6)
            s.head = nn.Linear(d, classes)

        def forward(s, x):
            x = s.patch_embed(x).flatten(2).transpose(1, 2)
            x = torch.cat([s.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + s.pos_embed
            for b in s.blocks:
                x = b(x)
            return s.head(s.norm(x)[:, 0])

    class LnGelu(nn.Module):
        def __init__(s):
            super().__init__()
            s.ln, s.fc1, s.fc2 = nn.LayerNorm(1024), nn.Linear(1024, 4096), nn.Linear(4096, 1024)

        def forward(s, x):
            return x + s.fc2(F.gelu(s.fc1(s.ln(x))))

    if name == "mlp_1k":
        m = nn.Sequential(nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.LayerNorm(1024))
        return m, (torch.randn(512, 1024),)
    if name == "ln_gelu_s":
        return LnGelu(), (torch.randn(4, 128, 1024),)
    if name == "gpt2_s128":
        return GPT2(), (torch.randint(0, 8192, (2, 128)),)
    if name == "vit_s_b2":
        return ViT(), (torch.randn(2, 3, 224, 224),)
    if name == "resnet18_b2":
        import torchvision
        return torchvision.models.resnet18(num_classes=1000), (torch.randn(2, 3, 112, 112),)
    raise SystemExit("unknown model " + name)


DT = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64", "int32": "i32",
      "bool": "b8", "uint8": "u8", "int8": "i8"}


def annotation(t):
    dt = DT[str(t.dtype).replace("torch.", "")]
    return f'"{dt}[{", ".join(map(str, t.shape))}][{", ".join(map(str, t.stride()))}]cpu"'


def graph_text(gm, args):
    """gm's forward in PyTorch 2.x's print_readable form, values annotated from a run on args."""
    import torch
    vals = {}
    env = iter(args)

    class Rec(torch.fx.Interpreter):
        def run_node(s, n):
            r = super().run_node(n)
            vals[n.name] = r
            return r
    Rec(gm).run(*args)
    del env
    phs = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    sig = ", ".join(f"{p}: {annotation(vals[p])}" if isinstance(vals[p], torch.Tensor) else p for p in phs)
    code = gm.code
    body = code[code.index("\n", code.index("def forward")) + 1:]
    out = []
    for line in body.splitlines():
        m = re.match(r"    (\w+) = (.*)$", line)
        if m and isinstance(vals.get(m.group(1)), torch.Tensor):
            line = f"    {m.group(1)}: {annotation(vals[m.group(1)])} = {m.group(2)}"
        m = re.match(r"    return \[(.*)\]$", line)
        if m:
            line = f"    return ({m.group(1)},)" if "," not in m.group(1) else f"    return ({m.group(1)})"
        if line.strip():
            out.append("    " + line)
    return f"class GraphModule(torch.nn.Module):\n    def forward(self, {sig}):\n" + "\n".join(out) + "\n"


def save(folder, tensors):
    import numpy as np
    os.makedirs(folder, exist_ok=True)
    for i, t in enumerate(tensors):  # NNN = the output's position; None outputs have no file
        if t is not None:
            np.save(os.path.join(folder, f"{i:03d}.npy"), t.detach().contiguous().numpy())


def capture(name, outdir):
    import torch
    from functorch.compile import aot_module, make_boxed_func, min_cut_rematerialization_partition
    torch.manual_seed(0)
    model, inputs = build(name)
    d = os.path.join(outdir, name, "numerics")
    os.makedirs(d, exist_ok=True)
    done = set()

    def compiler(stage):
        def comp(gm, example):
            # PyTorch 1.13's reshape-as-a-view; 2.x (the graphs fxray reads) traces it as view.
            for n in gm.graph.nodes:
                if n.op == "call_function" and n.target == torch.ops.aten._reshape_alias.default:
                    n.target, n.args = torch.ops.aten.view.default, n.args[:2]
            gm.recompile()
            def run(*args):
                if stage not in done:
                    done.add(stage)
                    ins = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
                    with open(os.path.join(d, stage + ".py"), "w") as f:
                        f.write(graph_text(gm, ins))
                    outs = gm(*args)
                    save(os.path.join(d, stage, "inputs"), ins)
                    save(os.path.join(d, stage, "outputs"), [o if isinstance(o, torch.Tensor) else None for o in outs])
                    return outs
                return gm(*args)
            return make_boxed_func(run)
        return comp

    cm = aot_module(model, fw_compiler=compiler("forward"), bw_compiler=compiler("backward"),
                    partition_fn=min_cut_rematerialization_partition)
    out = cm(*inputs)
    g = torch.Generator().manual_seed(3)
    (out * torch.randn(out.shape, generator=g)).sum().backward()
    print(name, sorted(done), flush=True)


if __name__ == "__main__":
    names = sys.argv[2].split(",") if len(sys.argv) > 2 and sys.argv[2] else NAMES
    for n in names:
        capture(n, sys.argv[1])
