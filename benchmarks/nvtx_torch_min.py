"""Issue 24: the smallest PyTorch loop with torch.cuda.nvtx push/pop ranges
(after CUDA is initialised, as in a usual training script), for
`topdown report --by-region`. Prints which libcupti and NVTX libraries the
process holds, to tell which one NVTX hands its calls to."""
import os
import torch

a = torch.randn(1024, 1024, device="cuda")
for step in range(20):
    torch.cuda.nvtx.range_push("step")
    torch.cuda.nvtx.range_push("matmul")
    b = a @ a
    torch.cuda.nvtx.range_pop()
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print("torch", torch.__version__, torch.__file__)
print("NVTX_INJECTION64_PATH", os.environ.get("NVTX_INJECTION64_PATH"))
with open("/proc/self/maps") as maps:
    libs = sorted({l.split()[-1] for l in maps if "cupti" in l or "nvtx" in l.lower()
                   or "nvToolsExt" in l})
print("\n".join("mapped " + l for l in libs))
