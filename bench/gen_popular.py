#!/usr/bin/env python3
"""Small training graphs of blocks from popular architectures that ../shared/corpus does not hold
(Llama/Mistral, Mixtral MoE, T5, Swin, ConvNeXt, MobileNetV3, EfficientNet, UNet, Whisper, YOLO/DETR,
LSTM/GRU cells, DenseNet, Inception, ViT, BLOOM, RoBERTa embeddings), written in plain torch.nn
(the GPU machine has no network and may lack torchvision/transformers), so that the engine meets
the ops those graphs hold before users do. Corpus numerics layout, fp32, TF32 off, inputs of a few
hundred kB: OUT/<name>/numerics/{forward,backward,joint,dynamo}.py + inputs/outputs.
Runs on the GPU machine (PyTorch 2.11):  python3 bench/gen_popular.py OUT [NAME,NAME...|all]   (--list: the names)
bench/gen_popular_more.py holds a second set (SD cross-attention, wav2vec2, CLIP, DeBERTa, Gemma, Falcon,
ShuffleNet, MobileViT, DETR, Perceiver, LSTM/CTC, DLRM, ESPCN, video conv3d; --list more[_bf16]),
bench/gen_popular_third.py a third (Mamba, SSD, GRN, Swin-V2, BART, Conformer, WaveNet, PixelCNN, NeRF,
VQ-VAE, DDPM/DiT, StyleGAN2, GAT/SAGE, PointNet, Reformer, Longformer, GShard MoE, Real-ESRGAN, CapsNet,
SAM, Deformable-DETR, losses; --list third[_bf16]).
Every block is compiled with fullgraph=True: after a graph break gen_numerics would write the last
graph's files over the first graph's recorded inputs (session 13's ctc_head: 5 input files for a
graph of 2 inputs), so a break fails the block instead; stages whose input files do not match their
graph's inputs are removed and reported (check_stages).
Reuses gen_numerics' capture through ../shared/corpus/tools (or $FXRAY_CORPUS_TOOLS)."""
import math, os, shutil, sys

HERE = os.path.dirname(os.path.abspath(__file__))
for cand in (os.environ.get("FXRAY_CORPUS_TOOLS", ""), os.path.join(HERE, "..", "..", "shared", "corpus", "tools"),
             os.path.join(HERE, "..", "tools", "corpus", "tools")):
    if cand and os.path.isfile(os.path.join(cand, "gen_numerics.py")):
        sys.path.insert(0, cand)
        break
import gen_corpus, gen_numerics  # noqa: E402
import gen_popular_more  # noqa: E402  (the second set: bench/gen_popular_more.py, beside this file)
import gen_popular_third  # noqa: E402  (the third set: bench/gen_popular_third.py)

NAMES = ["llama_block", "mistral_swa", "mixtral_moe", "t5_relbias", "swin_window", "convnext_block",
         "mobilenetv3_block", "efficientnet_mbconv", "unet_block", "whisper_stem", "yolo_neck",
         "rnn_cells", "densenet_block", "inception_block", "vit_mha", "bloom_alibi", "roberta_embed"]


# bf16 copies of a few blocks (NAME_bf16, not in "all"): the attention, convolution and norm
# kernels mixed-precision training runs (flash / cuDNN attention instead of the fp32 paths).
BF16 = ["llama_block_bf16", "vit_mha_bf16", "unet_block_bf16", "whisper_stem_bf16"]


def build(name, dev):
    import torch, torch.nn as nn, torch.nn.functional as F
    if name.endswith("_bf16"):
        model, inps, mode = build(name[: -len("_bf16")], dev)
        return model.to(torch.bfloat16), tuple(t.to(torch.bfloat16) if t.is_floating_point() else t for t in inps), mode

    class RMSNorm(nn.Module):
        def __init__(s, d, eps=1e-6):
            super().__init__(); s.w = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d)); s.eps = eps
        def forward(s, x):
            v = x.float().pow(2).mean(-1, keepdim=True)
            return s.w * (x * torch.rsqrt(v + s.eps)).to(x.dtype)

    def rotate_half(x):
        h = x.shape[-1] // 2
        return torch.cat((-x[..., h:], x[..., :h]), dim=-1)

    class Llama(nn.Module):
        """Llama decoder layer: RMSNorm, RoPE (computed in the graph), grouped-query attention with
        repeat_interleave (llama) or expand+reshape and a sliding-window mask (mistral), SwiGLU MLP."""
        def __init__(s, d=64, heads=4, kv=2, mistral=False):
            super().__init__()
            s.h, s.kv, s.hd, s.mistral = heads, kv, d // heads, mistral
            s.q = nn.Linear(d, d, bias=False); s.k = nn.Linear(d, kv * s.hd, bias=False)
            s.v = nn.Linear(d, kv * s.hd, bias=False); s.o = nn.Linear(d, d, bias=False)
            s.n1 = RMSNorm(d); s.n2 = RMSNorm(d)
            s.gate = nn.Linear(d, 128, bias=False); s.up = nn.Linear(d, 128, bias=False); s.down = nn.Linear(128, d, bias=False)
        def forward(s, x):
            B, T, C = x.shape
            h = s.n1(x)
            q = s.q(h).view(B, T, s.h, s.hd).transpose(1, 2)
            k = s.k(h).view(B, T, s.kv, s.hd).transpose(1, 2)
            v = s.v(h).view(B, T, s.kv, s.hd).transpose(1, 2)
            inv = 1.0 / (10000 ** (torch.arange(0, s.hd, 2, device=x.device).float() / s.hd))
            fr = torch.outer(torch.arange(T, device=x.device).float(), inv)
            emb = torch.cat((fr, fr), dim=-1)
            cos, sin = emb.cos()[None, None].to(x.dtype), emb.sin()[None, None].to(x.dtype)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            rep = s.h // s.kv
            if s.mistral:
                k = k[:, :, None].expand(B, s.kv, rep, T, s.hd).reshape(B, s.h, T, s.hd)
                v = v[:, :, None].expand(B, s.kv, rep, T, s.hd).reshape(B, s.h, T, s.hd)
                i = torch.arange(T, device=x.device)
                band = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < 6)
                att = (q @ k.transpose(-1, -2)) / math.sqrt(s.hd)
                att = att.masked_fill(~band, torch.finfo(att.dtype).min)
                att = F.softmax(att, dim=-1, dtype=torch.float32).to(q.dtype)
                y = att @ v
            else:
                k = k.repeat_interleave(rep, dim=1)
                v = v.repeat_interleave(rep, dim=1)
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + s.o(y.transpose(1, 2).reshape(B, T, C))
            h = s.n2(x)
            return x + s.down(F.silu(s.gate(h)) * s.up(h))

    class MoE(nn.Module):
        """Mixtral sparse MoE: router softmax, top-2, renormalised weights, per-token gathered expert
        weights (index), bmm, index_add back; a load-balancing term from scatter_add counts."""
        def __init__(s, d=32, hid=64, e=4, k=2):
            super().__init__()
            s.e, s.k = e, k
            s.router = nn.Linear(d, e, bias=False)
            s.w1 = nn.Parameter(torch.randn(e, d, hid) / math.sqrt(d)); s.w3 = nn.Parameter(torch.randn(e, d, hid) / math.sqrt(d))
            s.w2 = nn.Parameter(torch.randn(e, hid, d) / math.sqrt(hid))
        def forward(s, x):
            B, T, D = x.shape
            xt = x.reshape(-1, D)
            n = xt.shape[0]
            probs = F.softmax(s.router(xt), dim=-1, dtype=torch.float)
            topv, topi = torch.topk(probs, s.k, dim=-1)
            topv = topv / topv.sum(dim=-1, keepdim=True)
            ex = topi.reshape(-1)
            tok = torch.arange(n, device=x.device).repeat_interleave(s.k)
            xin = xt[tok].unsqueeze(1)
            hmid = F.silu(torch.bmm(xin, s.w1[ex])) * torch.bmm(xin, s.w3[ex])
            y = torch.bmm(hmid, s.w2[ex]).squeeze(1) * topv.reshape(-1, 1)
            out = torch.zeros_like(xt).index_add(0, tok, y)
            counts = torch.zeros(n, s.e, device=x.device).scatter_add(1, topi, torch.ones_like(topv))
            aux = (counts.mean(0) * probs.mean(0)).sum() * s.e
            return (out + aux).reshape(B, T, D)

    class T5Attn(nn.Module):
        """T5 self-attention with the bucketed relative position bias (log buckets, embedding) and
        the T5 layer norm (RMS, no mean), no 1/sqrt(d) scaling; ReLU feed-forward."""
        def __init__(s, d=64, heads=4, buckets=32, maxd=128):
            super().__init__()
            s.h, s.hd, s.nb, s.md = heads, d // heads, buckets, maxd
            s.q = nn.Linear(d, d, bias=False); s.k = nn.Linear(d, d, bias=False)
            s.v = nn.Linear(d, d, bias=False); s.o = nn.Linear(d, d, bias=False)
            s.rel = nn.Embedding(buckets, heads); s.ln = RMSNorm(d); s.ln2 = RMSNorm(d)
            s.wi = nn.Linear(d, 128, bias=False); s.wo = nn.Linear(128, d, bias=False)
        def bucket(s, rp):
            nb = s.nb // 2
            ret = (rp > 0).to(torch.long) * nb
            rp = torch.abs(rp)
            exact = nb // 2
            small = rp < exact
            large = exact + (torch.log(rp.float() / exact) / math.log(s.md / exact) * (nb - exact)).to(torch.long)
            large = torch.min(large, torch.full_like(large, nb - 1))
            return ret + torch.where(small, rp, large)
        def forward(s, x):
            B, T, C = x.shape
            h = s.ln(x)
            q = s.q(h).view(B, T, s.h, s.hd).transpose(1, 2)
            k = s.k(h).view(B, T, s.h, s.hd).transpose(1, 2)
            v = s.v(h).view(B, T, s.h, s.hd).transpose(1, 2)
            pos = torch.arange(T, dtype=torch.long, device=x.device)
            bias = s.rel(s.bucket(pos[None, :] - pos[:, None])).permute(2, 0, 1).unsqueeze(0)
            att = torch.matmul(q, k.transpose(3, 2)) + bias
            att = F.softmax(att.float(), dim=-1).type_as(att)
            x = x + s.o(torch.matmul(att, v).transpose(1, 2).contiguous().view(B, T, C))
            return x + s.wo(F.relu(s.wi(s.ln2(x))))

    class Swin(nn.Module):
        """Swin block with a shifted window: roll, window partition/reverse views, relative position
        bias table gathered by an index buffer, shifted-window attention mask, GELU MLP."""
        def __init__(s, d=32, heads=2, ws=4, res=8, shift=2):
            super().__init__()
            s.d, s.h, s.ws, s.res, s.shift = d, heads, ws, res, shift
            s.n1 = nn.LayerNorm(d); s.n2 = nn.LayerNorm(d)
            s.qkv = nn.Linear(d, 3 * d); s.proj = nn.Linear(d, d)
            s.fc1 = nn.Linear(d, 4 * d); s.fc2 = nn.Linear(4 * d, d)
            s.table = nn.Parameter(0.02 * torch.randn((2 * ws - 1) ** 2, heads))
            c = torch.stack(torch.meshgrid(torch.arange(ws), torch.arange(ws), indexing="ij")).flatten(1)
            r = (c[:, :, None] - c[:, None, :]).permute(1, 2, 0) + (ws - 1)
            s.register_buffer("rel_index", r[..., 0] * (2 * ws - 1) + r[..., 1])
            img = torch.zeros(1, res, res, 1)
            cnt = 0
            for hs in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
                for wsl in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
                    img[:, hs, wsl, :] = cnt; cnt += 1
            mw = s.part(img).view(-1, ws * ws)
            m = mw[:, None, :] - mw[:, :, None]
            s.register_buffer("mask", m.masked_fill(m != 0, -100.0).masked_fill(m == 0, 0.0))
        def part(s, x):
            B, H, W, C = x.shape
            x = x.view(B, H // s.ws, s.ws, W // s.ws, s.ws, C)
            return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, s.ws, s.ws, C)
        def forward(s, x):
            B, L, C = x.shape
            H = W = s.res
            sc = x
            x = torch.roll(s.n1(x).view(B, H, W, C), shifts=(-s.shift, -s.shift), dims=(1, 2))
            xw = s.part(x).view(-1, s.ws * s.ws, C)
            Bw, N, _ = xw.shape
            qkv = s.qkv(xw).reshape(Bw, N, 3, s.h, C // s.h).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.unbind(0)
            att = (q * (C // s.h) ** -0.5) @ k.transpose(-2, -1)
            bias = s.table[s.rel_index.view(-1)].view(N, N, -1).permute(2, 0, 1).contiguous()
            att = att + bias.unsqueeze(0)
            nw = s.mask.shape[0]
            att = att.view(Bw // nw, nw, s.h, N, N) + s.mask.unsqueeze(1).unsqueeze(0)
            att = att.view(-1, s.h, N, N).softmax(-1)
            y = s.proj((att @ v).transpose(1, 2).reshape(Bw, N, C)).view(-1, s.ws, s.ws, C)
            y = y.view(B, H // s.ws, W // s.ws, s.ws, s.ws, C).permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, C)
            x = sc + torch.roll(y, shifts=(s.shift, s.shift), dims=(1, 2)).view(B, H * W, C)
            return x + s.fc2(F.gelu(s.fc1(s.n2(x))))

    class ConvNeXt(nn.Module):
        """ConvNeXt block: depthwise 7x7, channels-last LayerNorm via permutes, pointwise MLP with
        GELU, layer scale, residual; then a LayerNorm2d-style downsample (mean/var over C) + 2x2 conv."""
        def __init__(s, c=32):
            super().__init__()
            s.dw = nn.Conv2d(c, c, 7, padding=3, groups=c); s.ln = nn.LayerNorm(c, eps=1e-6)
            s.pw1 = nn.Linear(c, 4 * c); s.pw2 = nn.Linear(4 * c, c)
            s.gamma = nn.Parameter(0.5 * torch.ones(c)); s.dn = nn.Conv2d(c, 2 * c, 2, stride=2)
            s.lw = nn.Parameter(torch.ones(c)); s.lb = nn.Parameter(torch.zeros(c))
        def forward(s, x):
            y = s.dw(x).permute(0, 2, 3, 1)
            y = s.pw2(F.gelu(s.pw1(s.ln(y)))) * s.gamma
            x = x + y.permute(0, 3, 1, 2)
            u = x.mean(1, keepdim=True)
            v = (x - u).pow(2).mean(1, keepdim=True)
            x = (x - u) / torch.sqrt(v + 1e-6)
            x = s.lw[:, None, None] * x + s.lb[:, None, None]
            return s.dn(x)

    class MobileV3(nn.Module):
        """MobileNetV3 inverted residual: 1x1 expand + BN + hardswish, depthwise 3x3 stride 2 + BN,
        squeeze-excite (adaptive avg pool, ReLU, hardsigmoid), 1x1 project + BN; then a stride-1 block
        with a residual and ReLU6."""
        def __init__(s, c=16, e=48):
            super().__init__()
            s.ex = nn.Conv2d(c, e, 1, bias=False); s.b1 = nn.BatchNorm2d(e)
            s.dw = nn.Conv2d(e, e, 3, stride=2, padding=1, groups=e, bias=False); s.b2 = nn.BatchNorm2d(e)
            s.se1 = nn.Conv2d(e, 16, 1); s.se2 = nn.Conv2d(16, e, 1)
            s.pr = nn.Conv2d(e, c, 1, bias=False); s.b3 = nn.BatchNorm2d(c)
            s.dw2 = nn.Conv2d(c, c, 3, padding=1, groups=c, bias=False); s.b4 = nn.BatchNorm2d(c)
        def forward(s, x):
            y = F.hardswish(s.b1(s.ex(x)))
            y = F.hardswish(s.b2(s.dw(y)))
            w = F.hardsigmoid(s.se2(F.relu(s.se1(F.adaptive_avg_pool2d(y, 1)))))
            y = s.b3(s.pr(y * w))
            return y + F.relu6(s.b4(s.dw2(y)))

    class MBConv(nn.Module):
        """EfficientNet MBConv: SiLU, depthwise 5x5, SE with sigmoid gating, residual."""
        def __init__(s, c=16, e=64):
            super().__init__()
            s.ex = nn.Conv2d(c, e, 1, bias=False); s.b1 = nn.BatchNorm2d(e)
            s.dw = nn.Conv2d(e, e, 5, padding=2, groups=e, bias=False); s.b2 = nn.BatchNorm2d(e)
            s.r = nn.Conv2d(e, 4, 1); s.x = nn.Conv2d(4, e, 1)
            s.pr = nn.Conv2d(e, c, 1, bias=False); s.b3 = nn.BatchNorm2d(c)
        def forward(s, x):
            y = F.silu(s.b1(s.ex(x)))
            y = F.silu(s.b2(s.dw(y)))
            y = y * torch.sigmoid(s.x(F.silu(s.r(y.mean((2, 3), keepdim=True)))))
            return x + s.b3(s.pr(y))

    class UNet(nn.Module):
        """UNet resnet down/up path of a diffusion model: GroupNorm, SiLU, time embedding broadcast,
        strided conv down, nearest upsample, skip concat, spatial self-attention (SDPA)."""
        def __init__(s, c=16, t=32):
            super().__init__()
            s.temb = nn.Linear(t, c); s.gn1 = nn.GroupNorm(4, c); s.c1 = nn.Conv2d(c, c, 3, padding=1)
            s.gn2 = nn.GroupNorm(4, c); s.c2 = nn.Conv2d(c, c, 3, padding=1)
            s.down = nn.Conv2d(c, c, 3, stride=2, padding=1)
            s.gna = nn.GroupNorm(4, c); s.qkv = nn.Conv2d(c, 3 * c, 1); s.po = nn.Conv2d(c, c, 1)
            s.gn3 = nn.GroupNorm(8, 2 * c); s.c3 = nn.Conv2d(2 * c, c, 3, padding=1)
            s.t = nn.Parameter(torch.randn(2, t))
        def forward(s, x):
            B, C, H, W = x.shape
            h = s.c1(F.silu(s.gn1(x))) + s.temb(F.silu(s.t))[:, :, None, None]
            skip = x + s.c2(F.silu(s.gn2(h)))
            d = s.down(skip)
            q, k, v = s.qkv(s.gna(d)).reshape(B, 3, C, -1).permute(1, 0, 3, 2).unbind(0)
            a = F.scaled_dot_product_attention(q[:, None], k[:, None], v[:, None])[:, 0]
            d = d + s.po(a.transpose(1, 2).reshape(B, C, H // 2, W // 2))
            u = F.interpolate(d, scale_factor=2.0, mode="nearest")
            return s.c3(F.silu(s.gn3(torch.cat([u, skip], dim=1))))

    class Whisper(nn.Module):
        """Whisper encoder stem: conv1d k3 + GELU, conv1d stride 2 + GELU, permute, sinusoidal
        positions (computed in the graph), pre-LN attention (SDPA) and GELU MLP."""
        def __init__(s, mels=16, d=64, heads=4):
            super().__init__()
            s.c1 = nn.Conv1d(mels, d, 3, padding=1); s.c2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
            s.ln1 = nn.LayerNorm(d); s.ln2 = nn.LayerNorm(d); s.lnp = nn.LayerNorm(d)
            s.q = nn.Linear(d, d); s.k = nn.Linear(d, d, bias=False); s.v = nn.Linear(d, d); s.o = nn.Linear(d, d)
            s.f1 = nn.Linear(d, 4 * d); s.f2 = nn.Linear(4 * d, d); s.h = heads
        def forward(s, x):
            x = F.gelu(s.c2(F.gelu(s.c1(x)))).permute(0, 2, 1)
            B, T, C = x.shape
            inc = math.log(10000) / (C // 2 - 1)
            inv = torch.exp(-inc * torch.arange(C // 2, device=x.device))
            t = torch.arange(T, device=x.device)[:, None] * inv[None, :]
            x = x + torch.cat([torch.sin(t), torch.cos(t)], dim=1).to(x.dtype)
            h = s.ln1(x)
            sp = lambda z: z.view(B, T, s.h, C // s.h).transpose(1, 2)
            a = F.scaled_dot_product_attention(sp(s.q(h)), sp(s.k(h)), sp(s.v(h)))
            x = x + s.o(a.transpose(1, 2).reshape(B, T, C))
            return s.lnp(x + s.f2(F.gelu(s.f1(s.ln2(x)))))

    class Yolo(nn.Module):
        """YOLO/DETR-style neck: conv-BN-SiLU, LeakyReLU, max pool with ceil_mode, SPPF (three
        5x5 stride-1 max pools, concat), nearest upsample + concat, bilinear resize, grid_sample."""
        def __init__(s, c=16):
            super().__init__()
            s.c0 = nn.Conv2d(3, c, 3, padding=1, bias=False); s.b0 = nn.BatchNorm2d(c)
            s.c1 = nn.Conv2d(c, c, 3, padding=1, bias=False); s.b1 = nn.BatchNorm2d(c)
            s.spp = nn.Conv2d(4 * c, c, 1); s.fuse = nn.Conv2d(2 * c, c, 1)
            s.off = nn.Conv2d(c, 2, 3, padding=1)
        def forward(s, x):
            p0 = F.silu(s.b0(s.c0(x)))
            p1 = F.max_pool2d(p0, 3, stride=2, ceil_mode=True)
            p1 = F.leaky_relu(s.b1(s.c1(p1)), 0.1)
            y1 = F.max_pool2d(p1, 5, 1, 2); y2 = F.max_pool2d(y1, 5, 1, 2); y3 = F.max_pool2d(y2, 5, 1, 2)
            p1 = s.spp(torch.cat([p1, y1, y2, y3], 1))
            up = F.interpolate(p1, size=p0.shape[-2:], mode="nearest")
            f = s.fuse(torch.cat([up, p0], 1))
            f = f + F.interpolate(p1, size=p0.shape[-2:], mode="bilinear", align_corners=False)
            grid = torch.tanh(s.off(f)).permute(0, 2, 3, 1)
            return F.grid_sample(f, grid, mode="bilinear", padding_mode="zeros", align_corners=False)

    class Cells(nn.Module):
        """nn.LSTMCell and nn.GRUCell unrolled over 6 steps, plus a hand-written LSTM step (chunk,
        sigmoid, tanh), stacked outputs."""
        def __init__(s, i=16, h=32):
            super().__init__()
            s.lstm = nn.LSTMCell(i, h); s.gru = nn.GRUCell(h, h); s.wx = nn.Linear(i, 4 * h); s.wh = nn.Linear(h, 4 * h, bias=False)
            s.hsz = h
        def forward(s, x):
            B, T, _ = x.shape
            h = c = g = h2 = c2 = x.new_zeros(B, s.hsz)
            outs = []
            for t in range(T):
                h, c = s.lstm(x[:, t], (h, c))
                g = s.gru(h, g)
                i, f, gg, o = (s.wx(x[:, t]) + s.wh(h2)).chunk(4, 1)
                c2 = torch.sigmoid(f) * c2 + torch.sigmoid(i) * torch.tanh(gg)
                h2 = torch.sigmoid(o) * torch.tanh(c2)
                outs.append(g + h2)
            return torch.stack(outs, 1)

    class Dense(nn.Module):
        """DenseNet: three BN-ReLU-1x1-BN-ReLU-3x3 layers, each concatenating onto the running
        feature map, then a transition (BN-ReLU-1x1, 2x2 avg pool)."""
        def __init__(s, c=16, g=8):
            super().__init__()
            s.layers = nn.ModuleList()
            for i in range(3):
                ci = c + i * g
                s.layers.append(nn.Sequential(nn.BatchNorm2d(ci), nn.ReLU(), nn.Conv2d(ci, 2 * g, 1, bias=False),
                                              nn.BatchNorm2d(2 * g), nn.ReLU(), nn.Conv2d(2 * g, g, 3, padding=1, bias=False)))
            s.tr = nn.Sequential(nn.BatchNorm2d(c + 3 * g), nn.ReLU(), nn.Conv2d(c + 3 * g, c, 1, bias=False), nn.AvgPool2d(2, 2))
        def forward(s, x):
            feats = [x]
            for l in s.layers:
                feats.append(l(torch.cat(feats, 1)))
            return s.tr(torch.cat(feats, 1))

    class Inception(nn.Module):
        """Inception-v3 A block: 1x1, 1x1->5x5, 1x1->3x3->3x3, avg pool 3x3 (count_include_pad
        False) -> 1x1 branches, concatenated; a 3x3 stride-2 max pool reduction, adaptive pool."""
        def __init__(s, c=16):
            super().__init__()
            def cbr(i, o, k, **kw):
                return nn.Sequential(nn.Conv2d(i, o, k, bias=False, **kw), nn.BatchNorm2d(o, eps=1e-3), nn.ReLU(inplace=True))
            s.b1 = cbr(c, 8, 1); s.b5 = nn.Sequential(cbr(c, 6, 1), cbr(6, 8, 5, padding=2))
            s.b3 = nn.Sequential(cbr(c, 8, 1), cbr(8, 12, 3, padding=1), cbr(12, 12, 3, padding=1)); s.bp = cbr(c, 4, 1)
            s.red = cbr(32, 16, 3, stride=2)
        def forward(s, x):
            bp = s.bp(F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False))
            y = torch.cat([s.b1(x), s.b5(x), s.b3(x), bp], 1)
            y = torch.cat([s.red(y), F.max_pool2d(y, 3, stride=2)], 1)
            return F.adaptive_avg_pool2d(y, (3, 3)).flatten(1)

    class ViT(nn.Module):
        """ViT/DeiT front: conv patch embedding, flatten/transpose, cls token expand + cat, learned
        positions, nn.MultiheadAttention (batch_first), GELU MLP, head on the cls token."""
        def __init__(s, d=64, p=8):
            super().__init__()
            s.pe = nn.Conv2d(3, d, p, stride=p); s.cls = nn.Parameter(0.02 * torch.randn(1, 1, d))
            s.pos = nn.Parameter(0.02 * torch.randn(1, 17, d)); s.n1 = nn.LayerNorm(d); s.n2 = nn.LayerNorm(d)
            s.mha = nn.MultiheadAttention(d, 4, batch_first=True); s.f1 = nn.Linear(d, 2 * d); s.f2 = nn.Linear(2 * d, d)
            s.head = nn.Linear(d, 10)
        def forward(s, x):
            x = s.pe(x).flatten(2).transpose(1, 2)
            x = torch.cat([s.cls.expand(x.shape[0], -1, -1), x], 1) + s.pos
            h = s.n1(x)
            x = x + s.mha(h, h, h, need_weights=False)[0]
            x = x + s.f2(F.gelu(s.f1(s.n2(x))))
            return s.head(x[:, 0])

    class Bloom(nn.Module):
        """BLOOM attention: ALiBi slopes (pow, computed), baddbmm with the bias, causal mask with
        masked_fill(finfo.min), float softmax, fused qkv split by view, tanh-GELU MLP."""
        def __init__(s, d=64, heads=4):
            super().__init__()
            s.h, s.hd = heads, d // heads
            s.ln1 = nn.LayerNorm(d); s.ln2 = nn.LayerNorm(d); s.qkv = nn.Linear(d, 3 * d); s.o = nn.Linear(d, d)
            s.f1 = nn.Linear(d, 4 * d); s.f2 = nn.Linear(4 * d, d)
        def forward(s, x):
            B, T, C = x.shape
            base = 2 ** (-(2 ** -(math.log2(s.h) - 3)))
            slopes = torch.pow(torch.tensor(base, device=x.device), torch.arange(1, s.h + 1, device=x.device, dtype=torch.int32))
            mask1 = torch.ones(B, T, device=x.device)
            pos = ((mask1.cumsum(-1) - 1) * mask1)[:, None, :]
            alibi = (slopes[..., None] * pos).reshape(B * s.h, 1, T)
            h = s.ln1(x)
            q, k, v = s.qkv(h).view(B, T, s.h, 3, s.hd).unbind(3)
            q = q.transpose(1, 2).reshape(B * s.h, T, s.hd)
            k = k.permute(0, 2, 3, 1).reshape(B * s.h, s.hd, T)
            v = v.transpose(1, 2).reshape(B * s.h, T, s.hd)
            sc = alibi.baddbmm(batch1=q, batch2=k, beta=1.0, alpha=1.0 / math.sqrt(s.hd)).view(B, s.h, T, T)
            causal = torch.triu(torch.ones(T, T, dtype=torch.bool, device=x.device), diagonal=1)
            sc = sc.masked_fill(causal, torch.finfo(sc.dtype).min)
            p = F.softmax(sc, dim=-1, dtype=torch.float32).view(B * s.h, T, T)
            y = torch.bmm(p, v).view(B, s.h, T, s.hd).permute(0, 2, 1, 3).reshape(B, T, C)
            x = x + s.o(y)
            return x + s.f2(F.gelu(s.f1(s.ln2(x)), approximate="tanh"))

    class Roberta(nn.Module):
        """RoBERTa embeddings: position ids from the padding mask (ne, cumsum, type_as), word +
        position + token-type embeddings, LayerNorm; a pooler (tanh) and an argmax-picked token
        (CLIP's eot pooling: gather by argmax of the ids)."""
        def __init__(s, v=100, d=64):
            super().__init__()
            s.we = nn.Embedding(v, d, padding_idx=1); s.pe = nn.Embedding(40, d, padding_idx=1); s.te = nn.Embedding(2, d)
            s.ln = nn.LayerNorm(d, eps=1e-5); s.pool = nn.Linear(d, d)
        def forward(s, ids):
            mask = ids.ne(1).int()
            pos = (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + 1
            tt = torch.zeros_like(ids)
            e = s.ln(s.we(ids) + s.pe(pos) + s.te(tt))
            eot = e[torch.arange(e.shape[0], device=e.device), ids.argmax(dim=-1)]
            return e + torch.tanh(s.pool(eot))[:, None, :]

    r = lambda *sh: torch.randn(*sh, device=dev)
    if name == "llama_block":
        return Llama(), (r(2, 16, 64),), "train"
    if name == "mistral_swa":
        return Llama(mistral=True), (r(2, 16, 64),), "train"
    if name == "mixtral_moe":
        return MoE(), (r(2, 8, 32),), "train"
    if name == "t5_relbias":
        return T5Attn(), (r(2, 16, 64),), "train"
    if name == "swin_window":
        return Swin(), (r(2, 64, 32),), "train"
    if name == "convnext_block":
        return ConvNeXt(), (r(2, 32, 16, 16),), "train"
    if name == "mobilenetv3_block":
        return MobileV3(), (r(2, 16, 16, 16),), "train"
    if name == "efficientnet_mbconv":
        return MBConv(), (r(2, 16, 16, 16),), "train"
    if name == "unet_block":
        return UNet(), (r(2, 16, 16, 16),), "train"
    if name == "whisper_stem":
        return Whisper(), (r(2, 16, 32),), "train"
    if name == "yolo_neck":
        return Yolo(), (r(2, 3, 17, 17),), "train"
    if name == "rnn_cells":
        return Cells(), (r(4, 6, 16),), "train"
    if name == "densenet_block":
        return Dense(), (r(2, 16, 16, 16),), "train"
    if name == "inception_block":
        return Inception(), (r(2, 16, 15, 15),), "train"
    if name == "vit_mha":
        return ViT(), (r(2, 3, 32, 32),), "train"
    if name == "bloom_alibi":
        return Bloom(), (r(2, 16, 64),), "train"
    if name == "roberta_embed":
        ids = torch.randint(2, 100, (2, 12), device=dev)
        ids[0, 9:] = 1  # padding at the end of the first row
        return Roberta(), (ids,), "train"
    try:
        return gen_popular_more.build_more(name, dev)
    except KeyError:
        return gen_popular_third.build_third(name, dev)


gen_corpus.build = build


def check_stages(out, name):
    """Removes and reports a stage whose recorded input files do not match its graph's inputs
    (the stale-capture symptom), so that no run meets a mismatched set."""
    import re
    d = os.path.join(out, name)
    # (not the joint: it takes two pytree lists, primals and tangents)
    for st in ("dynamo", "forward", "backward", "inference"):
        py, ins = os.path.join(d, st + ".py"), os.path.join(d, st, "inputs")
        if not os.path.isfile(py):
            continue
        sig = re.search(r"def forward\(self(.*?)\):", open(py).read(), re.S)
        # parameters are annotated with quoted shapes that hold commas themselves
        want = len(re.findall(r'\w+\s*:\s*"[^"]*"', sig.group(1))) if sig else -1
        have = len(os.listdir(ins)) if os.path.isdir(ins) else 0
        if want != have:
            print(f"{name}/{st}: {have} input files for a graph of {want} inputs: stage removed", flush=True)
            os.remove(py)
            shutil.rmtree(os.path.join(d, st), ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--list":  # --list [bf16|more|more_bf16]
        which = sys.argv[2] if len(sys.argv) > 2 else ""
        sets = {"": NAMES, "bf16": NAMES + BF16, "more": gen_popular_more.NAMES,
                "more_bf16": gen_popular_more.NAMES + gen_popular_more.BF16,
                "third": gen_popular_third.NAMES, "third_bf16": gen_popular_third.NAMES + gen_popular_third.BF16}
        sys.exit(print(",".join(sets[which])))
    out = sys.argv[1]
    names = NAMES if len(sys.argv) < 3 or sys.argv[2] == "all" else sys.argv[2].split(",")
    sys.argv = [sys.argv[0], out, ",".join(names)]
    import torch
    _compile = torch.compile
    torch.compile = lambda model=None, **kw: _compile(model, fullgraph=True, **kw)
    gen_numerics.main()
    for name in names:
        check_stages(out, name)
    # corpus layout: OUT/<name>/numerics/<stage>.py (gen_numerics writes OUT/<name>/<stage>.py)
    for name in names:
        d = os.path.join(out, name)
        if os.path.isdir(d) and not os.path.isdir(os.path.join(d, "numerics")):
            tmp = os.path.join(out, "." + name + ".numerics")
            os.rename(d, tmp); os.makedirs(d); shutil.move(tmp, os.path.join(d, "numerics"))
