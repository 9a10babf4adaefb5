#!/bin/sh
# Stands in for a Python with PyTorch in the torch-compile check's tests (CI has no PyTorch).
# It answers fxray's probe script, and "runs" fxray's repro.py by reading it: torch.compile
# "fails" when the graph calls $FAKE_TORCH_FAIL_OP (exit 1 with the FXRAY_FAILURE line the real
# script prints, whose line number and path change with the candidate, as real ones do), else it
# "runs" (exit 0). FAKE_TORCH_MISSING=1 plays a Python without torch.
script="$1"
case "$script" in
*/probe.py)
    if [ -n "$FAKE_TORCH_MISSING" ]; then
        echo "FXRAY_NO_TORCH ModuleNotFoundError: No module named 'torch'"
        exit 3
    fi
    echo "FXRAY_TORCH 2.11.0+fake 0"
    exit 0
    ;;
esac
[ -f "$script" ] || { echo "fake python: no script $script" >&2; exit 2; }
# Only fxray's own repro may run: refuse anything else.
grep -q "^# torch-compile check" "$script" || { echo "fake python: not fxray's torch-compile repro" >&2; exit 2; }
if [ -n "$FAKE_TORCH_FAIL_OP" ] && grep -q "torch.ops.$FAKE_TORCH_FAIL_OP(" "$script"; then
    lines=$(wc -l <"$script" | tr -d ' ')
    echo "FXRAY_FAILURE torch._inductor.exc.CppCompileError: C++ compile error at line $lines of /tmp/torchinductor_ci/c$lines/c0123456789abcdef$lines.cpp"
    exit 1
fi
echo "not reproduced: torch.compile(backend='inductor') ran on cpu"
exit 0
