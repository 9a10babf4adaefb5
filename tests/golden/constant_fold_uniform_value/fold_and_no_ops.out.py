class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3][3, 1]cpu"):
        full_default: "f32[2, 3][3, 1]cpu" = torch.ops.aten.full.default([2, 3], 1.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False);  full_default = None
        full_1: "f32[2, 3][3, 1]cpu" = torch.ops.aten.full.default([2, 3], 2.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False);  full_1 = None
        full_default_1: "f32[2, 3][3, 1]cpu" = torch.ops.aten.full.default([2, 3], 5.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        sub: "f32[2, 3][3, 1]cpu" = torch.ops.aten.sub.Tensor(x, full_default_1);  x = full_default_1 = None
        return (sub,)
