#!/usr/bin/env python3
"""Training graphs of a Meta-Llama-style attention block whose rotary position embedding is done
with complex numbers (Meta's reference llama/model.py, torchtitan): freqs_cis = polar(1, t * inv_freq)
as a complex64 buffer (a complex graph input) or computed in the forward (polar in the graph), then
view_as_complex(x.float().reshape(..., -1, 2)) * freqs_cis, view_as_real(...).flatten(3), type_as.
Their AOT backward brings in conj (_conj / conj_physical / resolve_conj), complex mul, and
view/permute/clone of complex tensors. Corpus numerics layout, like bench/gen_popular.py, whose
capture this reuses. Runs on the GPU machine (PyTorch 2.11):
    python3 bench/gen_popular_complex.py OUT [NAME,NAME...|all]      (--list: the names)
NAMES: llama_rope_complex (buffer), llama_rope_polar (polar in the graph), and their _bf16 copies
(linear and norm weights and activations in bf16; freqs_cis stays complex64, as in Meta's code)."""
import os, shutil, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_popular  # noqa: E402  (finds gen_numerics/gen_corpus and sets up the import path)
import gen_corpus, gen_numerics  # noqa: E402

NAMES = ["llama_rope_complex", "llama_rope_polar", "llama_rope_complex_bf16", "llama_rope_polar_bf16"]


def build(name, dev):
    import torch, torch.nn as nn, torch.nn.functional as F

    class RMSNorm(nn.Module):
        def __init__(s, d, eps=1e-6):
            super().__init__(); s.weight = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d)); s.eps = eps
        def forward(s, x):
            out = x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + s.eps)
            return out.type_as(x) * s.weight

    def precompute_freqs_cis(dim, end, theta=10000.0, device=None):
        freqs = 1.0 / (theta ** (torch.arange(0, dim, 2, device=device)[: (dim // 2)].float() / dim))
        t = torch.arange(end, device=freqs.device, dtype=torch.float32)
        freqs = torch.outer(t, freqs)
        return torch.polar(torch.ones_like(freqs), freqs)  # complex64

    def reshape_for_broadcast(freqs_cis, x):
        shape = [d if i == 1 or i == x.ndim - 1 else 1 for i, d in enumerate(x.shape)]
        return freqs_cis.view(*shape)

    def apply_rotary_emb(xq, xk, freqs_cis):
        xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
        xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
        freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
        xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
        xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
        return xq_out.type_as(xq), xk_out.type_as(xk)

    class Block(nn.Module):
        """Meta's TransformerBlock: RMSNorm, wq/wk/wv, complex RoPE on (B, T, H, hd), repeat_kv
        (expand + reshape), causal SDPA, wo, RMSNorm, SwiGLU feed-forward."""
        def __init__(s, d=64, heads=4, kv=2, T=16, buffer=True):
            super().__init__()
            s.h, s.kv, s.hd, s.buffer = heads, kv, d // heads, buffer
            s.wq = nn.Linear(d, heads * s.hd, bias=False); s.wk = nn.Linear(d, kv * s.hd, bias=False)
            s.wv = nn.Linear(d, kv * s.hd, bias=False); s.wo = nn.Linear(heads * s.hd, d, bias=False)
            s.w1 = nn.Linear(d, 96, bias=False); s.w2 = nn.Linear(96, d, bias=False); s.w3 = nn.Linear(d, 96, bias=False)
            s.attention_norm = RMSNorm(d); s.ffn_norm = RMSNorm(d)
            if buffer:
                s.register_buffer("freqs_cis", precompute_freqs_cis(s.hd, T), persistent=False)
        def attention(s, x, freqs_cis):
            B, T, _ = x.shape
            xq = s.wq(x).view(B, T, s.h, s.hd)
            xk = s.wk(x).view(B, T, s.kv, s.hd)
            xv = s.wv(x).view(B, T, s.kv, s.hd)
            xq, xk = apply_rotary_emb(xq, xk, freqs_cis)
            rep = s.h // s.kv
            xk = xk[:, :, :, None, :].expand(B, T, s.kv, rep, s.hd).reshape(B, T, s.h, s.hd)
            xv = xv[:, :, :, None, :].expand(B, T, s.kv, rep, s.hd).reshape(B, T, s.h, s.hd)
            y = F.scaled_dot_product_attention(xq.transpose(1, 2), xk.transpose(1, 2), xv.transpose(1, 2),
                                               is_causal=True)
            return s.wo(y.transpose(1, 2).reshape(B, T, -1))
        def forward(s, x):
            fc = s.freqs_cis if s.buffer else precompute_freqs_cis(s.hd, x.shape[1], device=x.device)
            h = x + s.attention(s.attention_norm(x), fc)
            n = s.ffn_norm(h)
            return h + s.w2(F.silu(s.w1(n)) * s.w3(n))

    bf16 = name.endswith("_bf16")
    base = name[: -len("_bf16")] if bf16 else name
    if base not in ("llama_rope_complex", "llama_rope_polar"):
        raise KeyError(name)
    model = Block(buffer=base == "llama_rope_complex")
    x = torch.randn(2, 16, 64, device=dev)
    if bf16:
        # Module.to(bf16) would cast the complex buffer too (dropping its imaginary part):
        # only the real floating tensors go to bf16.
        model._apply(lambda t: t.to(torch.bfloat16) if t.is_floating_point() else t)
        x = x.to(torch.bfloat16)
    return model, (x,), "train"


def _resolve_conj_numpy():
    """gen_numerics saves with .numpy(), which refuses tensors with the conjugate bit set (a
    recorded input or output may be a lazily conjugated view): resolve it first."""
    import torch
    plain = torch.Tensor.numpy

    def numpy(t, *a, **kw):
        return plain(t.resolve_conj(), *a, **kw)
    torch.Tensor.numpy = numpy


gen_corpus.build = build

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--list":
        sys.exit(print(",".join(NAMES)))
    out = sys.argv[1]
    names = NAMES if len(sys.argv) < 3 or sys.argv[2] == "all" else sys.argv[2].split(",")
    _resolve_conj_numpy()
    sys.argv = [sys.argv[0], out, ",".join(names)]
    gen_numerics.main()
    # corpus layout: OUT/<name>/numerics/<stage>.py (gen_numerics writes OUT/<name>/<stage>.py)
    for name in names:
        d = os.path.join(out, name)
        if os.path.isdir(d) and not os.path.isdir(os.path.join(d, "numerics")):
            tmp = os.path.join(out, "." + name + ".numerics")
            os.rename(d, tmp); os.makedirs(d); shutil.move(tmp, os.path.join(d, "numerics"))
