"""benchmarks/pytorch_mlp.py with NVTX ranges: each step's forward, backward
and optimizer wrapped in torch.cuda.nvtx.range, for topdown's NVTX regions.

    python3 benchmarks/pytorch_mlp_nvtx.py [STEPS] [--start-end]

Under topdown (the next GPU session's check, docs/COLLECTION.md):

    build/topdown -o mlp.json -- python3 benchmarks/pytorch_mlp_nvtx.py
    build/topdown report mlp.json --by-region -l 2
    build/topdown -o fwd.json --nvtx-include 'forward/' -- python3 benchmarks/pytorch_mlp_nvtx.py
    build/topdown -o nobwd.json --nvtx-exclude 'backward/' -- python3 benchmarks/pytorch_mlp_nvtx.py

torch.cuda.nvtx.range pushes a push/pop range on the calling thread. The
backward kernels are launched by autograd's device thread, not the thread
that called loss.backward(), so their region is that thread's (usually
none): ncu and topdown agree on this. --start-end wraps each phase in a
start/end range (torch.cuda.nvtx.range_start/range_end), which is
process-wide: the backward kernels then carry "(backward)" too.
"""
import sys
import time

import torch


class phase:
    """One step phase as an NVTX range: push/pop (default) or start/end."""

    def __init__(self, name, start_end):
        self.name = name
        self.start_end = start_end
        self.range_id = None

    def __enter__(self):
        if self.start_end:
            self.range_id = torch.cuda.nvtx.range_start(self.name)
        else:
            torch.cuda.nvtx.range_push(self.name)

    def __exit__(self, *exc):
        if self.start_end:
            torch.cuda.nvtx.range_end(self.range_id)
        else:
            torch.cuda.nvtx.range_pop()
        return False


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    start_end = "--start-end" in sys.argv[1:]
    steps = int(args[0]) if args else 300
    torch.manual_seed(0)
    device = torch.device("cuda")
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 1024), torch.nn.LayerNorm(1024),
        torch.nn.Linear(1024, 10)).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(512, 1024, device=device)
    y = torch.randint(0, 10, (512,), device=device)
    start = time.perf_counter()
    for step in range(steps):
        with torch.cuda.nvtx.range("step") if not start_end else phase("step", True):
            with phase("forward", start_end):
                with torch.autocast("cuda", dtype=torch.bfloat16, enabled=step % 2 == 1):
                    loss = torch.nn.functional.cross_entropy(model(x), y)
            with phase("backward", start_end):
                opt.zero_grad(set_to_none=True)
                loss.backward()
            with phase("optimizer", start_end):
                opt.step()
    torch.cuda.synchronize()
    print(f"pytorch_mlp_nvtx: {steps} steps ({'start/end' if start_end else 'push/pop'} "
          f"ranges), loss {loss.item():.4f}, {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
