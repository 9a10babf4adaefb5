class GraphModule(torch.nn.Module):
    def forward(self, x: "f16[8191, 8193][8193, 1]cuda:0", w: "f16[8193, 4095][4095, 1]cuda:0"):
        mm: "f16[8191, 4095][4095, 1]cuda:0" = torch.ops.aten.mm.default(x, w);  x = w = None
        relu: "f16[8191, 4095][4095, 1]cuda:0" = torch.ops.aten.relu.default(mm);  mm = None
        return (relu,)
