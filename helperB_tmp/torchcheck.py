# Runs edge cases through PyTorch's FakeTensor (python dispatcher on, as AOT tracing does) and
# writes them as harness cases (inputs' and outputs' shape/strides/offset/dtype).
import json, os, sys, torch
import torch._inductor.inductor_prims
import torch._inductor.inductor_prims
from torch._subclasses.fake_tensor import FakeTensorMode
from torch._dispatch.python import enable_python_dispatcher
aten, prims = torch.ops.aten, torch.ops.prims
dev = 'cuda' if torch.cuda.is_available() else 'cpu'
AB = {torch.float32:'f32', torch.float16:'f16', torch.bfloat16:'bf16', torch.float64:'f64', torch.int64:'i64',
      torch.int32:'i32', torch.bool:'b8', torch.uint8:'u8', torch.int8:'i8'}
def devstr(d): return f"{d.type}:{d.index}" if d.index is not None else d.type
def tmeta(t): return {'dtype': AB[t.dtype], 'shape': list(t.shape), 'strides': list(t.stride()), 'device': devstr(t.device), 'offset': t.storage_offset()}
def enc(v):
    if isinstance(v, torch.Tensor): return {'T': tmeta(v)}
    if v is None: return None
    if isinstance(v, bool): return {'b': v}
    if isinstance(v, int): return {'i': v}
    if isinstance(v, float): return {'f': v}
    if isinstance(v, str): return {'s': v}
    if isinstance(v, (list, tuple)): return {'L': [enc(x) for x in v], 'tuple': isinstance(v, tuple)}
    if isinstance(v, torch.dtype): return {'dtype': AB[v]}
    if isinstance(v, torch.device): return {'dev': devstr(v)}
    if isinstance(v, torch.memory_format): return {'mf': str(v).split('.')[-1]}
    if isinstance(v, torch.layout): return {'layout': 'strided'}
    raise TypeError(v)

def T(shape, dtype=torch.float32, perm=None, step=None, expand=None, cl=False, offset_slice=None, vals=None):
    if vals is not None:
        t = torch.tensor(vals, dtype=dtype, device=dev)
        return t
    t = torch.randn(shape, device=dev).to(dtype) if dtype.is_floating_point else torch.randint(0, 2 if dtype == torch.bool else 3, shape, device=dev).to(dtype)
    if cl: t = t.contiguous(memory_format=torch.channels_last if t.dim() == 4 else torch.channels_last_3d)
    if perm: t = t.permute(perm)
    if step: t = t[tuple(slice(None, None, s) for s in step)]
    if offset_slice: t = t[offset_slice]
    if expand: t = t.expand(expand)
    return t

cases = []
def case(opname, *args, **kwargs):
    op = eval(opname)
    real_args, real_kwargs = args, kwargs
    try:
        with FakeTensorMode(allow_non_fake_inputs=False) as mode, enable_python_dispatcher():
            conv = lambda v: mode.from_tensor(v) if isinstance(v, torch.Tensor) else ([conv(x) for x in v] if isinstance(v, list) else v)
            fa = [conv(a) for a in args]; fk = {k: conv(v) for k, v in kwargs.items()}
            r = op(*fa, **fk)
    except Exception as e:
        c = {'op': opname.replace('torch.ops.', ''), 'args': [enc(a) for a in args], 'kwargs': {k: enc(v) for k, v in kwargs.items()}, 'error': str(e)[:200]}
        cases.append(c); return
    c = {'op': opname.replace('torch.ops.', ''), 'args': [enc(a) for a in args], 'kwargs': {k: enc(v) for k, v in kwargs.items()}}
    if isinstance(r, torch.Tensor): c['out'] = tmeta(r)
    else: c['outs'] = {str(i): tmeta(x) for i, x in enumerate(r)}
    cases.append(c)

exec(open(os.path.join(os.path.dirname(__file__), 'cases_def.py')).read())
out = os.environ.get('OUT', '.')
with open(os.path.join(out, 'torch_cases.jsonl'), 'w') as f:
    for c in cases: c.setdefault('file', 'torch'); c.setdefault('line', 0); f.write(json.dumps(c) + '\n')
print(len(cases), 'cases', torch.__version__)
