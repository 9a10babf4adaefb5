class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3][1]cpu"):
        exp: "f32[3][1]cpu" = torch.ops.aten.exp.default(x)
        neg: "f32[3][1]cpu" = torch.ops.aten.neg.default(exp);  exp = neg = None
        rand: "f32[3][1]cpu" = torch.ops.aten.rand.default([3], device = device(type='cpu'), pin_memory = False);  rand = None
        relu: "f32[3][1]cpu" = torch.ops.aten.relu.default(x);  x = None
        return (relu,)
