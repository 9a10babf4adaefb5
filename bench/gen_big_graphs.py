#!/usr/bin/env python3
"""Big joint graphs for the app's first-view and partition screenshots (issue 18), made on the GPU
machine with the corpus generator's capture path: densenet121 (torchvision) and a llama-style model
(transformers). Graph text only, no tensors, so the result is a few MB and can travel back.

usage: python3 bench/gen_big_graphs.py OUTDIR [densenet121,llama_8l]
Writes OUTDIR/NAME/graphs/{dynamo_graph,aot_joint_graph,aot_forward_graph,aot_backward_graph}.py
and OUTDIR/NAME/summary.json (node counts, saved tensors as the min-cut partitioner chose them)."""
import json, os, sys


def build(name, dev):
    import torch
    if name == "densenet121":
        import torchvision
        return torchvision.models.densenet121(num_classes=1000), (torch.randn(2, 3, 224, 224, device=dev),)
    if name == "llama_8l":
        from transformers import LlamaConfig, LlamaModel
        cfg = LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=8, num_attention_heads=8,
                          num_key_value_heads=4, vocab_size=4096, max_position_embeddings=256,
                          attn_implementation="eager")

        class W(torch.nn.Module):
            def __init__(s):
                super().__init__()
                s.m = LlamaModel(cfg)

            def forward(s, ids):
                return s.m(input_ids=ids).last_hidden_state
        return W(), (torch.randint(0, 4096, (2, 128), device=dev),)
    raise SystemExit("unknown model " + name)


def capture(name, out):
    import torch
    from torch._functorch.aot_autograd import aot_module_simplified
    from torch._functorch.partitioners import min_cut_rematerialization_partition
    from functorch.compile import make_boxed_func
    d = os.path.join(out, name, "graphs")
    os.makedirs(d, exist_ok=True)
    summary = {"name": name, "torch": torch.__version__, "mode": "train"}

    def write(tag, gm, plain=False):
        text = gm.print_readable(print_output=False) if plain else \
            gm.print_readable(print_output=False, include_stride=True, include_device=True)
        with open(os.path.join(d, tag + ".py"), "w") as f:
            f.write(text)

    def partition(joint, joint_inputs, **kw):
        write("aot_joint_graph", joint)
        fw, bw = min_cut_rematerialization_partition(joint, joint_inputs, **kw)
        n_fwd = kw.get("num_fwd_outputs")
        outs = list(fw.graph.find_nodes(op="output"))[0].args[0]
        saved = []
        for o in outs[n_fwd:]:
            v = o.meta.get("val") if hasattr(o, "meta") else None
            if isinstance(v, torch.Tensor):
                saved.append({"name": o.name, "shape": list(v.shape), "dtype": str(v.dtype),
                              "bytes": v.numel() * v.element_size()})
        summary.update(saved=saved, saved_bytes=sum(s["bytes"] for s in saved), num_fwd_outputs=n_fwd,
                       nodes={"joint": len(joint.graph.nodes), "fwd": len(fw.graph.nodes), "bwd": len(bw.graph.nodes)})
        write("aot_forward_graph", fw)
        write("aot_backward_graph", bw)
        return fw, bw

    def backend(gm, ex):
        write("dynamo_graph", gm, plain=True)
        return aot_module_simplified(gm, ex, fw_compiler=lambda g, e: make_boxed_func(g.forward),
                                     bw_compiler=lambda g, e: make_boxed_func(g.forward), partition_fn=partition)

    torch.manual_seed(0)
    model, inps = build(name, "cuda")
    model = model.cuda()
    torch._dynamo.reset()
    out_t = torch.compile(model, backend=backend)(*inps)
    out_t.float().sum().backward()
    with open(os.path.join(out, name, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(name, summary.get("nodes"), "saved", len(summary.get("saved", [])))


if __name__ == "__main__":
    names = sys.argv[2].split(",") if len(sys.argv) > 2 else ["densenet121", "llama_8l"]
    for n in names:
        capture(n, sys.argv[1])
