class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3][1]cpu"):
        exp: "f32[3][1]cpu" = torch.ops.aten.exp.default(x);  x = None
        mul: "f32[3][1]cpu" = torch.ops.aten.mul.Tensor(exp, 2)
        mul_2: "f32[3][1]cpu" = torch.ops.aten.mul.Tensor(exp, 2.0)
        rand: "f32[3][1]cpu" = torch.ops.aten.rand.default([3], device = device(type='cpu'), pin_memory = False)
        rand_1: "f32[3][1]cpu" = torch.ops.aten.rand.default([3], device = device(type='cpu'), pin_memory = False)
        add: "f32[3][1]cpu" = torch.ops.aten.add.Tensor(mul, mul);  mul = None
        add_1: "f32[3][1]cpu" = torch.ops.aten.add.Tensor(add, mul_2);  add = mul_2 = None
        add_2: "f32[3][1]cpu" = torch.ops.aten.add.Tensor(rand, rand_1);  rand = rand_1 = None
        add_3: "f32[3][1]cpu" = torch.ops.aten.add.Tensor(add_1, add_2);  add_1 = add_2 = None
        return (add_3, exp)
