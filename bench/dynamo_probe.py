#!/usr/bin/env python3
"""Which common Tensor methods and torch functions fxray's Dynamo-stage lowering refuses.

Each call is written into a one-node Dynamo graph (`class GraphModule` with fixed inputs x, y: f32[2, 3],
m: b8[2, 3], i: i64[2, 3], j: i64[2], v: f32[3], z: f32[3, 2], z2: f32[3, 3], v2: f32[2, 2],
x3: f32[1, 2, 3], z3: f32[1, 3, 2]) and run with `fxray run --backend ref` on seeded random inputs;
the refused calls are printed with fxray's message, then the count. Some refusals are the probe's
own (a random index out of range, a non-square input, an expression FX would print as several
nodes): read the messages. Session 15: methods 86 -> 52, functions 64 -> 29 refused; session 16: 48 and 17.

usage: python3 bench/dynamo_probe.py FXRAY_BINARY [methods|functions]"""
import os
import subprocess
import sys
import tempfile

METHODS = [
 ("x.float()", "f32[2, 3]"), ("x.type_as(y)", "f32[2, 3]"), ("x.masked_fill(m, 0.0)", "f32[2, 3]"),
 ("x.view_as(y)", "f32[2, 3]"), ("x.expand_as(y)", "f32[2, 3]"), ("x.new_ones((2, 3))", "f32[2, 3]"),
 ("x.unflatten(1, (3, 1))", "f32[2, 3, 1]"), ("x.softmax(-1)", "f32[2, 3]"), ("x.log_softmax(dim = -1)", "f32[2, 3]"),
 ("x.t()", "f32[3, 2]"), ("x.repeat(2, 1)", "f32[4, 3]"), ("x.tile((1, 2))", "f32[2, 6]"), ("x.flatten()", "f32[6]"),
 ("x.permute(1, 0)", "f32[3, 2]"), ("x.transpose(0, 1)", "f32[3, 2]"), ("x.contiguous()", "f32[2, 3]"),
 ("x.clone()", "f32[2, 3]"), ("x.detach()", "f32[2, 3]"), ("x.norm(2, -1)", "f32[2]"), ("x.std(-1)", "f32[2]"),
 ("x.var(-1, unbiased = False)", "f32[2]"), ("x.mean(-1, keepdim = True)", "f32[2, 1]"), ("x.sum(dtype = torch.float64)", "f64[]"),
 ("x.cumsum(-1)", "f32[2, 3]"), ("x.argmax(-1)", "i64[2]"), ("x.abs()", "f32[2, 3]"), ("x.bool()", "b8[2, 3]"),
 ("x.long()", "i64[2, 3]"), ("x.half()", "f16[2, 3]"), ("x.bfloat16()", "bf16[2, 3]"), ("x.double()", "f64[2, 3]"),
 ("x.new_zeros((2, 3))", "f32[2, 3]"), ("x.new_full((2, 3), 7.0)", "f32[2, 3]"), ("x.new_empty((2, 3))", "f32[2, 3]"),
 ("x.sigmoid()", "f32[2, 3]"), ("x.pow(2)", "f32[2, 3]"), ("x.rsqrt()", "f32[2, 3]"), ("x.reciprocal()", "f32[2, 3]"),
 ("x.round(decimals = 1)", "f32[2, 3]"), ("x.lerp(y, 0.5)", "f32[2, 3]"), ("x.addcmul(y, y, value = 0.5)", "f32[2, 3]"),
 ("x.all()", "b8[]"), ("x.any(-1)", "b8[2]"), ("x.eq(y)", "b8[2, 3]"), ("x.isnan()", "b8[2, 3]"), ("x.roll(1, -1)", "f32[2, 3]"),
 ("x.flip(-1)", "f32[2, 3]"), ("x.triu(1)", "f32[2, 3]"), ("x.diagonal()", "f32[2]"), ("x.unfold(1, 2, 1)", "f32[2, 2, 2]"),
 ("x.reshape_as(y)", "f32[2, 3]"), ("x.expand(2, 3)", "f32[2, 3]"), ("x.amax(-1)", "f32[2]"), ("x.logsumexp(-1)", "f32[2]"),
 ("x.matmul(y.t())", "f32[2, 2]"), ("x.square()", "f32[2, 3]"), ("x.erf()", "f32[2, 3]"), ("x.narrow(1, 0, 2)", "f32[2, 2]"),
 ("x.select(1, 0)", "f32[2]"), ("x.movedim(0, 1)", "f32[3, 2]"), ("x.swapaxes(0, 1)", "f32[3, 2]"),
 ("x.nan_to_num(0.0)", "f32[2, 3]"), ("x.clip(-1, 1)", "f32[2, 3]"), ("x.clamp_min(0)", "f32[2, 3]"), ("x.maximum(y)", "f32[2, 3]"),
 ("x.fmod(2)", "f32[2, 3]"), ("x.remainder(2)", "f32[2, 3]"), ("x.div(y, rounding_mode = 'floor')", "f32[2, 3]"),
 ("x.where(m, y)", "f32[2, 3]"), ("x.masked_fill(m, float('-inf'))", "f32[2, 3]"), ("x.max(-1)[0]", "f32[2]"),
 ("x.topk(2, -1)[0]", "f32[2, 2]"), ("x.sort(-1)[0]", "f32[2, 3]"), ("x.gather(-1, i)", "f32[2, 3]"),
 ("x.index_select(0, j)", "f32[2, 3]"), ("x.scatter(-1, i, y)", "f32[2, 3]"), ("x.to(torch.float16)", "f16[2, 3]"),
 ("x.to(y)", "f32[2, 3]"), ("x.type(torch.float64)", "f64[2, 3]"), ("x.int()", "i32[2, 3]"), ("x.sign()", "f32[2, 3]"),
 ("x.exp_()", "f32[2, 3]"), ("x.mul_(2)", "f32[2, 3]"), ("x.clamp_(0, 1)", "f32[2, 3]"), ("x.zero_()", "f32[2, 3]"),
 ("x.fill_(3.0)", "f32[2, 3]"), ("x.unsqueeze(0).squeeze(0)", "f32[2, 3]"), ("x.chunk(3, -1)[0]", "f32[2, 1]"),
 ("x.split(1, -1)[0]", "f32[2, 1]"), ("x.unbind(0)[0]", "f32[3]"), ("x.tensor_split(3, -1)[0]", "f32[2, 1]"),
 ("x.split_with_sizes([1, 2], -1)[1]", "f32[2, 2]"), ("x.var_mean(-1)[0]", "f32[2]"), ("x.std_mean(-1)[1]", "f32[2]"),
 ("x.aminmax(dim = -1)[0]", "f32[2]"), ("x.cummax(-1)[0]", "f32[2, 3]"), ("x.median(-1)[0]", "f32[2]"),
 ("x.kthvalue(2, -1)[0]", "f32[2]"), ("x.mode(-1)[0]", "f32[2]"), ("x.nanmean()", "f32[]"), ("x.nansum()", "f32[]"),
 ("x.prod(-1)", "f32[2]"), ("x.count_nonzero(-1)", "i64[2]"), ("x.histc(4)", "f32[4]"), ("x.outer(y[0])", "f32[2, 3]"),
 ("x.logit()", "f32[2, 3]"), ("x.sinc()", "f32[2, 3]"), ("x.xlogy(y)", "f32[2, 3]"), ("x.hypot(y)", "f32[2, 3]"),
 ("x.logaddexp(y)", "f32[2, 3]"), ("x.frac()", "f32[2, 3]"), ("x.trunc()", "f32[2, 3]"), ("x.positive()", "f32[2, 3]"),
 ("x.deg2rad()", "f32[2, 3]"), ("x.heaviside(y)", "f32[2, 3]"), ("x.copysign(y)", "f32[2, 3]"), ("x.float_power(2)", "f64[2, 3]"),
 ("x.index_fill(1, j, 0.0)", "f32[2, 3]"), ("x.index_add(0, j, y)", "f32[2, 3]"), ("x.index_copy(0, j, y)", "f32[2, 3]"),
 ("x.masked_scatter(m, y)", "f32[2, 3]"), ("x.put(j, y[0, :2])", "f32[2, 3]"), ("x.take(j)", "f32[2]"),
 ("x.addmm(y, y.t())", "f32[2, 3]"), ("x.baddbmm(x.unsqueeze(0), y.t().unsqueeze(0))", "f32[1, 2, 3]"),
 ("x.renorm(2, 0, 1.0)", "f32[2, 3]"), ("x.cross(y, dim = -1)", "f32[2, 3]"), ("x.diag_embed()", "f32[2, 3, 3]"),
 ("x.tril_()", "f32[2, 3]"), ("x.logical_and(m)", "b8[2, 3]"), ("x.bitwise_not()", "i64[2, 3]"),
 ("x.new_tensor([1.0, 2.0])", "f32[2]"), ("x.numel() * x", "f32[2, 3]"), ("x.dim() * x", "f32[2, 3]"), ("x.size(-1) * x", "f32[2, 3]"),
 ("x.is_contiguous() * x", "f32[2, 3]"), ("x.element_size() * x", "f32[2, 3]"), ("x.ndimension() * x", "f32[2, 3]"),
 ("x.nelement() * x", "f32[2, 3]"), ("x.argsort(-1)", "i64[2, 3]"), ("x.msort()", "f32[2, 3]"), ("x.argwhere()", "i64[6, 2]"),
 ("x.allclose(y) * x", "f32[2, 3]"), ("x.equal(y) * x", "f32[2, 3]"), ("x.sum_to_size(1, 3)", "f32[1, 3]"),
 ("x.stride(0) * x", "f32[2, 3]"), ("x.broadcast_to((2, 3))", "f32[2, 3]"), ("x.repeat_interleave(2, 0)", "f32[4, 3]"),
 ("x.expm1()", "f32[2, 3]"), ("x.log1p()", "f32[2, 3]"), ("x.log2()", "f32[2, 3]"), ("x.clamp(max = 1.0)", "f32[2, 3]"),
 ("x.minimum(y)", "f32[2, 3]"), ("x.neg()", "f32[2, 3]"), ("x.floor_divide(2)", "f32[2, 3]"), ("x.true_divide(2)", "f32[2, 3]"),
 ("x.logical_not()", "b8[2, 3]"), ("x.ne(0)", "b8[2, 3]"), ("x.ge(0)", "b8[2, 3]"), ("x.isfinite()", "b8[2, 3]"), ("x.isinf()", "b8[2, 3]"),
 ("x.sinh()", "f32[2, 3]"), ("x.atan2(y)", "f32[2, 3]"), ("x.arctan2(y)", "f32[2, 3]"), ("x.absolute()", "f32[2, 3]"),
 ("x.arccos()", "f32[2, 3]"), ("x.fix()", "f32[2, 3]"), ("x.multiply(y)", "f32[2, 3]"), ("x.subtract(y)", "f32[2, 3]"),
 ("x.divide(y)", "f32[2, 3]"), ("x.negative()", "f32[2, 3]"), ("x.greater(y)", "b8[2, 3]"), ("x.less_equal(y)", "b8[2, 3]"),
 ("x.not_equal(y)", "b8[2, 3]"), ("x.clamp_max(1)", "f32[2, 3]"), ("x.rad2deg()", "f32[2, 3]"), ("x.exp2()", "f32[2, 3]"),
 ("x.sgn()", "f32[2, 3]"), ("x.signbit()", "b8[2, 3]"), ("x.digamma()", "f32[2, 3]"), ("x.lgamma()", "f32[2, 3]"),
 ("x.erfinv()", "f32[2, 3]"), ("x.i0()", "f32[2, 3]"), ("x.mvlgamma(1)", "f32[2, 3]"), ("x.polygamma(1)", "f32[2, 3]"),
 ("x.dist(y)", "f32[]"), ("x.inner(y)", "f32[2, 2]"), ("x.vdot(y)", "f32[]"), ("x.dot(y[0])", "f32[]"),
 ("x.matrix_power(1)", "f32[2, 3]"), ("x.det()", "f32[]"), ("x.trace()", "f32[]"), ("x.cov()", "f32[2, 2]"),
 ("x.corrcoef()", "f32[2, 2]"), ("x.diff(dim = -1)", "f32[2, 2]"), ("x.cumprod(-1)", "f32[2, 3]"),
 ("x.logcumsumexp(-1)", "f32[2, 3]"), ("x.unique_consecutive()", "f32[6]"), ("x.bincount()", "i64[3]"),
 ("x.quantile(0.5)", "f32[]"), ("x.nanquantile(0.5)", "f32[]"), ("x.nanmedian()", "f32[]"),
]

FUNCTIONS = [
 ("torch.cat([x, y], dim = 0)", "f32[4, 3]"), ("torch.concat([x, y])", "f32[4, 3]"), ("torch.concatenate([x, y], axis = 1)", "f32[2, 6]"),
 ("torch.stack([x, y], 1)", "f32[2, 2, 3]"), ("torch.hstack([x, y])", "f32[2, 6]"), ("torch.vstack([x, y])", "f32[4, 3]"),
 ("torch.dstack([x, y])", "f32[2, 3, 2]"), ("torch.column_stack([x, y])", "f32[2, 6]"), ("torch.row_stack([x, y])", "f32[4, 3]"),
 ("torch.where(m, x, y)", "f32[2, 3]"), ("torch.where(m, x, 0.0)", "f32[2, 3]"), ("torch.zeros(2, 3, dtype = torch.float32)", "f32[2, 3]"),
 ("torch.zeros((2, 3), device = device(type='cpu'))", "f32[2, 3]"), ("torch.ones(3)", "f32[3]"), ("torch.full((2, 3), 1.5)", "f32[2, 3]"),
 ("torch.empty(2, 3)", "f32[2, 3]"), ("torch.arange(6)", "i64[6]"), ("torch.arange(0, 6, 2, dtype = torch.float32)", "f32[3]"),
 ("torch.linspace(0, 1, 5)", "f32[5]"), ("torch.logspace(0, 2, 3)", "f32[3]"), ("torch.eye(3)", "f32[3, 3]"),
 ("torch.tensor([1.0, 2.0])", "f32[2]"), ("torch.tensor(3)", "i64[]"), ("torch.as_tensor([1, 2])", "i64[2]"),
 ("torch.zeros_like(x)", "f32[2, 3]"), ("torch.rand_like(x)", "f32[2, 3]"), ("torch.randn(2, 3)", "f32[2, 3]"),
 ("torch.randint(0, 5, (2, 3))", "i64[2, 3]"), ("torch.tril(x)", "f32[2, 3]"), ("torch.triu(x, diagonal = 1)", "f32[2, 3]"),
 ("torch.flatten(x, 0)", "f32[6]"), ("torch.reshape(x, (3, 2))", "f32[3, 2]"), ("torch.squeeze(x)", "f32[2, 3]"),
 ("torch.unsqueeze(x, 1)", "f32[2, 1, 3]"), ("torch.transpose(x, 0, 1)", "f32[3, 2]"), ("torch.permute(x, (1, 0))", "f32[3, 2]"),
 ("torch.t(x)", "f32[3, 2]"), ("torch.clamp(x, min = 0)", "f32[2, 3]"), ("torch.clip(x, -1, 1)", "f32[2, 3]"),
 ("torch.sum(x, dim = (0, 1))", "f32[]"), ("torch.mean(x, 1, True)", "f32[2, 1]"), ("torch.std(x, dim = 1, correction = 0)", "f32[2]"),
 ("torch.var(x, 1)", "f32[2]"), ("torch.prod(x)", "f32[]"), ("torch.amax(x, dim = (0,))", "f32[3]"), ("torch.logsumexp(x, 1)", "f32[2]"),
 ("torch.norm(x, dim = 1)", "f32[2]"), ("torch.linalg.norm(x, dim = 1)", "f32[2]"), ("torch.linalg.vector_norm(x, 2, -1)", "f32[2]"),
 ("torch.linalg.matrix_norm(x)", "f32[]"), ("torch.cdist(x, y)", "f32[2, 2]"), ("torch.matmul(x, y.T)", "f32[2, 2]"),
 ("torch.mm(x, z)", "f32[2, 2]"), ("torch.bmm(x.unsqueeze(0), z.unsqueeze(0))", "f32[1, 2, 2]"), ("torch.einsum('ij,kj->ik', x, y)", "f32[2, 2]"),
 ("torch.outer(v, v)", "f32[3, 3]"), ("torch.dot(v, v)", "f32[]"), ("torch.inner(v, v)", "f32[]"), ("torch.kron(x, y)", "f32[4, 9]"),
 ("torch.tensordot(x, z, dims = 1)", "f32[2, 2]"), ("torch.addmm(v2, x, z)", "f32[2, 2]"), ("torch.baddbmm(x3, x3, z3)", "f32[1, 2, 2]"),
 ("torch.flip(x, (0,))", "f32[2, 3]"), ("torch.fliplr(x)", "f32[2, 3]"), ("torch.flipud(x)", "f32[2, 3]"), ("torch.roll(x, 1)", "f32[2, 3]"),
 ("torch.rot90(x)", "f32[3, 2]"), ("torch.gather(x, 1, i)", "f32[2, 3]"), ("torch.take_along_dim(x, i, 1)", "f32[2, 3]"),
 ("torch.index_select(x, 1, j)", "f32[2, 2]"), ("torch.masked_select(x, m)", "f32[3]"), ("torch.nonzero(m)", "i64[3, 2]"),
 ("torch.topk(x, 2)", "f32[2, 2]"), ("torch.sort(x)", "f32[2, 3]"), ("torch.max(x)", "f32[]"), ("torch.max(x, y)", "f32[2, 3]"),
 ("torch.min(x, 1)", "f32[2]"), ("torch.argmax(x)", "i64[]"), ("torch.argmin(x, 1, keepdim = True)", "i64[2, 1]"),
 ("torch.cumsum(x, 0)", "f32[2, 3]"), ("torch.cumprod(x, dim = 1)", "f32[2, 3]"), ("torch.cummax(x, 1)", "f32[2, 3]"),
 ("torch.sigmoid(x)", "f32[2, 3]"), ("torch.tanh(x)", "f32[2, 3]"), ("torch.relu(x)", "f32[2, 3]"), ("torch.exp(x)", "f32[2, 3]"),
 ("torch.rsqrt(x)", "f32[2, 3]"), ("torch.erf(x)", "f32[2, 3]"), ("torch.pow(x, 2)", "f32[2, 3]"), ("torch.pow(2, x)", "f32[2, 3]"),
 ("torch.lerp(x, y, 0.3)", "f32[2, 3]"), ("torch.addcmul(x, y, y, value = 2)", "f32[2, 3]"), ("torch.addcdiv(x, y, y)", "f32[2, 3]"),
 ("torch.maximum(x, y)", "f32[2, 3]"), ("torch.fmax(x, y)", "f32[2, 3]"), ("torch.isclose(x, y)", "b8[2, 3]"),
 ("torch.allclose(x, y)", "b8[]"), ("torch.all(m)", "b8[]"), ("torch.any(m, 1)", "b8[2]"), ("torch.logical_and(m, m)", "b8[2, 3]"),
 ("torch.bucketize(x, v)", "i64[2, 3]"), ("torch.searchsorted(v, x)", "i64[2, 3]"), ("torch.histc(x, 4)", "f32[4]"),
 ("torch.bincount(j)", "i64[8]"), ("torch.unique(x)", "f32[6]"), ("torch.repeat_interleave(x, 2, dim = 0)", "f32[4, 3]"),
 ("torch.chunk(x, 3, 1)", "f32[2, 1]"), ("torch.split(x, 1, 1)", "f32[2, 1]"), ("torch.unbind(x)", "f32[3]"),
 ("torch.tensor_split(x, 3, 1)", "f32[2, 1]"), ("torch.narrow(x, 1, 0, 2)", "f32[2, 2]"), ("torch.select(x, 1, 0)", "f32[2]"),
 ("torch.diag(v)", "f32[3, 3]"), ("torch.diagonal(x)", "f32[2]"), ("torch.diag_embed(x)", "f32[2, 3, 3]"), ("torch.trace(z2)", "f32[]"),
 ("torch.tril_indices(3, 3)", "i64[2, 6]"), ("torch.triu_indices(3, 3, 1)", "i64[2, 3]"), ("torch.cartesian_prod(v, v)", "f32[9, 2]"),
 ("torch.combinations(v)", "f32[3, 2]"), ("torch.meshgrid(v, v, indexing = 'ij')", "f32[3, 3]"), ("torch.broadcast_tensors(x, v)", "f32[2, 3]"),
 ("torch.atleast_2d(v)", "f32[1, 3]"), ("torch.block_diag(x, y)", "f32[4, 6]"), ("torch.cov(x)", "f32[2, 2]"),
 ("torch.nan_to_num(x)", "f32[2, 3]"), ("torch.sign(x)", "f32[2, 3]"), ("torch.signbit(x)", "b8[2, 3]"), ("torch.heaviside(x, y)", "f32[2, 3]"),
 ("torch.logit(x, 1e-6)", "f32[2, 3]"), ("torch.special.erfinv(x)", "f32[2, 3]"), ("torch.special.expit(x)", "f32[2, 3]"),
 ("torch.special.log_softmax(x, 1)", "f32[2, 3]"), ("torch.special.logsumexp(x, 1)", "f32[2]"), ("torch.special.gammaln(x)", "f32[2, 3]"),
 ("torch.special.i0e(x)", "f32[2, 3]"), ("torch.special.ndtr(x)", "f32[2, 3]"), ("torch.special.xlog1py(x, y)", "f32[2, 3]"),
 ("torch.special.entr(x)", "f32[2, 3]"), ("torch.special.sinc(x)", "f32[2, 3]"), ("torch.special.round(x)", "f32[2, 3]"),
 ("torch.fft.fft(x)", "c64[2, 3]"), ("torch.fft.rfft(x)", "c64[2, 2]"), ("torch.linalg.solve(z2, z2)", "f32[3, 3]"),
 ("torch.linalg.inv(z2)", "f32[3, 3]"), ("torch.linalg.det(z2)", "f32[]"), ("torch.linalg.cholesky(z2)", "f32[3, 3]"),
 ("torch.linalg.qr(z2)", "f32[3, 3]"), ("torch.linalg.eigh(z2)", "f32[3]"), ("torch.linalg.svd(z2)", "f32[3, 3]"),
 ("torch.linalg.pinv(z2)", "f32[3, 3]"), ("torch.linalg.matrix_exp(z2)", "f32[3, 3]"), ("torch.linalg.slogdet(z2)", "f32[]"),
 ("torch.linalg.cross(x, y)", "f32[2, 3]"), ("torch.linalg.vecdot(x, y)", "f32[2]"), ("torch.linalg.multi_dot([x, z, x])", "f32[2, 3]"),
 ("torch.nn.functional.embedding(j, z2)", "f32[2, 3]"), ("torch.nn.functional.gelu(x, approximate = 'tanh')", "f32[2, 3]"),
 ("torch.nn.functional.silu(x)", "f32[2, 3]"), ("torch.nn.functional.layer_norm(x, (3,))", "f32[2, 3]"),
 ("torch.nn.functional.interpolate(x3, scale_factor = 2.0, mode = 'linear')", "f32[1, 2, 6]"),
 ("torch.nn.functional.pad(x, (1, 1))", "f32[2, 5]"), ("torch.nn.functional.softplus(x, beta = 2)", "f32[2, 3]"),
]

PARAMS = ('L_x_: "f32[2, 3][3, 1]cpu", L_y_: "f32[2, 3][3, 1]cpu", L_m_: "b8[2, 3][3, 1]cpu", '
          'L_i_: "i64[2, 3][3, 1]cpu", L_j_: "i64[2][1]cpu", L_v_: "f32[3][1]cpu", L_z_: "f32[3, 2][2, 1]cpu", '
          'L_z2_: "f32[3, 3][3, 1]cpu", L_v2_: "f32[2, 2][2, 1]cpu", L_x3_: "f32[1, 2, 3][6, 3, 1]cpu", '
          'L_z3_: "f32[1, 3, 2][6, 2, 1]cpu"')
NAMES = ["x", "y", "m", "i", "j", "v", "z", "z2", "v2", "x3", "z3"]


def annotation(ann):
    dt, shape = ann.split("[", 1)
    shape = shape.rstrip("]")
    dims = [int(s) for s in shape.split(", ")] if shape else []
    strides, acc = [], 1
    for d in reversed(dims):
        strides.insert(0, acc)
        acc *= d
    return f'"{dt}[{shape}][{", ".join(map(str, strides))}]cpu"'


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    which = sys.argv[2] if len(sys.argv) > 2 else "both"
    calls = (METHODS if which in ("methods", "both") else []) + (FUNCTIONS if which in ("functions", "both") else [])
    refused = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, (call, ann) in enumerate(calls):
            body = "".join(f"        {n} = L_{n}_\n" for n in NAMES)
            src = (f"class GraphModule(torch.nn.Module):\n    def forward(self, {PARAMS}):\n{body}"
                   f"        r: {annotation(ann)} = {call}\n        return (r,)\n")
            path = os.path.join(tmp, f"c{k:03d}.py")
            with open(path, "w") as f:
                f.write(src)
            p = subprocess.run([binary, "run", path, "--backend", "ref"], capture_output=True, text=True)
            if p.returncode != 0:
                lines = p.stderr.strip().splitlines() or [""]
                refused.append((call, lines[0][:170]))
    for call, msg in refused:
        print(f"{call:50s} {msg}")
    print(f"{len(refused)} of {len(calls)} refused")


if __name__ == "__main__":
    main()
