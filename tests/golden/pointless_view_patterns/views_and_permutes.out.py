class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 3, 4][12, 4, 1]cpu"):
        permute_2: "f32[3, 2, 4][4, 12, 1]cpu" = torch.ops.aten.permute.default(x, [1, 0, 2])
        add: "f32[2, 3, 4][12, 4, 1]cpu" = torch.ops.aten.add.Tensor(x, 1);  x = None
        return (add, permute_2)
