"""A third set of popular-architecture blocks for bench/gen_popular.py, chosen for ops and patterns the
first two sets (gen_popular.py, gen_popular_more.py) lack: selective scans (Mamba: softplus, exp,
multi-operand einsum; Mamba-2 SSD: cumsum segment sums with -inf masks), ConvNeXt-V2's global response
norm (norm over two dims), Swin-V2 cosine attention with a log-spaced continuous position bias, an
encoder-decoder (BART: shift-right by slice assignment, causal + padding masks into SDPA, tied LM head,
label smoothing with ignore_index), Conformer (GLU, depthwise conv1d + BatchNorm1d, Transformer-XL
relative positions with the pad/view rel_shift, slice assignment with a step), WaveNet/TCN (dilated
causal conv1d, gated tanh*sigmoid, weight-norm parametrisation over dim 0, mu-law, K-dim cross entropy),
PixelCNN (masked convolution weights, concat_elu, logsumexp mixtures), NeRF (positional encoding,
cumprod transmittance, searchsorted importance sampling, sort), VQ-VAE (argmin codebook, one_hot,
straight-through estimator), DDPM (timestep embedding, AdaGN scale-shift, einsum attention, DiT's
adaLN-zero), StyleGAN2 (modulated/demodulated convolution grouped by the batch, grouped transposed conv
+ blur), GAT/GraphSAGE (scatter_reduce amax/mean, index_add segment softmax), PointNet (max over points,
eye, bmm, BatchNorm1d on 2-D and 3-D input), Reformer (LSH buckets, argsort, gather/unsort, logsumexp),
Longformer (sliding windows by unfold and by as_strided), GShard top-2 routing with capacity (int
cumsum, one_hot dispatch/combine einsums), Real-ESRGAN (RRDB, pixel_unshuffle, a spectral-norm
discriminator's power iteration under no_grad), capsule dynamic routing (5-D broadcast matmul,
squash), SAM (padded window partition, linearly interpolated decomposed relative positions indexed by
a CPU arange), Deformable-DETR multi-scale deformable attention (grid_sample per level, inverse
sigmoid), and a mix of losses (focal, label smoothing, KL with and without log targets, Huber, smooth
L1, BCE, NLL with ignore_index, multilabel soft margin, cosine embedding, triplet, margin ranking,
Poisson NLL, multi margin; F.gaussian_nll_loss is left out: its check of var < 0 breaks the graph). No complex-number models. Plain torch.nn, small inputs;
gen_popular.py falls back to build_third for these names (and NAME_bf16 for the BF16 list)."""
import math

NAMES = ["mamba_selective", "mamba2_ssd", "convnextv2_grn", "swinv2_cosine", "bart_encdec", "conformer_block",
         "wavenet_tcn", "pixelcnn_masked", "nerf_render", "vqvae_codebook", "ddpm_adagn", "stylegan2_modconv",
         "gat_sage", "pointnet_seg", "reformer_lsh", "longformer_window", "moe_capacity", "esrgan_rrdb_sn",
         "capsnet_routing", "sam_window_relpos", "deformable_detr", "losses_mix"]

BF16 = ["conformer_block_bf16", "ddpm_adagn_bf16", "stylegan2_modconv_bf16", "pointnet_seg_bf16",
        "deformable_detr_bf16"]


def build_third(name, dev):
    import torch, torch.nn as nn, torch.nn.functional as F

    class RMSNorm(nn.Module):
        def __init__(s, d, eps=1e-5):
            super().__init__(); s.w = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d)); s.eps = eps
        def forward(s, x):
            return s.w * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + s.eps)

    class Mamba(nn.Module):
        """Mamba-1 block: in_proj to x and gate z, causal depthwise conv1d (pad both, keep the first
        L), SiLU, x_proj split into dt/B/C, softplus dt, A = -exp(A_log), discretised by exp of an
        einsum, a sequential selective scan over L steps, skip D, SiLU gate, out_proj."""
        def __init__(s, d=32, e=2, n=8, k=4, r=4):
            super().__init__()
            di = e * d
            s.n, s.r = n, r
            s.norm = RMSNorm(d); s.inp = nn.Linear(d, 2 * di, bias=False)
            s.conv = nn.Conv1d(di, di, k, groups=di, padding=k - 1)
            s.xp = nn.Linear(di, r + 2 * n, bias=False); s.dtp = nn.Linear(r, di)
            s.A_log = nn.Parameter(torch.log(torch.arange(1, n + 1).float().repeat(di, 1)))
            s.D = nn.Parameter(torch.ones(di)); s.out = nn.Linear(di, d, bias=False)
        def forward(s, x):
            B, L, _ = x.shape
            xi, z = s.inp(s.norm(x)).chunk(2, -1)
            xi = F.silu(s.conv(xi.transpose(1, 2))[..., :L]).transpose(1, 2)
            dt, Bm, Cm = torch.split(s.xp(xi), [s.r, s.n, s.n], dim=-1)
            dt = F.softplus(s.dtp(dt))
            A = -torch.exp(s.A_log.float())
            dA = torch.exp(torch.einsum("bld,dn->bldn", dt, A))
            dBx = torch.einsum("bld,bln,bld->bldn", dt, Bm, xi)
            h = x.new_zeros(B, xi.shape[-1], s.n)
            ys = []
            for t in range(L):
                h = dA[:, t] * h + dBx[:, t]
                ys.append(torch.einsum("bdn,bn->bd", h, Cm[:, t]))
            y = torch.stack(ys, 1) + xi * s.D
            return x + s.out(y * F.silu(z))

    def segsum(x):
        """Mamba-2's stable segment sum: exp(segsum(A))[i, j] = prod of exp(A) over (j, i]."""
        T = x.size(-1)
        x = x[..., None].expand(*x.shape, T)
        low = torch.tril(torch.ones(T, T, dtype=torch.bool, device=x.device), diagonal=-1)
        x = x.masked_fill(~low, 0)
        xs = torch.cumsum(x, dim=-2)
        keep = torch.tril(torch.ones(T, T, dtype=torch.bool, device=x.device), diagonal=0)
        return xs.masked_fill(~keep, -torch.inf)

    class Mamba2(nn.Module):
        """Mamba-2 layer with the chunked SSD algorithm (the minimal reference): in_proj to z, xBC and
        per-head dt, causal conv1d on xBC, softplus(dt + bias), segsum/cumsum decays, four einsums
        (intra-chunk, chunk states, inter-chunk recurrence, state output), D skip, gated RMSNorm."""
        def __init__(s, d=32, heads=4, p=8, n=8, chunk=4, k=4):
            super().__init__()
            s.h, s.p, s.n, s.ch = heads, p, n, chunk
            di = heads * p
            s.inp = nn.Linear(d, 2 * di + 2 * n + heads, bias=False)
            s.conv = nn.Conv1d(di + 2 * n, di + 2 * n, k, groups=di + 2 * n, padding=k - 1)
            s.dt_bias = nn.Parameter(0.1 * torch.randn(heads)); s.A_log = nn.Parameter(torch.log(torch.arange(1, heads + 1).float()))
            s.D = nn.Parameter(torch.ones(heads)); s.norm = RMSNorm(di); s.out = nn.Linear(di, d, bias=False)
        def forward(s, u):
            B, L, _ = u.shape
            H, P, N, c = s.h, s.p, s.n, s.ch
            di = H * P
            z, xBC, dt = torch.split(s.inp(u), [di, di + 2 * N, H], dim=-1)
            xBC = F.silu(s.conv(xBC.transpose(1, 2))[..., :L].transpose(1, 2))
            x, Bm, Cm = torch.split(xBC, [di, N, N], dim=-1)
            dt = F.softplus(dt + s.dt_bias)
            A = -torch.exp(s.A_log)
            X = (x.view(B, L, H, P) * dt[..., None]).view(B, L // c, c, H, P)
            Ad = (A * dt).view(B, L // c, c, H).permute(0, 3, 1, 2)
            Bc = Bm[:, :, None].expand(B, L, H, N).reshape(B, L // c, c, H, N)
            Cc = Cm[:, :, None].expand(B, L, H, N).reshape(B, L // c, c, H, N)
            A_cumsum = torch.cumsum(Ad, dim=-1)
            Lm = torch.exp(segsum(Ad))
            Y_diag = torch.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", Cc, Bc, Lm, X)
            decay_states = torch.exp(A_cumsum[:, :, :, -1:] - A_cumsum)
            states = torch.einsum("bclhn,bhcl,bclhp->bchpn", Bc, decay_states, X)
            states = torch.cat([torch.zeros_like(states[:, :1]), states], dim=1)
            decay_chunk = torch.exp(segsum(F.pad(A_cumsum[:, :, :, -1], (1, 0))))
            states = torch.einsum("bhzc,bchpn->bzhpn", decay_chunk, states)[:, :-1]
            Y_off = torch.einsum("bclhn,bchpn,bhcl->bclhp", Cc, states, torch.exp(A_cumsum))
            y = (Y_diag + Y_off).reshape(B, L, H, P) + x.view(B, L, H, P) * s.D[:, None]
            y = s.norm(y.reshape(B, L, di) * F.silu(z))
            return u + s.out(y)

    class GRN(nn.Module):
        def __init__(s, c):
            super().__init__()
            s.gamma = nn.Parameter(0.1 * torch.randn(1, 1, 1, c)); s.beta = nn.Parameter(0.1 * torch.randn(1, 1, 1, c))
        def forward(s, x):
            gx = torch.norm(x, p=2, dim=(1, 2), keepdim=True)
            nx = gx / (gx.mean(dim=-1, keepdim=True) + 1e-6)
            return s.gamma * (x * nx) + s.beta + x

    class ConvNeXtV2(nn.Module):
        """ConvNeXt-V2 with FCMAE masking: patchify stem + channels-first LayerNorm (F.layer_norm on a
        permute), a patch mask upsampled by repeat_interleave on two dims, x * (1 - mask), two blocks
        (depthwise 7x7, LayerNorm, Linear, GELU, global response norm, Linear, residual)."""
        def __init__(s, c=32):
            super().__init__()
            s.stem = nn.Conv2d(3, c, 4, stride=4); s.sw = nn.Parameter(torch.ones(c)); s.sb = nn.Parameter(torch.zeros(c))
            s.blocks = nn.ModuleList()
            for _ in range(2):
                s.blocks.append(nn.ModuleDict(dict(dw=nn.Conv2d(c, c, 7, padding=3, groups=c), ln=nn.LayerNorm(c, eps=1e-6),
                                                   p1=nn.Linear(c, 4 * c), grn=GRN(4 * c), p2=nn.Linear(4 * c, c))))
        def forward(s, x, mask):
            x = s.stem(x)
            x = F.layer_norm(x.permute(0, 2, 3, 1), (x.shape[1],), s.sw, s.sb, 1e-6).permute(0, 3, 1, 2)
            m = mask.repeat_interleave(x.shape[2] // mask.shape[2], 2).repeat_interleave(x.shape[3] // mask.shape[3], 3)
            x = x * (1.0 - m)
            for b in s.blocks:
                y = b["dw"](x).permute(0, 2, 3, 1)
                y = b["p2"](b["grn"](F.gelu(b["p1"](b["ln"](y)))))
                x = x + y.permute(0, 3, 1, 2)
            return x * (1.0 - m)

    class SwinV2(nn.Module):
        """Swin-V2 block: torch.roll shifted windows, cosine attention (F.normalize of q and k, a
        clamped exp'd per-head logit scale), the continuous position bias (a log-spaced coordinate
        table built in the graph: meshgrid, sign, log2; an MLP; 16 * sigmoid), q/v bias by cat with
        zeros_like, res-post-norm."""
        def __init__(s, d=32, heads=4, ws=4, res=8, shift=2):
            super().__init__()
            s.d, s.h, s.ws, s.res, s.shift = d, heads, ws, res, shift
            s.logit_scale = nn.Parameter(torch.log(10 * torch.ones(heads, 1, 1)))
            s.cpb = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, heads, bias=False))
            s.qkv = nn.Linear(d, 3 * d, bias=False); s.q_bias = nn.Parameter(0.02 * torch.randn(d)); s.v_bias = nn.Parameter(0.02 * torch.randn(d))
            s.proj = nn.Linear(d, d); s.n1 = nn.LayerNorm(d); s.n2 = nn.LayerNorm(d)
            s.fc1 = nn.Linear(d, 4 * d); s.fc2 = nn.Linear(4 * d, d)
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
            ws, h = s.ws, s.h
            xs = torch.roll(x.view(B, H, W, C), shifts=(-s.shift, -s.shift), dims=(1, 2))
            xw = s.part(xs).view(-1, ws * ws, C)
            Bw, N, _ = xw.shape
            bias = torch.cat((s.q_bias, torch.zeros_like(s.v_bias, requires_grad=False), s.v_bias))
            qkv = F.linear(xw, s.qkv.weight, bias).reshape(Bw, N, 3, h, C // h).permute(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            att = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
            att = att * torch.clamp(s.logit_scale, max=math.log(1.0 / 0.01)).exp()
            rc = torch.arange(-(ws - 1), ws, dtype=torch.float32, device=x.device)
            table = torch.stack(torch.meshgrid(rc, rc, indexing="ij")).permute(1, 2, 0).contiguous()[None]
            table = table / (ws - 1) * 8
            table = torch.sign(table) * torch.log2(torch.abs(table) + 1.0) / math.log2(8)
            bt = s.cpb(table).view(-1, h)
            rb = 16 * torch.sigmoid(bt[s.rel_index.view(-1)].view(N, N, -1).permute(2, 0, 1).contiguous())
            att = att + rb.unsqueeze(0)
            nw = s.mask.shape[0]
            att = (att.view(Bw // nw, nw, h, N, N) + s.mask.unsqueeze(1).unsqueeze(0)).view(-1, h, N, N).softmax(-1)
            y = s.proj((att @ v).transpose(1, 2).reshape(Bw, N, C)).view(-1, ws, ws, C)
            y = y.view(B, H // ws, W // ws, ws, ws, C).permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, C)
            x = x + s.n1(torch.roll(y, shifts=(s.shift, s.shift), dims=(1, 2)).view(B, L, C))
            return x + s.n2(s.fc2(F.gelu(s.fc1(x))))

    class MHA(nn.Module):
        def __init__(s, d, heads, kdim=None):
            super().__init__()
            s.h = heads
            s.q = nn.Linear(d, d); s.k = nn.Linear(kdim or d, d); s.v = nn.Linear(kdim or d, d); s.o = nn.Linear(d, d)
        def forward(s, x, mem, mask=None, sdpa=False):
            B, T, C = x.shape
            sp = lambda z: z.view(B, -1, s.h, C // s.h).transpose(1, 2)
            q, k, v = sp(s.q(x)), sp(s.k(mem)), sp(s.v(mem))
            if sdpa:
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            else:
                att = (q * (C // s.h) ** -0.5) @ k.transpose(-1, -2)
                if mask is not None:
                    att = att + mask
                y = F.softmax(att, -1) @ v
            return s.o(y.transpose(1, 2).reshape(B, T, C))

    class Bart(nn.Module):
        """BART-style encoder-decoder: scaled embeddings + learned positions with offset 2, post-LN
        encoder with an additive padding mask ((1 - m) * finfo.min), shift_tokens_right (new_zeros,
        slice assignment, masked_fill_ of -100), decoder self-attention through SDPA with a float
        causal + padding mask, cross-attention through SDPA with a boolean encoder padding mask, LM
        head tied to the embeddings plus a final_logits_bias buffer, label-smoothed cross entropy
        with ignore_index=-100."""
        def __init__(s, v=50, d=32, heads=4):
            super().__init__()
            s.v, s.d = v, d
            s.emb = nn.Embedding(v, d, padding_idx=1); s.epos = nn.Embedding(20, d); s.dpos = nn.Embedding(20, d)
            s.lne = nn.LayerNorm(d); s.lnd = nn.LayerNorm(d)
            s.esa = MHA(d, heads); s.eln1 = nn.LayerNorm(d); s.ef1 = nn.Linear(d, 2 * d); s.ef2 = nn.Linear(2 * d, d); s.eln2 = nn.LayerNorm(d)
            s.dsa = MHA(d, heads); s.dln1 = nn.LayerNorm(d); s.dca = MHA(d, heads); s.dln2 = nn.LayerNorm(d)
            s.df1 = nn.Linear(d, 2 * d); s.df2 = nn.Linear(2 * d, d); s.dln3 = nn.LayerNorm(d)
            s.register_buffer("final_logits_bias", 0.01 * torch.randn(1, v))
        def forward(s, ids, attn_mask, labels):
            B, S = ids.shape
            T = labels.shape[1]
            fmin = torch.finfo(torch.float32).min
            x = s.emb(ids) * math.sqrt(s.d) + s.epos(torch.arange(S, device=ids.device) + 2)
            x = s.lne(x)
            em = (1.0 - attn_mask[:, None, None, :].to(x.dtype)) * fmin
            x = s.eln1(x + s.esa(x, x, em))
            enc = s.eln2(x + s.ef2(F.gelu(s.ef1(x))))
            dec_ids = labels.new_zeros(labels.shape)
            dec_ids[:, 1:] = labels[:, :-1].clone()
            dec_ids[:, 0] = 2
            dec_ids.masked_fill_(dec_ids == -100, 1)
            causal = torch.full((T, T), fmin, device=ids.device).triu(1)
            dpad = dec_ids.ne(1)[:, None, None, :]
            dmask = causal[None, None].masked_fill(~dpad, fmin).to(x.dtype)
            y = s.emb(dec_ids) * math.sqrt(s.d) + s.dpos(torch.arange(T, device=ids.device) + 2)
            y = s.lnd(y)
            y = s.dln1(y + s.dsa(y, y, dmask, sdpa=True))
            y = s.dln2(y + s.dca(y, enc, attn_mask[:, None, None, :].bool(), sdpa=True))
            y = s.dln3(y + s.df2(F.gelu(s.df1(y))))
            logits = F.linear(y, s.emb.weight) + s.final_logits_bias
            loss = F.cross_entropy(logits.view(-1, s.v).float(), labels.view(-1), ignore_index=-100, label_smoothing=0.1)
            return torch.cat([logits.flatten(), loss[None].to(logits.dtype)])

    def rel_shift(x):
        b, h, t1, t2 = x.size()
        x = torch.cat([x.new_zeros(b, h, t1, 1), x], dim=-1).view(b, h, t2 + 1, t1)
        return x[:, :, 1:].view(b, h, t1, t2)[:, :, :, : t2 // 2 + 1]

    class Conformer(nn.Module):
        """Conformer block: Macaron half-step FFNs (SiLU), relative-position MHSA (sinusoids for
        distances T-1..-(T-1) written with step-2 slice assignments, pos_bias_u/v, Transformer-XL
        rel_shift by cat/view/slice, key padding from lengths), convolution module (pointwise conv1d,
        GLU over channels, depthwise conv1d k7, BatchNorm1d, SiLU, pointwise), final LayerNorm."""
        def __init__(s, d=32, heads=4, k=7):
            super().__init__()
            s.d, s.h, s.hd = d, heads, d // heads
            s.ff1 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
            s.ff2 = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))
            s.lna = nn.LayerNorm(d); s.qkv = nn.Linear(d, 3 * d); s.pos = nn.Linear(d, d, bias=False); s.o = nn.Linear(d, d)
            s.pbu = nn.Parameter(0.1 * torch.randn(heads, s.hd)); s.pbv = nn.Parameter(0.1 * torch.randn(heads, s.hd))
            s.lnc = nn.LayerNorm(d); s.pw1 = nn.Conv1d(d, 2 * d, 1); s.dw = nn.Conv1d(d, d, k, padding=k // 2, groups=d)
            s.bn = nn.BatchNorm1d(d); s.pw2 = nn.Conv1d(d, d, 1); s.lnf = nn.LayerNorm(d)
        def forward(s, x, lengths):
            B, T, C = x.shape
            H, hd = s.h, s.hd
            x = x + 0.5 * s.ff1(x)
            pos = torch.arange(T - 1, -T, -1.0, device=x.device)[:, None]
            inv = torch.exp(torch.arange(0, C, 2, dtype=torch.float32, device=x.device) * -(math.log(10000.0) / C))
            pe = torch.zeros(2 * T - 1, C, device=x.device)
            pe[:, 0::2] = torch.sin(pos * inv)
            pe[:, 1::2] = torch.cos(pos * inv)
            p = s.pos(pe.to(x.dtype)).view(1, 2 * T - 1, H, hd).transpose(1, 2)
            h = s.lna(x)
            q, k, v = s.qkv(h).view(B, T, 3, H, hd).unbind(2)
            k, v = k.transpose(1, 2), v.transpose(1, 2)
            ac = (q + s.pbu).transpose(1, 2) @ k.transpose(-1, -2)
            bd = rel_shift((q + s.pbv).transpose(1, 2) @ p.transpose(-1, -2))
            att = (ac + bd) / math.sqrt(hd)
            keep = (torch.arange(T, device=x.device)[None, :] < lengths[:, None])[:, None, None, :]
            att = att.masked_fill(~keep, torch.finfo(att.dtype).min)
            pr = torch.softmax(att, -1).masked_fill(~keep, 0.0)
            x = x + s.o((pr @ v).transpose(1, 2).reshape(B, T, C))
            c = F.glu(s.pw1(s.lnc(x).transpose(1, 2)), dim=1)
            c = s.pw2(F.silu(s.bn(s.dw(c))))
            x = x + c.transpose(1, 2)
            x = x + 0.5 * s.ff2(x)
            return s.lnf(x)

    wnorm = getattr(getattr(nn.utils, "parametrizations", None), "weight_norm", None) or nn.utils.weight_norm

    class WaveNet(nn.Module):
        """WaveNet/TCN: mu-law companding (sign, log1p) and quantisation of the input, causal 1x1
        input conv, dilated causal conv1d layers (left F.pad by the dilation) with weight norm
        (parametrisation, dim 0), gated tanh * sigmoid, residual and skip 1x1s; a TCN layer with
        padding (k-1)*d on both sides chomped on the right; ReLU head; K-dim cross entropy over
        (B, classes, T) against the next quantised sample."""
        def __init__(s, res=16, classes=32, dil=(1, 2, 4, 8)):
            super().__init__()
            s.classes, s.dil = classes, dil
            s.inp = nn.Conv1d(1, res, 1)
            s.filt = nn.ModuleList(wnorm(nn.Conv1d(res, 2 * res, 2, dilation=d)) for d in dil)
            s.res = nn.ModuleList(nn.Conv1d(res, res, 1) for _ in dil); s.skip = nn.ModuleList(nn.Conv1d(res, res, 1) for _ in dil)
            s.tcn = wnorm(nn.Conv1d(res, res, 3, padding=4, dilation=2))
            s.h1 = nn.Conv1d(res, res, 1); s.h2 = nn.Conv1d(res, classes, 1)
        def forward(s, wav):
            mu = s.classes - 1
            y = torch.sign(wav) * torch.log1p(mu * torch.abs(wav)) / math.log1p(mu)
            tgt = ((y + 1) / 2 * mu + 0.5).long()
            x = s.inp(y[:, None])
            skip = 0
            for f, r, sk, d in zip(s.filt, s.res, s.skip, s.dil):
                a, b = f(F.pad(x, (d, 0))).chunk(2, 1)
                g = torch.tanh(a) * torch.sigmoid(b)
                x = x + r(g)
                skip = skip + sk(g)
            skip = skip + F.relu(s.tcn(x)[:, :, :-4])
            logits = s.h2(F.relu(s.h1(F.relu(skip))))
            loss = F.cross_entropy(logits[:, :, :-1], tgt[:, 1:])
            return torch.cat([logits.flatten(), loss[None]])

    class MaskedConv(nn.Conv2d):
        def __init__(s, kind, *a, **kw):
            super().__init__(*a, **kw)
            m = torch.ones_like(s.weight)
            _, _, kh, kw_ = s.weight.shape
            m[:, :, kh // 2, kw_ // 2 + (kind == "B"):] = 0
            m[:, :, kh // 2 + 1:] = 0
            s.register_buffer("mask", m)
        def forward(s, x):
            return F.conv2d(x, s.weight * s.mask, s.bias, s.stride, s.padding)

    class PixelCNN(nn.Module):
        """PixelCNN: a type-A 7x7 masked conv, gated type-B 3x3 residual layers (tanh * sigmoid),
        a down-shifted vertical-stack feature (F.pad + slice), concat_elu (elu of cat(x, -x)),
        per-channel 16-level logits with a 4-D-target cross entropy and a logistic-mixture-style
        log-likelihood reduced by logsumexp."""
        def __init__(s, c=16, levels=16, mix=3):
            super().__init__()
            s.K, s.mix = levels, mix
            s.c0 = MaskedConv("A", 3, c, 7, padding=3)
            s.gl = nn.ModuleList(MaskedConv("B", c, 2 * c, 3, padding=1) for _ in range(2))
            s.g1 = nn.ModuleList(nn.Conv2d(c, c, 1) for _ in range(2))
            s.v = nn.Conv2d(c, c, (2, 3), padding=(0, 1))
            s.out = nn.Conv2d(2 * c, 3 * levels, 1); s.mixh = nn.Conv2d(2 * c, 3 * mix * 2, 1)
        def forward(s, x):
            B, _, H, W = x.shape
            h = s.c0(x)
            for g, o in zip(s.gl, s.g1):
                a, b = g(h).chunk(2, 1)
                h = h + o(torch.tanh(a) * torch.sigmoid(b))
            vs = s.v(F.pad(h, (0, 0, 1, 0)))[:, :, :H, :]
            h = F.elu(torch.cat([h + vs, -(h + vs)], 1))
            logits = s.out(h).view(B, s.K, 3, H, W)
            tgt = ((x * 0.5 + 0.5) * (s.K - 1)).round().long().clamp(0, s.K - 1)
            ce = F.cross_entropy(logits, tgt)
            mp = s.mixh(h).view(B, 2, s.mix, 3, H, W)
            lw = F.log_softmax(mp[:, 0], 1)
            mu = torch.tanh(mp[:, 1])
            ll = torch.logsumexp(lw - 0.5 * ((x[:, None] - mu) / 0.2) ** 2, dim=1)
            return torch.cat([logits.flatten(), (ce - ll.mean())[None]])

    def posenc(x, L):
        freqs = (2.0 ** torch.arange(L, dtype=torch.float32, device=x.device)) * math.pi
        xb = (x[..., None, :] * freqs[:, None]).flatten(-2)
        return torch.cat([x, torch.sin(xb), torch.cos(xb)], -1)

    class NeRF(nn.Module):
        """NeRF rendering: stratified samples (linspace, mids, fixed jitter), positional encoding,
        MLP with a skip concat, view-dependent colour, alpha = 1 - exp(-relu(sigma) * delta) with the
        1e10 far delta, transmittance by an exclusive cumprod, weighted sums; hierarchical sampling
        of the detached weights (cumsum cdf, searchsorted right=True, clamps, gathers, a where on
        small denominators), sorted merged samples, a second pass."""
        def __init__(s, W=64, Lp=4, Ld=2):
            super().__init__()
            s.Lp, s.Ld = Lp, Ld
            ip, idr = 3 + 6 * Lp, 3 + 6 * Ld
            s.l1 = nn.Linear(ip, W); s.l2 = nn.Linear(W, W); s.l3 = nn.Linear(W + ip, W); s.sig = nn.Linear(W, 1)
            s.feat = nn.Linear(W, W); s.dirl = nn.Linear(W + idr, W // 2); s.rgb = nn.Linear(W // 2, 3)
        def field(s, pts, dirs):
            e = posenc(pts, s.Lp)
            h = F.relu(s.l2(F.relu(s.l1(e))))
            h = F.relu(s.l3(torch.cat([h, e], -1)))
            sigma = F.relu(s.sig(h))[..., 0]
            de = posenc(dirs, s.Ld)[:, None].expand(-1, pts.shape[1], -1)
            rgb = torch.sigmoid(s.rgb(F.relu(s.dirl(torch.cat([s.feat(h), de], -1)))))
            return sigma, rgb
        def render(s, o, d, t):
            pts = o[:, None] + d[:, None] * t[..., None]
            sigma, rgb = s.field(pts, F.normalize(d, dim=-1))
            delta = torch.cat([t[..., 1:] - t[..., :-1], torch.full_like(t[..., :1], 1e10)], -1) * d.norm(dim=-1, keepdim=True)
            alpha = 1.0 - torch.exp(-sigma * delta)
            T = torch.cumprod(torch.cat([torch.ones_like(alpha[..., :1]), 1.0 - alpha + 1e-10], -1), -1)[..., :-1]
            w = alpha * T
            return (w[..., None] * rgb).sum(-2), (w * t).sum(-1), w
        def forward(s, o, d, jitter):
            R, n = jitter.shape
            t = torch.linspace(2.0, 6.0, n, device=o.device).expand(R, n)
            mids = 0.5 * (t[..., 1:] + t[..., :-1])
            t = torch.cat([t[..., :1], mids], -1) + (torch.cat([mids, t[..., -1:]], -1) - torch.cat([t[..., :1], mids], -1)) * jitter
            rgb0, depth0, w = s.render(o, d, t)
            bins = 0.5 * (t[..., 1:] + t[..., :-1])
            wt = w[..., 1:-1].detach() + 1e-5
            pdf = wt / wt.sum(-1, keepdim=True)
            cdf = torch.cat([torch.zeros_like(pdf[..., :1]), torch.cumsum(pdf, -1)], -1)
            nf = 8
            u = torch.linspace(0.5 / nf, 1.0 - 0.5 / nf, nf, device=o.device).expand(R, nf).contiguous()
            inds = torch.searchsorted(cdf, u, right=True)
            below = torch.clamp(inds - 1, min=0)
            above = torch.clamp(inds, max=cdf.shape[-1] - 1)
            ig = torch.stack([below, above], -1)
            shp = (R, nf, cdf.shape[-1])
            cdf_g = torch.gather(cdf[:, None].expand(shp), 2, ig)
            bins_g = torch.gather(bins[:, None].expand(shp), 2, ig)
            den = cdf_g[..., 1] - cdf_g[..., 0]
            den = torch.where(den < 1e-5, torch.ones_like(den), den)
            samples = (bins_g[..., 0] + (u - cdf_g[..., 0]) / den * (bins_g[..., 1] - bins_g[..., 0])).detach()
            t2, _ = torch.sort(torch.cat([t, samples], -1), -1)
            rgb1, depth1, _ = s.render(o, d, t2)
            return torch.cat([rgb0.flatten(), depth0, rgb1.flatten(), depth1])

    class VQVAE(nn.Module):
        """VQ-VAE: conv encoder, squared distances to a codebook (sum of squares - 2 z e^T), argmin,
        embedding lookup, codebook and commitment MSE losses with detach, the straight-through
        estimator z + (zq - z).detach(), one_hot code usage and perplexity, transposed-conv decoder."""
        def __init__(s, D=8, K=32):
            super().__init__()
            s.K = K
            s.enc = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.ReLU(), nn.Conv2d(16, D, 3, 1, 1))
            s.cb = nn.Embedding(K, D)
            s.dec = nn.Sequential(nn.ConvTranspose2d(D, 16, 4, 2, 1), nn.ReLU(), nn.Conv2d(16, 3, 3, 1, 1))
        def forward(s, x):
            z = s.enc(x).permute(0, 2, 3, 1)
            flat = z.reshape(-1, z.shape[-1])
            e = s.cb.weight
            dist = flat.pow(2).sum(1, keepdim=True) - 2 * flat @ e.t() + e.pow(2).sum(1)
            idx = torch.argmin(dist, dim=1)
            zq = s.cb(idx).view_as(z)
            vq = F.mse_loss(zq, z.detach()) + 0.25 * F.mse_loss(zq.detach(), z)
            zq = z + (zq - z).detach()
            avg = F.one_hot(idx, s.K).float().mean(0)
            perp = torch.exp(-torch.sum(avg * torch.log(avg + 1e-10)))
            out = s.dec(zq.permute(0, 3, 1, 2))
            return torch.cat([out.flatten(), (F.mse_loss(out, x) + vq)[None], perp[None]])

    def tstep_emb(t, dim):
        half = dim // 2
        freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32, device=t.device) / half)
        args = t[:, None].float() * freqs[None]
        return torch.cat([torch.cos(args), torch.sin(args)], -1)

    class DDPM(nn.Module):
        """Guided-diffusion UNet pieces: integer timesteps to a sinusoidal embedding and SiLU MLP,
        a ResBlock with AdaGN (GroupNorm then x * (1 + scale) + shift from the embedding), the
        legacy QKV attention block (conv1d qkv, einsum bct,bcs->bts with sqrt(sqrt) scaling, float
        softmax), avg-pool down and nearest-up; then a DiT block: patch tokens, LayerNorm without
        affine, adaLN-zero modulation (six chunks, gates), MLP with tanh GELU."""
        def __init__(s, c=32, te=64, heads=2):
            super().__init__()
            s.c, s.te, s.h = c, te, heads
            s.t1 = nn.Linear(c, te); s.t2 = nn.Linear(te, te)
            s.gn1 = nn.GroupNorm(8, c); s.c1 = nn.Conv2d(c, c, 3, padding=1); s.emb = nn.Linear(te, 2 * c)
            s.gn2 = nn.GroupNorm(8, c); s.c2 = nn.Conv2d(c, c, 3, padding=1)
            s.gna = nn.GroupNorm(8, c); s.qkv = nn.Conv1d(c, 3 * c, 1); s.po = nn.Conv1d(c, c, 1)
            s.up = nn.Conv2d(c, c, 3, padding=1)
            s.ada = nn.Linear(te, 6 * c); s.ln1 = nn.LayerNorm(c, elementwise_affine=False, eps=1e-6)
            s.ln2 = nn.LayerNorm(c, elementwise_affine=False, eps=1e-6)
            s.aq = nn.Linear(c, 3 * c); s.ao = nn.Linear(c, c); s.m1 = nn.Linear(c, 4 * c); s.m2 = nn.Linear(4 * c, c)
        def forward(s, x, t):
            B, C, H, W = x.shape
            emb = s.t2(F.silu(s.t1(tstep_emb(t, C).to(x.dtype))))
            h = s.c1(F.silu(s.gn1(x)))
            scale, shift = s.emb(F.silu(emb))[:, :, None, None].chunk(2, 1)
            h = s.c2(F.silu(s.gn2(h) * (1 + scale) + shift))
            x = x + h
            d = F.avg_pool2d(x, 2)
            qkv = s.qkv(s.gna(d).reshape(B, C, -1))
            bs, w3, L = qkv.shape
            ch = w3 // (3 * s.h)
            q, k, v = qkv.reshape(bs * s.h, ch * 3, L).split(ch, dim=1)
            sc = 1 / math.sqrt(math.sqrt(ch))
            wgt = torch.einsum("bct,bcs->bts", q * sc, k * sc)
            wgt = torch.softmax(wgt.float(), dim=-1).type(wgt.dtype)
            a = torch.einsum("bts,bcs->bct", wgt, v).reshape(bs, -1, L)
            d = d + s.po(a).reshape(B, C, H // 2, W // 2)
            x = x + s.up(F.interpolate(d, scale_factor=2, mode="nearest"))
            tok = x.flatten(2).transpose(1, 2)
            sh1, sc1, g1, sh2, sc2, g2 = s.ada(F.silu(emb)).chunk(6, dim=1)
            m = s.ln1(tok) * (1 + sc1.unsqueeze(1)) + sh1.unsqueeze(1)
            q, k, v = s.aq(m).view(B, -1, 3, s.h, C // s.h).permute(2, 0, 3, 1, 4).unbind(0)
            y = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(B, -1, C)
            tok = tok + g1.unsqueeze(1) * s.ao(y)
            m = s.ln2(tok) * (1 + sc2.unsqueeze(1)) + sh2.unsqueeze(1)
            tok = tok + g2.unsqueeze(1) * s.m2(F.gelu(s.m1(m), approximate="tanh"))
            return tok.transpose(1, 2).reshape(B, C, H, W)

    class ModConv(nn.Module):
        def __init__(s, cin, cout, k, wdim, demod=True, up=False):
            super().__init__()
            s.cin, s.cout, s.k, s.demod, s.up = cin, cout, k, demod, up
            s.weight = nn.Parameter(torch.randn(1, cout, cin, k, k)); s.aff = nn.Linear(wdim, cin)
            with torch.no_grad():
                s.aff.bias.fill_(1.0)
            s.scale = 1 / math.sqrt(cin * k * k)
        def forward(s, x, w):
            B, C, H, W = x.shape
            wt = s.scale * s.weight * s.aff(w).view(B, 1, C, 1, 1)
            if s.demod:
                wt = wt * torch.rsqrt(wt.pow(2).sum([2, 3, 4]) + 1e-8).view(B, s.cout, 1, 1, 1)
            if s.up:
                wt = wt.transpose(1, 2).reshape(B * C, s.cout, s.k, s.k)
                out = F.conv_transpose2d(x.reshape(1, B * C, H, W), wt, padding=0, stride=2, groups=B)
                out = out.view(B, s.cout, *out.shape[-2:])
                kb = torch.tensor([1.0, 3.0, 3.0, 1.0], device=x.device)
                kb = (kb[None] * kb[:, None]) / 16 * 4
                out = F.pad(out, (1, 1, 1, 1))
                return F.conv2d(out, kb.to(out.dtype)[None, None].expand(s.cout, 1, 4, 4), groups=s.cout)
            out = F.conv2d(x.reshape(1, B * C, H, W), wt.reshape(B * s.cout, C, s.k, s.k), padding=s.k // 2, groups=B)
            return out.view(B, s.cout, H, W)

    class StyleGAN2(nn.Module):
        """StyleGAN2 synthesis: mapping network (PixelNorm by rsqrt of the mean square, equalised-lr
        linears with fused leaky ReLU * sqrt 2), a learned constant expanded over the batch,
        modulated/demodulated 3x3 convolutions run as one convolution grouped by the batch, noise
        injection with a learned strength, an upsampling modulated transposed conv (groups = batch)
        with the [1,3,3,1] blur, toRGB 1x1 without demodulation and a bilinear-upsampled skip."""
        def __init__(s, z=16, c=16):
            super().__init__()
            s.map = nn.ModuleList(nn.Linear(z, z) for _ in range(3))
            s.const = nn.Parameter(torch.randn(1, c, 4, 4))
            s.conv1 = ModConv(c, c, 3, z); s.n1 = nn.Parameter(torch.tensor(0.1)); s.b1 = nn.Parameter(torch.zeros(1, c, 1, 1))
            s.rgb1 = ModConv(c, 3, 1, z, demod=False)
            s.upc = ModConv(c, c, 3, z, up=True); s.conv2 = ModConv(c, c, 3, z)
            s.n2 = nn.Parameter(torch.tensor(0.1)); s.b2 = nn.Parameter(torch.zeros(1, c, 1, 1))
            s.rgb2 = ModConv(c, 3, 1, z, demod=False)
        def forward(s, z, noise):
            w = z * torch.rsqrt(z.pow(2).mean(1, keepdim=True) + 1e-8)
            for l in s.map:
                w = F.leaky_relu(F.linear(w, l.weight * 0.01, l.bias * 0.01), 0.2) * math.sqrt(2)
            B = z.shape[0]
            x = s.const.expand(B, -1, -1, -1)
            x = F.leaky_relu(s.conv1(x, w) + s.n1 * noise[:, :, :4, :4] + s.b1, 0.2) * math.sqrt(2)
            rgb = s.rgb1(x, w)
            x = F.leaky_relu(s.upc(x, w), 0.2) * math.sqrt(2)
            x = F.leaky_relu(s.conv2(x, w) + s.n2 * noise + s.b2, 0.2) * math.sqrt(2)
            return s.rgb2(x, w) + F.interpolate(rgb, scale_factor=2, mode="bilinear", align_corners=False)

    class GNN(nn.Module):
        """GAT + GraphSAGE over an edge list (self loops included): per-edge scores by indexing
        node terms with src/dst, leaky ReLU, PyG's segment softmax (scatter_reduce amax of the
        detached scores, exp, index_add sums, divide), index_add aggregation, ELU; SAGE mean
        aggregation by scatter_reduce mean, concat, L2 normalise; graph readouts by scatter_reduce
        amax (with its gradient) and scatter_add means over a batch vector."""
        def __init__(s, f=16, heads=2, hid=8):
            super().__init__()
            s.h, s.hid = heads, hid
            s.W = nn.Linear(f, heads * hid, bias=False)
            s.a_src = nn.Parameter(0.3 * torch.randn(heads, hid)); s.a_dst = nn.Parameter(0.3 * torch.randn(heads, hid))
            s.sage = nn.Linear(2 * heads * hid, 16); s.head = nn.Linear(32, 3)
        def forward(s, x, src, dst, batch):
            N = x.shape[0]
            H, Fh = s.h, s.hid
            h = s.W(x).view(N, H, Fh)
            e = F.leaky_relu((h * s.a_src).sum(-1)[src] + (h * s.a_dst).sum(-1)[dst], 0.2)
            idx = dst[:, None].expand(-1, H)
            emax = torch.full((N, H), -1e30, device=x.device).scatter_reduce(0, idx, e.detach(), "amax", include_self=False)
            ex = torch.exp(e - emax[dst])
            den = torch.zeros(N, H, device=x.device).index_add(0, dst, ex)
            alpha = ex / (den[dst] + 1e-16)
            g = torch.zeros(N, H, Fh, device=x.device).index_add(0, dst, alpha[..., None] * h[src])
            g = F.elu(g.reshape(N, H * Fh))
            nb = torch.zeros_like(g).scatter_reduce(0, dst[:, None].expand(-1, H * Fh), g[src], "mean", include_self=False)
            z = F.normalize(s.sage(torch.cat([g, nb], -1)), p=2, dim=-1)
            G = 2
            bi = batch[:, None].expand(-1, z.shape[1])
            gmax = torch.full((G, z.shape[1]), -1e30, device=x.device).scatter_reduce(0, bi, z, "amax", include_self=False)
            cnt = torch.zeros(G, device=x.device).scatter_add(0, batch, torch.ones_like(batch, dtype=z.dtype))
            gmean = torch.zeros(G, z.shape[1], device=x.device).scatter_add(0, bi, z) / cnt[:, None]
            return torch.cat([s.head(torch.cat([gmax, gmean], -1)).flatten(), z.flatten()])

    class TNet(nn.Module):
        def __init__(s, k):
            super().__init__()
            s.k = k
            s.c1 = nn.Conv1d(k, 32, 1); s.b1 = nn.BatchNorm1d(32); s.c2 = nn.Conv1d(32, 64, 1); s.b2 = nn.BatchNorm1d(64)
            s.f1 = nn.Linear(64, 32); s.b3 = nn.BatchNorm1d(32); s.f2 = nn.Linear(32, k * k)
        def forward(s, x):
            y = F.relu(s.b2(s.c2(F.relu(s.b1(s.c1(x))))))
            y = torch.max(y, 2)[0]
            y = s.f2(F.relu(s.b3(s.f1(y))))
            return (y + torch.eye(s.k, device=x.device, dtype=y.dtype).flatten()).view(-1, s.k, s.k)

    class PointNet(nn.Module):
        """PointNet segmentation: input and feature T-Nets (1x1 conv1d + BatchNorm1d on (B, C, N),
        max over points by torch.max(dim) with indices, BatchNorm1d on (B, C), + eye), bmm transforms,
        the global max feature expanded and concatenated per point, log_softmax part scores, NLL and
        the feature-transform regulariser ||I - A A^T|| (Frobenius norm over two dims)."""
        def __init__(s, parts=4):
            super().__init__()
            s.t3 = TNet(3); s.c1 = nn.Conv1d(3, 16, 1); s.b1 = nn.BatchNorm1d(16); s.tf = TNet(16)
            s.c2 = nn.Conv1d(16, 64, 1); s.b2 = nn.BatchNorm1d(64)
            s.s1 = nn.Conv1d(80, 32, 1); s.sb = nn.BatchNorm1d(32); s.s2 = nn.Conv1d(32, parts, 1)
        def forward(s, pts, labels):
            B, _, N = pts.shape
            x = torch.bmm(pts.transpose(2, 1), s.t3(pts)).transpose(2, 1)
            x = F.relu(s.b1(s.c1(x)))
            A = s.tf(x)
            pf = torch.bmm(x.transpose(2, 1), A).transpose(2, 1)
            g = torch.max(s.b2(s.c2(pf)), 2, keepdim=True)[0]
            y = torch.cat([pf, g.expand(-1, -1, N)], 1)
            lp = F.log_softmax(s.s2(F.relu(s.sb(s.s1(y)))), 1)
            eye = torch.eye(16, device=pts.device, dtype=A.dtype)[None]
            reg = torch.norm(eye - torch.bmm(A, A.transpose(2, 1)), dim=(1, 2)).mean()
            loss = F.nll_loss(lp, labels) + 0.001 * reg
            return torch.cat([lp.flatten(), loss[None]])

    class Reformer(nn.Module):
        """Reformer LSH self-attention (one hash round): shared QK projection, random rotations (a
        buffer) by einsum, cat(r, -r), argmax buckets, bucket * T + position sorted (torch.sort;
        its indices argsorted again to undo), gather into chunks, normalised keys, attention to the
        own and the previous chunk (cat with roll), self-position masking, logsumexp softmax, and
        the unsort by gather."""
        def __init__(s, d=32, heads=2, buckets=4, chunk=8):
            super().__init__()
            s.h, s.hd, s.nb, s.ch = heads, d // heads, buckets, chunk
            s.qk = nn.Linear(d, d, bias=False); s.v = nn.Linear(d, d, bias=False); s.o = nn.Linear(d, d)
            s.register_buffer("rot", torch.randn(d // heads, buckets // 2))
            s.ln = nn.LayerNorm(d)
        def forward(s, x):
            B, T, C = x.shape
            H, hd, c = s.h, s.hd, s.ch
            xn = s.ln(x)
            qk = s.qk(xn).view(B, T, H, hd).transpose(1, 2)
            v = s.v(xn).view(B, T, H, hd).transpose(1, 2)
            r = torch.einsum("bhtd,dr->bhtr", qk, s.rot)
            buckets = torch.argmax(torch.cat([r, -r], -1), -1)
            ticker = torch.arange(T, device=x.device)
            _, st = torch.sort(T * buckets + ticker, dim=-1)
            _, undo = torch.sort(st, dim=-1)
            gi = st[..., None].expand(-1, -1, -1, hd)
            bq = torch.gather(qk, 2, gi).view(B, H, T // c, c, hd)
            bv = torch.gather(v, 2, gi).view(B, H, T // c, c, hd)
            bk = F.normalize(bq, dim=-1)
            bk = torch.cat([bk, bk.roll(1, dims=2)], 3)
            bv = torch.cat([bv, bv.roll(1, dims=2)], 3)
            bt = st.view(B, H, T // c, c)
            bkt = torch.cat([bt, bt.roll(1, dims=2)], 3)
            dots = bq @ bk.transpose(-1, -2) / math.sqrt(hd)
            dots = dots.masked_fill(bt[..., None] == bkt[..., None, :], -1e5)
            p = torch.exp(dots - torch.logsumexp(dots, -1, keepdim=True))
            so = (p @ bv).view(B, H, T, hd)
            o = torch.gather(so, 2, undo[..., None].expand(-1, -1, -1, hd))
            return x + s.o(o.transpose(1, 2).reshape(B, T, C))

    class Longformer(nn.Module):
        """Longformer-style attention: a sliding window of +-w by F.pad + unfold (einsums against the
        windows), out-of-range and padded keys masked through an unfolded validity mask, one global
        token (cat of its scores, its full-attention row replacing row 0), and compressed memory keys
        from HF's overlapping _chunk (as_strided with half the chunk stride) averaged per chunk."""
        def __init__(s, d=32, heads=2, w=2):
            super().__init__()
            s.h, s.hd, s.w = heads, d // heads, w
            s.q = nn.Linear(d, d); s.k = nn.Linear(d, d); s.v = nn.Linear(d, d); s.o = nn.Linear(d, d); s.ln = nn.LayerNorm(d)
        def forward(s, x, amask):
            B, T, C = x.shape
            H, hd, w = s.h, s.hd, s.w
            sp = lambda z: z.view(B, T, H, hd).transpose(1, 2)
            q, k, v = sp(s.q(x)) / math.sqrt(hd), sp(s.k(x)), sp(s.v(x))
            kw = F.pad(k, (0, 0, w, w)).unfold(2, 2 * w + 1, 1)
            vw = F.pad(v, (0, 0, w, w)).unfold(2, 2 * w + 1, 1)
            loc = torch.einsum("bhtd,bhtdw->bhtw", q, kw)
            valid = F.pad(amask.to(x.dtype), (w, w)).unfold(1, 2 * w + 1, 1)[:, None]
            loc = loc.masked_fill(valid == 0, -1e4)
            glob = q @ k[:, :, :1].transpose(-1, -2)
            kc = k.reshape(B * H, T, hd).contiguous().view(B * H, T // (2 * w), 2 * w, hd)
            size = list(kc.size()); size[1] = size[1] * 2 - 1
            stride = list(kc.stride()); stride[1] = stride[1] // 2
            mem = kc.as_strided(size=size, stride=stride).mean(2).view(B, H, -1, hd)
            memv = v.reshape(B * H, T, hd).contiguous().view(B * H, T // (2 * w), 2 * w, hd).as_strided(size=size, stride=stride).amax(2).view(B, H, -1, hd)
            msc = q @ mem.transpose(-1, -2)
            p = torch.softmax(torch.cat([glob, loc, msc], -1), -1)
            pg, pl, pm = p.split([1, 2 * w + 1, mem.shape[2]], -1)
            out = pg * v[:, :, :1] + torch.einsum("bhtw,bhtdw->bhtd", pl, vw) + pm @ memv
            full = torch.softmax((q[:, :, :1] @ k.transpose(-1, -2)).masked_fill(amask[:, None, None, :] == 0, -1e4), -1) @ v
            out = torch.cat([full, out[:, :, 1:]], 2)
            return s.ln(x + s.o(out.transpose(1, 2).reshape(B, T, C)))

    class MoECap(nn.Module):
        """GShard/fairseq top-2 gating with expert capacity: softmax gates, argmax + one_hot, the
        second expert from logits masked with -inf, integer cumsum positions within each expert,
        capacity masks (lt), load-balancing loss, renormalised gates clamped by eps, one_hot of the
        positions, combine weights by einsum se,sc->sec, boolean dispatch, expert inputs by einsum
        sec,sm->ecm, per-expert bmm FFN, combine by einsum sec,ecm->sm."""
        def __init__(s, d=16, e=4, hid=32):
            super().__init__()
            s.e = e
            s.wg = nn.Linear(d, e, bias=False)
            s.w1 = nn.Parameter(torch.randn(e, d, hid) / math.sqrt(d)); s.w2 = nn.Parameter(torch.randn(e, hid, d) / math.sqrt(hid))
        def forward(s, x):
            B, T, D = x.shape
            xs = x.reshape(-1, D)
            S, E = xs.shape[0], s.e
            cap = 2 * S // E
            logits = s.wg(xs)
            gates = F.softmax(logits, dim=1)
            i1 = torch.argmax(gates, dim=1)
            m1 = F.one_hot(i1, E)
            i2 = torch.argmax(logits.masked_fill(m1.bool(), float("-inf")), dim=1)
            m2 = F.one_hot(i2, E)
            l1 = torch.cumsum(m1, dim=0) - 1
            l2 = torch.cumsum(m2, dim=0) - 1 + torch.sum(m1, dim=0, keepdim=True)
            aux = torch.mean(gates.mean(0) * m1.float().mean(0)) * E * E
            m1 = m1 * torch.lt(l1, cap)
            m2 = m2 * torch.lt(l2, cap)
            p1 = torch.sum(l1 * m1, dim=1)
            p2 = torch.sum(l2 * m2, dim=1)
            g1 = (gates * m1).sum(1)
            g2 = (gates * m2).sum(1)
            den = torch.clamp(g1 + g2, min=torch.finfo(gates.dtype).eps)
            g1, g2 = g1 / den, g2 / den
            comb = torch.einsum("se,sc->sec", g1[:, None] * m1, F.one_hot(p1, cap).to(gates.dtype)) + \
                torch.einsum("se,sc->sec", g2[:, None] * m2, F.one_hot(p2, cap).to(gates.dtype))
            disp = comb.bool()
            ein = torch.einsum("sec,sm->ecm", disp.to(xs.dtype), xs)
            eout = torch.bmm(F.relu(torch.bmm(ein, s.w1)), s.w2)
            out = torch.einsum("sec,ecm->sm", comb, eout)
            return out.reshape(B, T, D) + aux

    class SNConv(nn.Module):
        """Spectral-normalised conv as torch.nn.utils.spectral_norm computes it in training: one
        power iteration (normalize(mv)) under no_grad, sigma = u . W v. The u buffer is not written
        back: gen_numerics clones the Dynamo stage's inputs after running it, so a mutated buffer
        that the output depends on would be recorded stale (BatchNorm's running statistics are
        written back but do not feed its training-mode output)."""
        def __init__(s, cin, cout, k, stride=1, padding=0):
            super().__init__()
            s.stride, s.padding = stride, padding
            s.weight = nn.Parameter(0.2 * torch.randn(cout, cin, k, k)); s.bias = nn.Parameter(torch.zeros(cout))
            s.register_buffer("u", F.normalize(torch.randn(cout), dim=0))
        def forward(s, x):
            wm = s.weight.flatten(1)
            with torch.no_grad():
                v = F.normalize(torch.mv(wm.t(), s.u), dim=0, eps=1e-12)
                u = F.normalize(torch.mv(wm, v), dim=0, eps=1e-12)
            sigma = torch.dot(u, torch.mv(wm, v))
            return F.conv2d(x, s.weight / sigma, s.bias, s.stride, s.padding)

    class ESRGAN(nn.Module):
        """Real-ESRGAN x2: pixel_unshuffle input, a residual dense block (5 convs over growing
        concats, LeakyReLU 0.2, residual scaled by 0.2) inside an RRDB, trunk conv, two nearest
        x2 upsamplings with convs; the U-Net discriminator with spectral norm (strided 4x4 downs,
        bilinear up, skip adds) on the output."""
        def __init__(s, nf=16, gc=8):
            super().__init__()
            s.first = nn.Conv2d(12, nf, 3, padding=1)
            s.rdb = nn.ModuleList(nn.Conv2d(nf + i * gc, gc if i < 4 else nf, 3, padding=1) for i in range(5))
            s.trunk = nn.Conv2d(nf, nf, 3, padding=1); s.up1 = nn.Conv2d(nf, nf, 3, padding=1); s.up2 = nn.Conv2d(nf, nf, 3, padding=1)
            s.hr = nn.Conv2d(nf, nf, 3, padding=1); s.last = nn.Conv2d(nf, 3, 3, padding=1)
            s.d0 = nn.Conv2d(3, 8, 3, padding=1); s.d1 = SNConv(8, 16, 4, 2, 1); s.d2 = SNConv(16, 16, 4, 2, 1)
            s.u1 = SNConv(16, 16, 3, 1, 1); s.u2 = SNConv(16, 8, 3, 1, 1); s.dout = nn.Conv2d(8, 1, 3, padding=1)
        def forward(s, x):
            lr = lambda z: F.leaky_relu(z, 0.2)
            fea = s.first(F.pixel_unshuffle(x, 2))
            feats = [fea]
            for i, c in enumerate(s.rdb):
                o = c(torch.cat(feats, 1))
                feats.append(lr(o) if i < 4 else o)
            body = fea + 0.2 * (fea + 0.2 * feats[-1])
            fea = fea + s.trunk(body)
            fea = lr(s.up1(F.interpolate(fea, scale_factor=2, mode="nearest")))
            fea = lr(s.up2(F.interpolate(fea, scale_factor=2, mode="nearest")))
            sr = s.last(lr(s.hr(fea)))
            x0 = lr(s.d0(sr)); x1 = lr(s.d1(x0)); x2 = lr(s.d2(x1))
            y = F.interpolate(x2, scale_factor=2, mode="bilinear", align_corners=False)
            y = lr(s.u1(y)) + x1
            y = F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False)
            y = lr(s.u2(y)) + x0
            return torch.cat([sr.flatten(), s.dout(y).flatten()])

    def squash(t, dim=-1):
        n2 = (t ** 2).sum(dim, keepdim=True)
        return n2 / (1 + n2) * t / torch.sqrt(n2 + 1e-8)

    class CapsNet(nn.Module):
        """Capsule network: conv, primary capsules (conv, view, permute, squash), prediction vectors
        by a 5-D broadcast matmul, three routing iterations (softmax over classes, weighted sums,
        squash, agreement updates against the detached predictions), capsule lengths, margin loss
        with one_hot labels, masked reconstruction MLP with an MSE term."""
        def __init__(s, classes=5):
            super().__init__()
            s.nc = classes
            s.c1 = nn.Conv2d(1, 16, 5); s.pc = nn.Conv2d(16, 4 * 8, 5, stride=2)
            s.W = nn.Parameter(0.1 * torch.randn(1, 36, classes, 12, 8))
            s.r1 = nn.Linear(classes * 12, 64); s.r2 = nn.Linear(64, 14 * 14)
        def forward(s, img, labels):
            B = img.shape[0]
            u = s.pc(F.relu(s.c1(img)))
            u = squash(u.view(B, 4, 8, 3, 3).permute(0, 1, 3, 4, 2).reshape(B, 36, 8))
            uh = (s.W @ u[:, :, None, :, None]).squeeze(-1)
            b = torch.zeros(B, 36, s.nc, device=img.device, dtype=img.dtype)
            for i in range(3):
                c = F.softmax(b, dim=2)
                src = uh if i == 2 else uh.detach()
                v = squash((c[..., None] * src).sum(1))
                if i < 2:
                    b = b + (uh.detach() * v[:, None]).sum(-1)
            ln = v.norm(dim=-1)
            T = F.one_hot(labels, s.nc).to(ln.dtype)
            margin = (T * F.relu(0.9 - ln) ** 2 + 0.5 * (1 - T) * F.relu(ln - 0.1) ** 2).sum(1).mean()
            rec = torch.sigmoid(s.r2(F.relu(s.r1((v * T[..., None]).flatten(1)))))
            loss = margin + 0.0005 * F.mse_loss(rec, img.flatten(1))
            return torch.cat([ln.flatten(), loss[None]])

    def get_rel_pos(q_size, k_size, rel_pos):
        max_rel = int(2 * max(q_size, k_size) - 1)
        if rel_pos.shape[0] != max_rel:
            r = F.interpolate(rel_pos.reshape(1, rel_pos.shape[0], -1).permute(0, 2, 1), size=max_rel, mode="linear")
            r = r.reshape(-1, max_rel).permute(1, 0)
        else:
            r = rel_pos
        qc = torch.arange(q_size)[:, None] * max(k_size / q_size, 1.0)
        kc = torch.arange(k_size)[None, :] * max(q_size / k_size, 1.0)
        rc = (qc - kc) + (k_size - 1) * max(q_size / k_size, 1.0)
        return r[rc.long()]

    class SAMAttn(nn.Module):
        def __init__(s, d, heads, size, table):
            super().__init__()
            s.h, s.hd = heads, d // heads
            s.qkv = nn.Linear(d, 3 * d); s.proj = nn.Linear(d, d)
            s.rph = nn.Parameter(0.1 * torch.randn(2 * table - 1, d // heads)); s.rpw = nn.Parameter(0.1 * torch.randn(2 * table - 1, d // heads))
        def forward(s, x):
            B, H, W, _ = x.shape
            qkv = s.qkv(x).reshape(B, H * W, 3, s.h, -1).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.reshape(3, B * s.h, H * W, -1).unbind(0)
            att = (q * s.hd ** -0.5) @ k.transpose(-2, -1)
            Rh, Rw = get_rel_pos(H, H, s.rph), get_rel_pos(W, W, s.rpw)
            rq = q.reshape(B * s.h, H, W, -1)
            rel_h = torch.einsum("bhwc,hkc->bhwk", rq, Rh)
            rel_w = torch.einsum("bhwc,wkc->bhwk", rq, Rw)
            att = (att.view(-1, H, W, H, W) + rel_h[:, :, :, :, None] + rel_w[:, :, :, None, :]).view(-1, H * W, H * W)
            y = (att.softmax(-1) @ v).view(B, s.h, H, W, -1).permute(0, 2, 3, 1, 4).reshape(B, H, W, -1)
            return s.proj(y)

    class SAM(nn.Module):
        """SAM image-encoder blocks: a windowed block (F.pad to a window multiple, partition, the
        decomposed relative positions of a table trained at another size, resized by linear
        F.interpolate and indexed by a CPU torch.arange as SAM's code has it, einsums, unpartition
        and crop), a global-attention block (table used as is), the neck (1x1 and 3x3 convs without
        bias, LayerNorm2d by mean/var over channels)."""
        def __init__(s, d=32, ws=4):
            super().__init__()
            s.ws = ws
            s.n1 = nn.LayerNorm(d); s.a1 = SAMAttn(d, 2, ws, 6); s.n2 = nn.LayerNorm(d)
            s.m1 = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
            s.n3 = nn.LayerNorm(d); s.a2 = SAMAttn(d, 2, 10, 10)
            s.neck1 = nn.Conv2d(d, 16, 1, bias=False); s.neck2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
            s.lw = nn.Parameter(torch.ones(16)); s.lb = nn.Parameter(torch.zeros(16))
        def ln2d(s, x):
            u = x.mean(1, keepdim=True)
            v = (x - u).pow(2).mean(1, keepdim=True)
            return s.lw[:, None, None] * ((x - u) / torch.sqrt(v + 1e-6)) + s.lb[:, None, None]
        def forward(s, x):
            B, H, W, C = x.shape
            ws = s.ws
            sc = x
            h = s.n1(x)
            ph, pw = (ws - H % ws) % ws, (ws - W % ws) % ws
            h = F.pad(h, (0, 0, 0, pw, 0, ph))
            Hp, Wp = H + ph, W + pw
            h = h.view(B, Hp // ws, ws, Wp // ws, ws, C).permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, C)
            h = s.a1(h)
            h = h.view(B, Hp // ws, Wp // ws, ws, ws, -1).permute(0, 1, 3, 2, 4, 5).contiguous().view(B, Hp, Wp, -1)
            x = sc + h[:, :H, :W, :].contiguous()
            x = x + s.m1(s.n2(x))
            x = x + s.a2(s.n3(x))
            y = s.ln2d(s.neck2(s.ln2d(s.neck1(x.permute(0, 3, 1, 2)))))
            return y

    class MSDeform(nn.Module):
        """Deformable-DETR multi-scale deformable attention (the PyTorch reference core): value
        projection masked by a padding mask, sampling offsets normalised by the level sizes (a
        tensor made in the graph), attention weights softmaxed over levels x points, value split per
        level, F.grid_sample (bilinear, zeros, align_corners False) of each level, weighted sum;
        then iterative box refinement through inverse_sigmoid (clamps, log) and sigmoid, FFN."""
        def __init__(s, d=32, heads=4, levels=2, points=2, shapes=((8, 8), (4, 4))):
            super().__init__()
            s.h, s.l, s.p, s.shapes = heads, levels, points, shapes
            s.so = nn.Linear(d, heads * levels * points * 2); s.aw = nn.Linear(d, heads * levels * points)
            s.vp = nn.Linear(d, d); s.op = nn.Linear(d, d); s.ln = nn.LayerNorm(d)
            s.f1 = nn.Linear(d, 2 * d); s.f2 = nn.Linear(2 * d, d); s.ln2 = nn.LayerNorm(d); s.box = nn.Linear(d, 2)
        def forward(s, query, feats, ref, pad):
            B, Lq, C = query.shape
            H, Lv, P = s.h, s.l, s.p
            hd = C // H
            value = s.vp(feats).masked_fill(pad[..., None], 0.0).view(B, -1, H, hd)
            off = s.so(query).view(B, Lq, H, Lv, P, 2)
            aw = F.softmax(s.aw(query).view(B, Lq, H, Lv * P), -1).view(B, Lq, H, Lv, P)
            norm = torch.tensor([[w, h] for h, w in s.shapes], dtype=query.dtype, device=query.device)
            loc = ref[:, :, None, :, None, :] + off / norm[None, None, None, :, None, :]
            vals = value.split([h * w for h, w in s.shapes], dim=1)
            grids = 2 * loc - 1
            sampled = []
            for lid, (h, w) in enumerate(s.shapes):
                vl = vals[lid].flatten(2).transpose(1, 2).reshape(B * H, hd, h, w)
                gl = grids[:, :, :, lid].transpose(1, 2).flatten(0, 1)
                sampled.append(F.grid_sample(vl, gl, mode="bilinear", padding_mode="zeros", align_corners=False))
            aw = aw.transpose(1, 2).reshape(B * H, 1, Lq, Lv * P)
            out = (torch.stack(sampled, dim=-2).flatten(-2) * aw).sum(-1).view(B, H * hd, Lq).transpose(1, 2)
            q = s.ln(query + s.op(out))
            q = s.ln2(q + s.f2(F.relu(s.f1(q))))
            r = ref[:, :, 0].clamp(min=0, max=1)
            inv = torch.log(r.clamp(min=1e-5) / (1 - r).clamp(min=1e-5))
            newref = torch.sigmoid(s.box(q) + inv)
            return torch.cat([q.flatten(), newref.flatten()])

    class Losses(nn.Module):
        """A linear head into many losses: sigmoid focal loss, label-smoothed weighted cross entropy,
        KL distillation with temperature and with log targets, Huber, smooth L1, BCE on sigmoid
        probabilities, NLL with ignore_index, multilabel soft margin, cosine embedding, triplet
        margin, margin ranking, Poisson NLL, multi margin (not Gaussian NLL: its data-dependent
        check of the variances breaks the Dynamo graph)."""
        def __init__(s, f=16, k=5):
            super().__init__()
            s.cls = nn.Linear(f, k); s.reg = nn.Linear(f, 4); s.emb = nn.Linear(f, 8)
            s.register_buffer("cw", torch.linspace(0.5, 1.5, k))
        def forward(s, x, tgt, multi, teacher, tbox, y):
            lg = s.cls(x); box = s.reg(x); e = s.emb(x)
            p = torch.sigmoid(lg)
            ce = F.binary_cross_entropy_with_logits(lg, multi, reduction="none")
            pt = p * multi + (1 - p) * (1 - multi)
            focal = (ce * (1 - pt) ** 2 * (0.25 * multi + 0.75 * (1 - multi))).mean()
            ls = F.cross_entropy(lg, tgt.clamp(min=0), weight=s.cw, label_smoothing=0.1)
            kd = F.kl_div(F.log_softmax(lg / 2.0, -1), F.softmax(teacher / 2.0, -1), reduction="batchmean") * 4.0
            kd2 = F.kl_div(F.log_softmax(lg, -1), F.log_softmax(teacher, -1), reduction="batchmean", log_target=True)
            hub = F.huber_loss(box, tbox, delta=0.5)
            sl1 = F.smooth_l1_loss(box, tbox, beta=0.1)
            bce = F.binary_cross_entropy(p, multi)
            nll = F.nll_loss(F.log_softmax(lg, -1), tgt, ignore_index=-100)
            mlsm = F.multilabel_soft_margin_loss(lg, multi)
            n = x.shape[0] // 2
            cos = F.cosine_embedding_loss(e[:n], e[n:], y[:n], margin=0.2)
            trip = F.triplet_margin_loss(e[:n], e[n:], e.flip(0)[:n], margin=1.0)
            mr = F.margin_ranking_loss(lg[:, 0], lg[:, 1], y)
            pois = F.poisson_nll_loss(box, tbox.abs())
            mm = F.multi_margin_loss(lg, tgt.clamp(min=0))
            return torch.stack([focal, ls, kd, kd2, hub, sl1, bce, nll, mlsm, cos, trip, mr, pois, mm])

    r = lambda *sh: torch.randn(*sh, device=dev)
    ri = lambda hi, *sh: torch.randint(0, hi, sh, device=dev)
    lt = lambda *v: torch.tensor(v, dtype=torch.long, device=dev)
    if name == "mamba_selective":
        return Mamba(), (r(2, 10, 32),), "train"
    if name == "mamba2_ssd":
        return Mamba2(), (r(2, 16, 32),), "train"
    if name == "convnextv2_grn":
        return ConvNeXtV2(), (r(2, 3, 32, 32), (torch.rand(2, 1, 4, 4, device=dev) < 0.4).float()), "train"
    if name == "swinv2_cosine":
        return SwinV2(), (r(2, 64, 32),), "train"
    if name == "bart_encdec":
        ids = 3 + ri(47, 2, 10)
        am = torch.ones(2, 10, dtype=torch.long, device=dev)
        ids[1, 7:] = 1; am[1, 7:] = 0
        labels = 3 + ri(47, 2, 8)
        labels[0, 6:] = -100
        return Bart(), (ids, am, labels), "train"
    if name == "conformer_block":
        return Conformer(), (r(2, 12, 32), lt(12, 9)), "train"
    if name == "wavenet_tcn":
        return WaveNet(), (torch.tanh(r(2, 48)),), "train"
    if name == "pixelcnn_masked":
        return PixelCNN(), (torch.tanh(r(2, 3, 8, 8)),), "train"
    if name == "nerf_render":
        return NeRF(), (r(16, 3) * 0.1, r(16, 3), torch.rand(16, 12, device=dev)), "train"
    if name == "vqvae_codebook":
        return VQVAE(), (r(2, 3, 16, 16),), "train"
    if name == "ddpm_adagn":
        return DDPM(), (r(2, 32, 8, 8), lt(10, 500)), "train"
    if name == "stylegan2_modconv":
        return StyleGAN2(), (r(2, 16), r(2, 1, 8, 8)), "train"
    if name == "gat_sage":
        src = torch.cat([torch.arange(12), torch.tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 5, 7, 9])]).to(dev)
        dst = torch.cat([torch.arange(12), torch.tensor([1, 2, 3, 4, 5, 0, 7, 8, 9, 10, 11, 6, 3, 1, 10, 6])]).to(dev)
        batch = torch.tensor([0] * 6 + [1] * 6, device=dev)
        return GNN(), (r(12, 16), src, dst, batch), "train"
    if name == "pointnet_seg":
        return PointNet(), (r(4, 3, 32), ri(4, 4, 32)), "train"
    if name == "reformer_lsh":
        return Reformer(), (r(2, 32, 32),), "train"
    if name == "longformer_window":
        am = torch.ones(2, 16, dtype=torch.long, device=dev)
        am[1, 13:] = 0
        return Longformer(), (r(2, 16, 32), am), "train"
    if name == "moe_capacity":
        return MoECap(), (r(2, 8, 16),), "train"
    if name == "esrgan_rrdb_sn":
        return ESRGAN(), (r(1, 3, 8, 8),), "train"
    if name == "capsnet_routing":
        return CapsNet(), (torch.rand(2, 1, 14, 14, device=dev), lt(1, 3)), "train"
    if name == "sam_window_relpos":
        return SAM(), (r(2, 10, 10, 32),), "train"
    if name == "deformable_detr":
        pad = torch.zeros(2, 80, dtype=torch.bool, device=dev)
        pad[1, 60:64] = True
        return MSDeform(), (r(2, 10, 32), r(2, 80, 32), 0.05 + 0.9 * torch.rand(2, 10, 2, 2, device=dev), pad), "train"
    if name == "losses_mix":
        tgt = ri(5, 8)
        tgt[2] = -100
        y = torch.where(torch.rand(8, device=dev) < 0.5, -1.0, 1.0)
        return Losses(), (r(8, 16), tgt, (torch.rand(8, 5, device=dev) < 0.4).float(), r(8, 5), r(8, 4), y), "train"
    raise KeyError(name)
