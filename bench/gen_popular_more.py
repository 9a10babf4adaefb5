"""More blocks of popular architectures for bench/gen_popular.py, chosen for an op mix the first set
lacks: cross-attention with other key lengths (Stable Diffusion, Perceiver, DETR), conv1d stacks with
weight norm (wav2vec2), quick_gelu and argmax pooling (CLIP), gathered relative positions (DeBERTa),
partial rotary (GPT-NeoX/Phi), soft-capping and tied embeddings (Gemma), multi-query attention with
expand (Falcon), channel shuffle (ShuffleNetV2), adaptive pools and grouped convs (SqueezeNet/RegNet),
unfold/fold (MobileViT), cdist and box ops (DETR), padding masks (nn.Transformer layers), multi-layer
bidirectional LSTM/GRU, CTC loss (its forward algorithm), embedding bags (DLRM), pixel (un)shuffle and bicubic resize (ESPCN),
3-D convolution and pools (video). Plain torch.nn, small inputs; gen_popular.py falls back to
build_more for these names (and NAME_bf16 for the BF16 list)."""
import math

NAMES = ["sd_xattn", "wav2vec2_fe", "clip_towers", "deberta_attn", "neox_partial_rotary", "gemma_block",
         "falcon_mqa", "shufflenet_v2", "squeeze_regnet", "mobilevit_block", "detr_head", "perceiver_xattn",
         "transformer_padmask", "lstm_bidir", "ctc_head", "dlrm_interact", "espcn_sr", "video_conv3d"]

BF16 = ["sd_xattn_bf16", "gemma_block_bf16", "falcon_mqa_bf16", "mobilevit_block_bf16", "video_conv3d_bf16"]


def build_more(name, dev):
    import torch, torch.nn as nn, torch.nn.functional as F

    def rotate_half(x):
        h = x.shape[-1] // 2
        return torch.cat((-x[..., h:], x[..., :h]), dim=-1)

    def rope_cos_sin(T, dim, x):
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2, device=x.device).float() / dim))
        fr = torch.einsum("i,j->ij", torch.arange(T, device=x.device).float(), inv)
        emb = torch.cat((fr, fr), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    class SDBlock(nn.Module):
        """Stable Diffusion UNet ResBlock (GroupNorm, SiLU, time embedding) followed by a
        SpatialTransformer: GroupNorm, 1x1 proj_in, self-attention, cross-attention to a text context
        (Lq=64, Lk=7, other key width), GEGLU feed-forward (chunk, gelu gate), 1x1 proj_out."""
        def __init__(s, c=32, t=64, ctx=48, heads=4):
            super().__init__()
            s.h = heads
            s.gn1 = nn.GroupNorm(8, c); s.c1 = nn.Conv2d(c, c, 3, padding=1); s.temb = nn.Linear(t, c)
            s.gn2 = nn.GroupNorm(8, c); s.c2 = nn.Conv2d(c, c, 3, padding=1)
            s.gnt = nn.GroupNorm(8, c, eps=1e-6); s.pin = nn.Conv2d(c, c, 1); s.pout = nn.Conv2d(c, c, 1)
            s.ln1 = nn.LayerNorm(c); s.ln2 = nn.LayerNorm(c); s.ln3 = nn.LayerNorm(c)
            s.q1 = nn.Linear(c, c, bias=False); s.k1 = nn.Linear(c, c, bias=False); s.v1 = nn.Linear(c, c, bias=False)
            s.o1 = nn.Linear(c, c)
            s.q2 = nn.Linear(c, c, bias=False); s.k2 = nn.Linear(ctx, c, bias=False); s.v2 = nn.Linear(ctx, c, bias=False)
            s.o2 = nn.Linear(c, c)
            s.ff1 = nn.Linear(c, 8 * c); s.ff2 = nn.Linear(4 * c, c)
        def attn(s, x, ctx, q, k, v, o):
            B, L, C = x.shape
            sp = lambda z: z.view(B, -1, s.h, C // s.h).transpose(1, 2)
            a = F.scaled_dot_product_attention(sp(q(x)), sp(k(ctx)), sp(v(ctx)))
            return o(a.transpose(1, 2).reshape(B, L, C))
        def forward(s, x, emb, context):
            h = s.c1(F.silu(s.gn1(x))) + s.temb(F.silu(emb))[:, :, None, None]
            x = x + s.c2(F.silu(s.gn2(h)))
            B, C, H, W = x.shape
            t = s.pin(s.gnt(x)).permute(0, 2, 3, 1).reshape(B, H * W, C)
            n = s.ln1(t)
            t = t + s.attn(n, n, s.q1, s.k1, s.v1, s.o1)
            t = t + s.attn(s.ln2(t), context, s.q2, s.k2, s.v2, s.o2)
            a, g = s.ff1(s.ln3(t)).chunk(2, dim=-1)
            t = t + s.ff2(a * F.gelu(g))
            return s.pout(t.reshape(B, H, W, C).permute(0, 3, 1, 2)) + x

    class W2V(nn.Module):
        """wav2vec2/HuBERT feature extractor: conv1d stack (k10 s5, k3 s2, k2 s2, no bias), GroupNorm
        with one group per channel over time, GELU, LayerNorm + projection, then the positional
        grouped conv1d with weight norm (_weight_norm over dim 2), the SamePad trim and GELU."""
        def __init__(s, c=32, d=48):
            super().__init__()
            s.c0 = nn.Conv1d(1, c, 10, stride=5, bias=False); s.gn = nn.GroupNorm(c, c)
            s.c1 = nn.Conv1d(c, c, 3, stride=2, bias=False); s.c2 = nn.Conv1d(c, c, 2, stride=2, bias=False)
            s.ln = nn.LayerNorm(c); s.proj = nn.Linear(c, d)
            s.pv = nn.Parameter(0.05 * torch.randn(d, d // 4, 8)); s.pg = nn.Parameter(torch.ones(1, 1, 8))
            s.pb = nn.Parameter(torch.zeros(d)); s.lnp = nn.LayerNorm(d)
        def forward(s, wav):
            x = F.gelu(s.gn(s.c0(wav[:, None])))
            x = F.gelu(s.c2(F.gelu(s.c1(x))))
            x = s.proj(s.ln(x.transpose(1, 2)))
            w = torch._weight_norm(s.pv, s.pg, 2)
            p = F.conv1d(x.transpose(1, 2), w, s.pb, padding=4, groups=4)[:, :, :-1]
            return s.lnp(x + F.gelu(p).transpose(1, 2))

    class CLIPLayer(nn.Module):
        def __init__(s, d, heads):
            super().__init__()
            s.h = heads
            s.ln1 = nn.LayerNorm(d); s.ln2 = nn.LayerNorm(d); s.qkv = nn.Linear(d, 3 * d); s.o = nn.Linear(d, d)
            s.f1 = nn.Linear(d, 4 * d); s.f2 = nn.Linear(4 * d, d)
        def forward(s, x, mask=None):
            B, T, C = x.shape
            q, k, v = s.qkv(s.ln1(x)).chunk(3, dim=-1)
            sp = lambda z: z.reshape(B, T, s.h, C // s.h).transpose(1, 2)
            att = (sp(q) * (C // s.h) ** -0.5) @ sp(k).transpose(-1, -2)
            if mask is not None:
                att = att + mask
            y = att.softmax(-1) @ sp(v)
            x = x + s.o(y.transpose(1, 2).reshape(B, T, C))
            h = s.f1(s.ln2(x))
            return x + s.f2(h * torch.sigmoid(1.702 * h))

    class CLIP(nn.Module):
        """CLIP text and vision towers: causal mask from triu of a -inf matrix, quick_gelu, argmax
        (end-of-text) pooling, class token + pre-LN on the vision side, L2-normalised projections,
        exp'd logit scale, and the symmetric cross-entropy loss."""
        def __init__(s, v=64, d=32, e=24):
            super().__init__()
            s.tok = nn.Embedding(v, d); s.pos = nn.Parameter(0.01 * torch.randn(10, d)); s.tl = CLIPLayer(d, 4)
            s.tln = nn.LayerNorm(d); s.tproj = nn.Parameter(torch.randn(d, e) * d ** -0.5)
            s.patch = nn.Conv2d(3, d, 8, stride=8, bias=False); s.cls = nn.Parameter(0.02 * torch.randn(d))
            s.vpos = nn.Parameter(0.01 * torch.randn(17, d)); s.pre = nn.LayerNorm(d); s.vl = CLIPLayer(d, 4)
            s.post = nn.LayerNorm(d); s.vproj = nn.Parameter(torch.randn(d, e) * d ** -0.5)
            s.scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))
        def forward(s, ids, img):
            B, T = ids.shape
            mask = torch.full((T, T), float("-inf"), device=ids.device).triu(1)
            t = s.tln(s.tl(s.tok(ids) + s.pos[:T], mask))
            t = t[torch.arange(B, device=ids.device), ids.argmax(dim=-1)] @ s.tproj
            x = s.patch(img).flatten(2).transpose(1, 2)
            x = torch.cat([s.cls.expand(x.shape[0], 1, -1), x], 1) + s.vpos
            v = s.post(s.vl(s.pre(x))[:, 0]) @ s.vproj
            t = t / t.norm(dim=-1, keepdim=True)
            v = v / v.norm(dim=-1, keepdim=True)
            logits = s.scale.exp() * v @ t.t()
            lab = torch.arange(B, device=ids.device)
            loss = (F.cross_entropy(logits, lab) + F.cross_entropy(logits.t(), lab)) / 2
            return torch.cat([logits.flatten(), loss[None]])

    class Deberta(nn.Module):
        """DeBERTa disentangled attention: relative distances clamped into 2k buckets, content-to-
        position and position-to-content scores gathered from q/k against projected position
        embeddings, 1/sqrt(3d) scaling, XSoftmax (masked_fill before and after the softmax)."""
        def __init__(s, d=48, heads=4, k=4):
            super().__init__()
            s.h, s.k = heads, k
            s.qkv = nn.Linear(d, 3 * d); s.pos = nn.Embedding(2 * k, d); s.pk = nn.Linear(d, d); s.pq = nn.Linear(d, d)
            s.o = nn.Linear(d, d); s.ln = nn.LayerNorm(d)
        def forward(s, x, mask):
            B, T, C = x.shape
            H, hd = s.h, C // s.h
            sp = lambda z: z.view(z.shape[0], -1, H, hd).transpose(1, 2)
            q, k, v = (sp(z) for z in s.qkv(x).chunk(3, -1))
            i = torch.arange(T, device=x.device)
            rel = i[:, None] - i[None, :]
            c2p_idx = torch.clamp(rel + s.k, 0, 2 * s.k - 1).expand(B, H, T, T)
            p2c_idx = torch.clamp(-rel + s.k, 0, 2 * s.k - 1).expand(B, H, T, T)
            r = s.pos.weight
            pk = sp(s.pk(r)[None]).expand(B, -1, -1, -1)
            pq = sp(s.pq(r)[None]).expand(B, -1, -1, -1)
            scale = math.sqrt(hd * 3)
            att = q @ k.transpose(-1, -2) / scale
            c2p = torch.gather(q @ pk.transpose(-1, -2), -1, c2p_idx)
            p2c = torch.gather(k @ pq.transpose(-1, -2), -1, p2c_idx).transpose(-1, -2)
            att = att + (c2p + p2c) / scale
            m = (mask[:, None, None, :] * mask[:, None, :, None]).bool()
            att = att.masked_fill(~m, torch.finfo(att.dtype).min)
            p = F.softmax(att, -1).masked_fill(~m, 0)
            y = (p @ v).transpose(1, 2).reshape(B, T, C)
            return s.ln(x + s.o(y))

    class NeoX(nn.Module):
        """GPT-NeoX/Phi: fused qkv viewed per head as [q|k|v], rotary on the first quarter of the
        head dim only (slice, rotate, cat with the pass-through), causal mask by torch.where with a
        0-d min, parallel residual (attention and MLP both from x), tanh GELU."""
        def __init__(s, d=64, heads=4, rot=0.25):
            super().__init__()
            s.h, s.hd = heads, d // heads
            s.rd = int(s.hd * rot)
            s.ln1 = nn.LayerNorm(d); s.ln2 = nn.LayerNorm(d); s.qkv = nn.Linear(d, 3 * d); s.o = nn.Linear(d, d)
            s.f1 = nn.Linear(d, 4 * d); s.f2 = nn.Linear(4 * d, d)
        def forward(s, x):
            B, T, C = x.shape
            qkv = s.qkv(s.ln1(x)).view(B, T, s.h, 3 * s.hd).permute(0, 2, 1, 3)
            q, k, v = qkv[..., : s.hd], qkv[..., s.hd: 2 * s.hd], qkv[..., 2 * s.hd:]
            cos, sin = rope_cos_sin(T, s.rd, x)
            def rope(z):
                zr, zp = z[..., : s.rd], z[..., s.rd:]
                return torch.cat((zr * cos + rotate_half(zr) * sin, zp), dim=-1)
            q, k = rope(q), rope(k)
            att = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(s.hd)
            causal = torch.tril(torch.ones(T, T, dtype=torch.bool, device=x.device))
            att = torch.where(causal, att, torch.tensor(torch.finfo(att.dtype).min, dtype=att.dtype, device=x.device))
            y = (att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, C)
            return x + s.o(y) + s.f2(F.gelu(s.f1(s.ln2(x)), approximate="tanh"))

    class GemmaNorm(nn.Module):
        def __init__(s, d, eps=1e-6):
            super().__init__(); s.w = nn.Parameter(0.1 * torch.randn(d)); s.eps = eps
        def forward(s, x):
            xf = x.float()
            o = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + s.eps)
            return (o * (1.0 + s.w.float())).type_as(x)

    class Gemma(nn.Module):
        """Gemma 2 decoder: embeddings scaled by sqrt(d) as a tensor of the model dtype, RMSNorm
        with (1 + w) in fp32, one KV head expanded to all (MQA), RoPE, attention-logit soft-capping
        (tanh), additive causal mask, post-attention/post-MLP norms, GeGLU (tanh gelu), output
        logits through the tied embedding matrix with final soft-capping."""
        def __init__(s, v=96, d=64, heads=4, hd=16, cap_att=50.0, cap_out=30.0):
            super().__init__()
            s.d, s.h, s.hd, s.ca, s.co = d, heads, hd, cap_att, cap_out
            s.emb = nn.Embedding(v, d)
            s.n1, s.n2, s.n3, s.n4, s.nf = (GemmaNorm(d) for _ in range(5))
            s.q = nn.Linear(d, heads * hd, bias=False); s.k = nn.Linear(d, hd, bias=False)
            s.v = nn.Linear(d, hd, bias=False); s.o = nn.Linear(heads * hd, d, bias=False)
            s.gate = nn.Linear(d, 128, bias=False); s.up = nn.Linear(d, 128, bias=False); s.down = nn.Linear(128, d, bias=False)
        def forward(s, ids):
            B, T = ids.shape
            x = s.emb(ids)
            x = x * torch.tensor(s.d ** 0.5, dtype=x.dtype, device=x.device)
            h = s.n1(x)
            q = s.q(h).view(B, T, s.h, s.hd).transpose(1, 2)
            k = s.k(h).view(B, T, 1, s.hd).transpose(1, 2)
            v = s.v(h).view(B, T, 1, s.hd).transpose(1, 2)
            cos, sin = rope_cos_sin(T, s.hd, x)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            k = k.expand(B, s.h, T, s.hd)
            v = v.expand(B, s.h, T, s.hd)
            att = torch.matmul(q, k.transpose(2, 3)) * s.hd ** -0.5
            att = torch.tanh(att / s.ca) * s.ca
            att = att + torch.full((T, T), torch.finfo(att.dtype).min, dtype=att.dtype, device=x.device).triu(1)
            p = F.softmax(att, dim=-1, dtype=torch.float32).to(q.dtype)
            y = torch.matmul(p, v).transpose(1, 2).reshape(B, T, -1)
            x = x + s.n2(s.o(y))
            h = s.n3(x)
            x = x + s.n4(s.down(F.gelu(s.gate(h), approximate="tanh") * s.up(h)))
            logits = F.linear(s.nf(x), s.emb.weight)
            return torch.tanh(logits / s.co) * s.co

    class Falcon(nn.Module):
        """Falcon-7B layer: fused query/key/value of a multi-query layout ([..., :-2], [..., [-2]],
        [..., [-1]]: index by a negative list), RoPE, K/V expanded to all heads (stride 0) into causal
        SDPA, parallel attention and MLP from one LayerNorm, no biases."""
        def __init__(s, d=64, heads=4):
            super().__init__()
            s.h, s.hd = heads, d // heads
            s.ln = nn.LayerNorm(d); s.qkv = nn.Linear(d, d + 2 * s.hd, bias=False); s.o = nn.Linear(d, d, bias=False)
            s.f1 = nn.Linear(d, 4 * d, bias=False); s.f2 = nn.Linear(4 * d, d, bias=False)
        def forward(s, x):
            B, T, C = x.shape
            h = s.ln(x)
            fused = s.qkv(h).view(B, T, s.h + 2, s.hd)
            q = fused[..., :-2, :].transpose(1, 2)
            k = fused[..., [-2], :].transpose(1, 2)
            v = fused[..., [-1], :].transpose(1, 2)
            cos, sin = rope_cos_sin(T, s.hd, x)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            y = F.scaled_dot_product_attention(q, k.expand(-1, s.h, -1, -1), v.expand(-1, s.h, -1, -1), is_causal=True)
            return x + s.o(y.transpose(1, 2).reshape(B, T, C)) + s.f2(F.gelu(s.f1(h)))

    def channel_shuffle(x, g):
        B, C, H, W = x.shape
        return x.view(B, g, C // g, H, W).transpose(1, 2).contiguous().view(B, C, H, W)

    class Shuffle(nn.Module):
        """ShuffleNetV2: a stride-1 unit (chunk into halves, branch on one, cat, channel shuffle by
        view/transpose/contiguous/view) and a stride-2 unit (two branches), global mean."""
        def __init__(s, c=24):
            super().__init__()
            def branch(i, o, stride):
                return nn.Sequential(nn.Conv2d(i, o, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                                     nn.Conv2d(o, o, 3, stride, 1, groups=o, bias=False), nn.BatchNorm2d(o),
                                     nn.Conv2d(o, o, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))
            s.b1 = branch(c // 2, c // 2, 1)
            s.l2 = nn.Sequential(nn.Conv2d(c, c, 3, 2, 1, groups=c, bias=False), nn.BatchNorm2d(c),
                                 nn.Conv2d(c, c, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU(inplace=True))
            s.r2 = branch(c, c, 2)
        def forward(s, x):
            a, b = x.chunk(2, dim=1)
            x = channel_shuffle(torch.cat((a, s.b1(b)), 1), 2)
            x = channel_shuffle(torch.cat((s.l2(x), s.r2(x)), 1), 2)
            return x.mean([2, 3])

    class SqueezeReg(nn.Module):
        """SqueezeNet fire module after a ceil-mode max pool (squeeze 1x1, expand 1x1 and 3x3,
        concat), a RegNetY bottleneck (grouped 3x3 stride 2 with group width 8, squeeze-excite,
        projected shortcut), then adaptive max and avg pools to 3x3 from 4x4 (overlapping windows)."""
        def __init__(s, c=16, w=32):
            super().__init__()
            s.sq = nn.Conv2d(c, 8, 1); s.e1 = nn.Conv2d(8, 16, 1); s.e3 = nn.Conv2d(8, 16, 3, padding=1)
            s.a = nn.Sequential(nn.Conv2d(32, w, 1, bias=False), nn.BatchNorm2d(w), nn.ReLU())
            s.b = nn.Sequential(nn.Conv2d(w, w, 3, 2, 1, groups=w // 8, bias=False), nn.BatchNorm2d(w), nn.ReLU())
            s.se1 = nn.Conv2d(w, 8, 1); s.se2 = nn.Conv2d(8, w, 1)
            s.c = nn.Sequential(nn.Conv2d(w, 48, 1, bias=False), nn.BatchNorm2d(48))
            s.proj = nn.Sequential(nn.Conv2d(32, 48, 1, stride=2, bias=False), nn.BatchNorm2d(48))
        def forward(s, x):
            x = F.relu(s.sq(F.max_pool2d(x, 3, 2, ceil_mode=True)))
            x = torch.cat([F.relu(s.e1(x)), F.relu(s.e3(x))], 1)
            y = s.b(s.a(x))
            y = y * torch.sigmoid(s.se2(F.relu(s.se1(F.adaptive_avg_pool2d(y, 1)))))
            y = F.relu(s.proj(x) + s.c(y))
            return torch.cat([F.adaptive_max_pool2d(y, (3, 3)), F.adaptive_avg_pool2d(y, (3, 3))], 1).flatten(1)

    class MobileViT(nn.Module):
        """MobileViT block: local conv, unfold into 2x2-patch sequences by reshape/transpose, a
        transformer layer (single-head SDPA, SiLU MLP), fold back, fuse with the input; then an
        F.unfold/F.fold (im2col/col2im) round trip with overlapping 3x3 stride-2 windows."""
        def __init__(s, c=16, d=32, p=2):
            super().__init__()
            s.p = p
            s.local = nn.Sequential(nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.SiLU(),
                                    nn.Conv2d(c, d, 1, bias=False))
            s.ln1 = nn.LayerNorm(d); s.qkv = nn.Linear(d, 3 * d); s.o = nn.Linear(d, d); s.ln2 = nn.LayerNorm(d)
            s.f1 = nn.Linear(d, 2 * d); s.f2 = nn.Linear(2 * d, d); s.lnf = nn.LayerNorm(d)
            s.proj = nn.Sequential(nn.Conv2d(d, c, 1, bias=False), nn.BatchNorm2d(c), nn.SiLU())
            s.fuse = nn.Conv2d(2 * c, c, 3, padding=1); s.gate = nn.Parameter(torch.rand(c * 9))
        def forward(s, x):
            B, C, H, W = x.shape
            p = s.p
            y = s.local(x)
            D = y.shape[1]
            nh, nw = H // p, W // p
            t = y.reshape(B * D * nh, p, nw, p).transpose(1, 2)
            t = t.reshape(B, D, nh * nw, p * p).transpose(1, 3).reshape(B * p * p, nh * nw, D)
            q, k, v = s.qkv(s.ln1(t)).chunk(3, -1)
            t = t + s.o(F.scaled_dot_product_attention(q, k, v))
            t = s.lnf(t + s.f2(F.silu(s.f1(s.ln2(t)))))
            t = t.contiguous().view(B, p * p, nh * nw, D).transpose(1, 3)
            t = t.reshape(B * D * nh, nw, p, p).transpose(1, 2).reshape(B, D, H, W)
            out = s.fuse(torch.cat([x, s.proj(t)], 1))
            cols = F.unfold(out, 3, padding=1, stride=2)
            return out + F.fold(cols * s.gate[None, :, None], (H, W), 3, padding=1, stride=2)

    def xyxy(b):
        cx, cy, w, h = b.unbind(-1)
        return torch.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], -1)

    class DETR(nn.Module):
        """DETR decoder head: learned queries cross-attending to memory (nn.MultiheadAttention),
        class logits and a sigmoid box MLP, box format conversion (unbind/stack), the Hungarian
        matcher's cost matrix (cdist p=1 and p=2, generalized IoU with max/min/clamp, gathered class
        probabilities) and, with a fixed diagonal matching, CE + L1 + GIoU losses."""
        def __init__(s, d=32, nq=10, ncls=5):
            super().__init__()
            s.query = nn.Embedding(nq, d); s.ln = nn.LayerNorm(d)
            s.ca = nn.MultiheadAttention(d, 4, batch_first=True)
            s.cls = nn.Linear(d, ncls + 1); s.b1 = nn.Linear(d, d); s.b2 = nn.Linear(d, d); s.b3 = nn.Linear(d, 4)
        def forward(s, mem, tgt_boxes, tgt_cls):
            B = mem.shape[0]
            q = s.query.weight[None].expand(B, -1, -1)
            h = s.ln(q + s.ca(q, mem, mem, need_weights=False)[0])
            logits = s.cls(h)
            boxes = s.b3(F.relu(s.b2(F.relu(s.b1(h))))).sigmoid()
            pb, tb = xyxy(boxes), xyxy(tgt_boxes)
            area_p = (pb[..., 2] - pb[..., 0]) * (pb[..., 3] - pb[..., 1])
            area_t = (tb[..., 2] - tb[..., 0]) * (tb[..., 3] - tb[..., 1])
            lt = torch.max(pb[:, :, None, :2], tb[:, None, :, :2])
            rb = torch.min(pb[:, :, None, 2:], tb[:, None, :, 2:])
            wh = (rb - lt).clamp(min=0)
            inter = wh[..., 0] * wh[..., 1]
            union = area_p[:, :, None] + area_t[:, None, :] - inter
            iou = inter / union
            wh2 = (torch.max(pb[:, :, None, 2:], tb[:, None, :, 2:]) - torch.min(pb[:, :, None, :2], tb[:, None, :, :2])).clamp(min=0)
            area = wh2[..., 0] * wh2[..., 1]
            giou = iou - (area - union) / area
            prob = logits.softmax(-1)
            cost_cls = -prob.gather(2, tgt_cls[:, None, :].expand(-1, prob.shape[1], -1))
            cost = 5 * torch.cdist(boxes, tgt_boxes, p=1) + cost_cls - 2 * giou + torch.cdist(boxes, tgt_boxes)
            loss = F.cross_entropy(logits.flatten(0, 1), tgt_cls.flatten()) + F.l1_loss(boxes, tgt_boxes) \
                + (1 - giou.diagonal(dim1=1, dim2=2)).mean()
            return torch.cat([cost.flatten(), loss[None]])

    class Perceiver(nn.Module):
        """Perceiver IO: learned latents (expanded) cross-attending to a longer input of another
        width (nn.MultiheadAttention with kdim/vdim: separate projection weights, Lq=16, Lk=50),
        latent self-attention with need_weights=True (the explicit bmm/softmax path), GELU MLP,
        output queries decoding from the latents."""
        def __init__(s, din=24, d=32, nl=16):
            super().__init__()
            s.lat = nn.Parameter(0.02 * torch.randn(nl, d)); s.lnx = nn.LayerNorm(din); s.lnl = nn.LayerNorm(d)
            s.ca = nn.MultiheadAttention(d, 1, kdim=din, vdim=din, batch_first=True)
            s.sa = nn.MultiheadAttention(d, 4, batch_first=True); s.ln2 = nn.LayerNorm(d)
            s.f1 = nn.Linear(d, 2 * d); s.f2 = nn.Linear(2 * d, d)
            s.oq = nn.Parameter(0.02 * torch.randn(3, d)); s.dec = nn.MultiheadAttention(d, 2, batch_first=True)
            s.head = nn.Linear(d, 5)
        def forward(s, x):
            B = x.shape[0]
            kv = s.lnx(x)
            lat = s.lat.expand(B, -1, -1)
            lat = lat + s.ca(s.lnl(lat), kv, kv, need_weights=False)[0]
            h = s.ln2(lat)
            lat = lat + s.sa(h, h, h, need_weights=True)[0]
            lat = lat + s.f2(F.gelu(s.f1(lat)))
            return s.head(s.dec(s.oq.expand(B, -1, -1), lat, lat, need_weights=False)[0])

    class PadMask(nn.Module):
        """nn.TransformerEncoderLayer with a boolean src_key_padding_mask built from lengths, and a
        pre-norm GELU nn.TransformerDecoderLayer with a float causal tgt_mask and the same boolean
        memory_key_padding_mask (masked_fill of bool masks into float ones inside MHA)."""
        def __init__(s, d=32):
            super().__init__()
            s.enc = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.0, batch_first=True)
            s.dec = nn.TransformerDecoderLayer(d, 4, 64, dropout=0.0, batch_first=True, norm_first=True, activation="gelu")
            s.emb = nn.Embedding(20, d)
        def forward(s, src, lengths, tgt_ids):
            T = src.shape[1]
            pad = torch.arange(T, device=src.device)[None, :] >= lengths[:, None]
            mem = s.enc(src, src_key_padding_mask=pad)
            L = tgt_ids.shape[1]
            causal = torch.full((L, L), float("-inf"), device=src.device).triu(1)
            return s.dec(s.emb(tgt_ids), mem, tgt_mask=causal, memory_key_padding_mask=pad)

    class BiLSTM(nn.Module):
        """Speech/tagging encoder: 2-layer bidirectional nn.LSTM, a GRU over its output, and a
        log_softmax head (Dynamo traces the RNN modules with allow_rnn; AOT unrolls them)."""
        def __init__(s, i=16, h=24, v=12):
            super().__init__()
            s.lstm = nn.LSTM(i, h, num_layers=2, bidirectional=True, batch_first=True)
            s.gru = nn.GRU(2 * h, h, batch_first=True); s.fc = nn.Linear(h, v)
        def forward(s, x):
            y, _ = s.lstm(x)
            y, _ = s.gru(y)
            return F.log_softmax(s.fc(y), -1)

    def ctc_nll(lp, targets, in_lens, tgt_lens, blank=0, neg=-1e4):
        """CTC's forward algorithm in log space (what F.ctc_loss computes), per sample: the
        blank-extended targets (slice assignment with a step), label log-probs gathered, the
        skip transition allowed between distinct non-blank labels, logsumexp over the three
        predecessors each step, frozen past the input length, the two end states summed. A large
        finite 'neg' stands for log 0: logsumexp over all -inf has a NaN gradient."""
        T, B, V = lp.shape
        L = 2 * targets.shape[1] + 1
        ext = targets.new_full((B, L), blank)
        ext[:, 1::2] = targets
        lpe = lp.gather(2, ext[None].expand(T, B, L))
        skip = torch.cat([torch.zeros(B, 2, dtype=torch.bool, device=lp.device),
                          (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])], 1)
        alpha = torch.cat([lpe[0, :, :2], torch.full((B, L - 2), neg, device=lp.device, dtype=lp.dtype)], 1)
        for t in range(1, T):
            a1 = F.pad(alpha[:, :-1], (1, 0), value=neg)
            a2 = torch.where(skip, F.pad(alpha[:, :-2], (2, 0), value=neg), torch.full_like(alpha, neg))
            nxt = torch.logsumexp(torch.stack([alpha, a1, a2]), 0) + lpe[t]
            alpha = torch.where((t < in_lens)[:, None], nxt, alpha)
        ends = torch.stack([2 * tgt_lens, 2 * tgt_lens - 1], 1)
        return -torch.logsumexp(alpha.gather(1, ends), 1)

    class CTC(nn.Module):
        """CTC head: conv1d over time, log_softmax to (T, B, V), the CTC loss (mean reduction:
        per-sample NLL over the target length, averaged) by the forward algorithm written out
        (ctc_nll). Dynamo breaks the graph at F.ctc_loss (session 13's capture held only the head,
        and gen_numerics then wrote the resumed graph's files over the first graph's recorded
        inputs); gen_popular.py now compiles with fullgraph=True, so a break fails the block."""
        def __init__(s, i=16, v=8):
            super().__init__()
            s.conv = nn.Conv1d(i, 32, 3, padding=1); s.fc = nn.Linear(32, v)
        def forward(s, x, targets, in_lens, tgt_lens):
            h = F.relu(s.conv(x.transpose(1, 2))).transpose(1, 2)
            lp = F.log_softmax(s.fc(h), -1).transpose(0, 1)
            loss = (ctc_nll(lp, targets, in_lens, tgt_lens) / tgt_lens).mean()
            return torch.cat([lp.flatten(), loss[None]])

    class DLRM(nn.Module):
        """DLRM: bottom MLP on dense features, three nn.EmbeddingBag tables (sum with offsets, mean
        with an empty bag, sum over 2-D input with per_sample_weights), dot interaction (stack, bmm,
        strictly-lower-triangle gather with tril_indices), top MLP, sigmoid."""
        def __init__(s, d=16):
            super().__init__()
            s.bot = nn.Sequential(nn.Linear(13, 32), nn.ReLU(), nn.Linear(32, d), nn.ReLU())
            s.e0 = nn.EmbeddingBag(50, d, mode="sum"); s.e1 = nn.EmbeddingBag(40, d, mode="mean")
            s.e2 = nn.EmbeddingBag(30, d, mode="sum")
            s.top = nn.Sequential(nn.Linear(d + 6, 32), nn.ReLU(), nn.Linear(32, 1))
        def forward(s, dense, i0, o0, i1, o1, i2, psw):
            x = s.bot(dense)
            T = torch.stack([x, s.e0(i0, o0), s.e1(i1, o1), s.e2(i2, per_sample_weights=psw)], 1)
            Z = torch.bmm(T, T.transpose(1, 2))
            li, lj = torch.tril_indices(4, 4, offset=-1, device=dense.device)
            return torch.sigmoid(s.top(torch.cat([x, Z[:, li, lj]], 1)))

    class ESPCN(nn.Module):
        """ESPCN super-resolution: tanh convs, pixel_shuffle x3, plus a bicubic upsample of the
        input; then pixel_unshuffle x2, 1x1 conv and an align_corners bilinear upsample back."""
        def __init__(s, r=3):
            super().__init__()
            s.r = r
            s.c1 = nn.Conv2d(3, 32, 5, padding=2); s.c2 = nn.Conv2d(32, 16, 3, padding=1)
            s.c3 = nn.Conv2d(16, 3 * r * r, 3, padding=1); s.c4 = nn.Conv2d(12, 3, 1)
        def forward(s, x):
            y = F.pixel_shuffle(s.c3(torch.tanh(s.c2(torch.tanh(s.c1(x))))), s.r)
            y = y + F.interpolate(x, scale_factor=s.r, mode="bicubic", align_corners=False)
            z = s.c4(F.pixel_unshuffle(y, 2))
            return y + F.interpolate(z, scale_factor=2, mode="bilinear", align_corners=True)

    class Video(nn.Module):
        """Video (R(2+1)D-style) block: conv3d stem with a strided spatial kernel, BatchNorm3d,
        max_pool3d with padding, factorised (1,3,3) + (3,1,1) conv3d residual, adaptive_avg_pool3d
        and avg_pool3d + amax heads."""
        def __init__(s, c=8):
            super().__init__()
            s.stem = nn.Conv3d(3, c, (3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2), bias=False); s.bn = nn.BatchNorm3d(c)
            s.s = nn.Conv3d(c, c, (1, 3, 3), padding=(0, 1, 1), bias=False)
            s.t = nn.Conv3d(c, c, (3, 1, 1), padding=(1, 0, 0), bias=False)
            s.bn2 = nn.BatchNorm3d(c); s.fc = nn.Linear(2 * c, 5)
        def forward(s, x):
            y = F.relu(s.bn(s.stem(x)))
            y = F.max_pool3d(y, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))
            y = F.relu(y + s.bn2(s.t(F.relu(s.s(y)))))
            a = F.adaptive_avg_pool3d(y, 1).flatten(1)
            m = F.avg_pool3d(y, (2, 2, 2)).amax((2, 3, 4))
            return s.fc(torch.cat([a, m], 1))

    r = lambda *sh: torch.randn(*sh, device=dev)
    ri = lambda hi, *sh: torch.randint(0, hi, sh, device=dev)
    lt = lambda *v: torch.tensor(v, dtype=torch.long, device=dev)
    if name == "sd_xattn":
        return SDBlock(), (r(2, 32, 8, 8), r(2, 64), r(2, 7, 48)), "train"
    if name == "wav2vec2_fe":
        return W2V(), (r(2, 800),), "train"
    if name == "clip_towers":
        ids = ri(60, 4, 10)
        ids[:, -1] = 63  # end-of-text: the highest id, as CLIP's tokenizer has it (argmax pooling)
        ids[1, 6] = 63
        return CLIP(), (ids, r(4, 3, 32, 32)), "train"
    if name == "deberta_attn":
        mask = torch.ones(2, 12, dtype=torch.long, device=dev)
        mask[0, 9:] = 0
        return Deberta(), (r(2, 12, 48), mask), "train"
    if name == "neox_partial_rotary":
        return NeoX(), (r(2, 16, 64),), "train"
    if name == "gemma_block":
        return Gemma(), (ri(96, 2, 12),), "train"
    if name == "falcon_mqa":
        return Falcon(), (r(2, 16, 64),), "train"
    if name == "shufflenet_v2":
        return Shuffle(), (r(2, 24, 16, 16),), "train"
    if name == "squeeze_regnet":
        return SqueezeReg(), (r(2, 16, 16, 16),), "train"
    if name == "mobilevit_block":
        return MobileViT(), (r(2, 16, 8, 8),), "train"
    if name == "detr_head":
        boxes = 0.25 + 0.5 * torch.rand(2, 10, 4, device=dev)
        return DETR(), (r(2, 20, 32), boxes, ri(6, 2, 10)), "train"
    if name == "perceiver_xattn":
        return Perceiver(), (r(2, 50, 24),), "train"
    if name == "transformer_padmask":
        return PadMask(), (r(2, 10, 32), lt(10, 6), ri(20, 2, 7)), "train"
    if name == "lstm_bidir":
        try:  # Dynamo graph-breaks on nn.LSTM/GRU unless allowed (the model would not be captured)
            torch._dynamo.config.allow_rnn = True
        except AttributeError:
            pass
        return BiLSTM(), (r(2, 8, 16),), "train"
    if name == "ctc_head":
        return CTC(), (r(2, 20, 16), 1 + ri(7, 2, 6), lt(20, 17), lt(6, 4)), "train"
    if name == "dlrm_interact":
        return DLRM(), (r(4, 13), ri(50, 10), lt(0, 3, 5, 8), ri(40, 9), lt(0, 2, 2, 6), ri(30, 4, 3),
                        torch.rand(4, 3, device=dev)), "train"
    if name == "espcn_sr":
        return ESPCN(), (r(2, 3, 12, 12),), "train"
    if name == "video_conv3d":
        return Video(), (r(2, 3, 4, 16, 16),), "train"
    raise KeyError(name)
