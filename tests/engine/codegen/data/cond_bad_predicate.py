class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4][1]cuda:0", p: "f32[2][1]cuda:0"):
        sum_1: "f32[][]cuda:0" = torch.ops.aten.sum.default(x)
        gt: "b8[][]cuda:0" = torch.ops.aten.gt.Scalar(sum_1, 0);  sum_1 = None
        true_graph_0 = self.true_graph_0
        false_graph_0 = self.false_graph_0
        cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (x, p));  gt = true_graph_0 = false_graph_0 = x = p = None
        getitem: "f32[4][1]cuda:0" = cond[0];  cond = None
        return (getitem,)

    class true_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "f32[4][1]cuda:0", arg1_1: "f32[2][1]cuda:0"):
            gt: "b8[2][1]cuda:0" = torch.ops.aten.gt.Scalar(arg1_1, 0);  arg1_1 = None
            true_graph_0 = self.true_graph_0
            false_graph_0 = self.false_graph_0
            cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, (arg0_1,));  gt = true_graph_0 = false_graph_0 = arg0_1 = None
            getitem: "f32[4][1]cuda:0" = cond[0];  cond = None
            return (getitem,)

        class true_graph_0(torch.nn.Module):
            def forward(self, arg0_1: "f32[4][1]cuda:0"):
                relu: "f32[4][1]cuda:0" = torch.ops.aten.relu.default(arg0_1);  arg0_1 = None
                return (relu,)

        class false_graph_0(torch.nn.Module):
            def forward(self, arg0_1: "f32[4][1]cuda:0"):
                neg: "f32[4][1]cuda:0" = torch.ops.aten.neg.default(arg0_1);  arg0_1 = None
                return (neg,)

    class false_graph_0(torch.nn.Module):
        def forward(self, arg0_1: "f32[4][1]cuda:0", arg1_1: "f32[2][1]cuda:0"):
            abs_1: "f32[4][1]cuda:0" = torch.ops.aten.abs.default(arg0_1);  arg0_1 = None
            return (abs_1,)
