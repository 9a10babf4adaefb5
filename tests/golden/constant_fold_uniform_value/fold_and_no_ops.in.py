class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3][3, 1]cpu"):
        full: "f32[2, 3][3, 1]cpu" = torch.ops.aten.full.default([2, 3], 1.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        mul: "f32[2, 3][3, 1]cpu" = torch.ops.aten.mul.Tensor(x, full);  x = full = None
        full_1: "f32[2, 3][3, 1]cpu" = torch.ops.aten.full.default([2, 3], 2.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        add: "f32[2, 3][3, 1]cpu" = torch.ops.aten.add.Tensor(full_1, 3);  full_1 = None
        sub: "f32[2, 3][3, 1]cpu" = torch.ops.aten.sub.Tensor(mul, add);  mul = add = None
        return (sub,)
