class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4][1]cpu"):
        clone: "f32[4][1]cpu" = torch.ops.aten.clone.default(x);  x = None
        return (clone,)
