class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "bf16[4, 3, 32][96, 32, 1]cuda:0", primals_2: "bf16[32, 3, 1][3, 1, 1]cuda:0", primals_3: "bf16[32][1]cuda:0"):
        # File: bench/gen_popular_third.py (PointNet's T-Net, bf16): the first 1x1 conv1d with its bias, as PyTorch 2.11 recorded it on an H200
        convolution: "bf16[4, 32, 32][1024, 32, 1]cuda:0" = torch.ops.aten.convolution.default(primals_1, primals_2, primals_3, [1], [0], [1], False, [0], 1);  primals_1 = primals_2 = primals_3 = None
        return (convolution,)
