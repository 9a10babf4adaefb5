class GraphModule(torch.nn.Module):
    def forward(self, a: "f16[1024, 1024][1024, 1]cuda:0", b: "f16[1024, 512][512, 1]cuda:0", c: "f32[1023, 1001][1001, 1]cpu", d: "f32[1001, 511][511, 1]cpu"):
        mm: "f16[1024, 512][512, 1]cuda:0" = torch.ops.aten.mm.default(a, b);  a = b = None
        mm_1: "f32[1023, 511][511, 1]cpu" = torch.ops.aten.mm.default(c, d);  c = d = None
        return (mm, mm_1)
