"""Expected values of tst_compile_tree's output-code test, worked out from the
inductor_provenance TORCH_TRACE log directly (not by fxray): the first inductor_output_code
payload of compile 0/0 (the forward), its provenance map, and for a few kernels the lines
(0-based) of their definition block (from the '# kernel path:' comment to the closing ''')
and of their call site (from the '# Topologically Sorted Source Nodes' comment to the call).

    python3 story_output_code_expect.py ../../../../shared/traces/inductor_provenance/trace
"""
import glob
import json
import re
import sys

log = open(glob.glob(sys.argv[1] + "/*.log")[0]).read().splitlines()
codes, provs = [], []
i = 0
while i < len(log):
    m = re.match(r"^V\S+ \S+ \S+ \S+\] (\{.*\})$", log[i])
    i += 1
    if not m:
        continue
    env = json.loads(m.group(1))
    payload = []
    while i < len(log) and log[i].startswith("\t"):
        payload.append(log[i][1:])
        i += 1
    if "inductor_output_code" in env:
        codes.append(payload)
    if env.get("artifact", {}).get("name") == "inductor_provenance_tracking_node_mappings":
        provs.append(json.loads("\n".join(payload)))

code, prov = codes[0], provs[0]["cppCodeToPost"]
print("forward output code lines:", len(code))
for kernel in ["triton_poi_fused_gelu_view_1", "extern_kernels.addmm"]:
    handle = [h for h in prov if h.rsplit(":", 1)[0] == kernel][0]
    print(kernel, "nodes:", sorted(prov[handle]))
    ranges = []
    if not kernel.startswith("extern_kernels."):
        d = next(n for n, l in enumerate(code) if l.startswith(kernel + " = async_compile."))
        start = max(n for n in range(d) if code[n].startswith("# kernel path:"))
        end = next(n for n in range(d + 1, len(code)) if code[n].startswith("'''"))
        ranges.append((start, end))
        call = next(n for n, l in enumerate(code) if l.strip().startswith(kernel + ".run("))
    else:
        call = next(n for n, l in enumerate(code) if l.strip().startswith(kernel + "("))
    top = max(n for n in range(call) if code[n].strip().startswith("# Topologically Sorted Source Nodes"))
    ranges.append((top, call))
    print(kernel, "lines:", ranges)
erf = next(n for n, l in enumerate(code) if "libdevice.erf(" in l)
print("line of libdevice.erf:", erf)
