class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3][3, 1]cpu", y: "f32[3, 2][1, 3]cpu"):
        relu: "f32[2, 3][3, 1]cpu" = torch.ops.aten.relu.default(x)
        clone_1: "f32[3, 2][2, 1]cpu" = torch.ops.aten.clone.default(y, memory_format = torch.contiguous_format);  y = None
        mul: "f32[2, 3][3, 1]cpu" = torch.ops.aten.mul.Tensor(relu, x);  relu = x = None
        return (mul, clone_1)
