"""A small PyTorch training loop, to profile a real framework workload.

    python3 benchmarks/pytorch_mlp.py [STEPS]

Trains a 4-layer MLP (fp32 and bf16 autocast) on random data for STEPS
steps (default 300): cuBLAS GEMMs, elementwise, reduction and optimizer
kernels, thousands of launches. Under topdown, use --per-kernel N so that
only the first N launches of each kernel are replayed:

    build/topdown --per-kernel 5 -l 3 -- python3 benchmarks/pytorch_mlp.py
"""
import sys
import time

import torch


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 300
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
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=step % 2 == 1):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    print(f"pytorch_mlp: {steps} steps, loss {loss.item():.4f}, "
          f"{time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
