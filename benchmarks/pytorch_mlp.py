"""A small PyTorch training loop, to profile a real framework workload.

    python3 benchmarks/pytorch_mlp.py [STEPS] [--cuda-graph]

Trains a 4-layer MLP (fp32 and bf16 autocast) on random data for STEPS
steps (default 300): cuBLAS GEMMs, elementwise, reduction and optimizer
kernels, thousands of launches:

    build/topdown -l 3 -- python3 benchmarks/pytorch_mlp.py

--cuda-graph captures one whole fp32 training step (forward, backward,
AdamW with capturable=True) with torch.cuda.graph after a warm-up on a
side stream, as PyTorch's CUDA graphs documentation does, and replays it
STEPS times: the same kernels, run by cuGraphLaunch (topdown's graph
profiling, docs/COLLECTION.md).

After the loop (torch.cuda.synchronize() included) it prints
loop_s=<seconds> steps=<STEPS>, the in-loop time benchmarks/cost.sh reads.
"""
import sys
import time

import torch


def build(device, capturable):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 1024), torch.nn.LayerNorm(1024),
        torch.nn.Linear(1024, 10)).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, capturable=capturable)
    x = torch.randn(512, 1024, device=device)
    y = torch.randint(0, 10, (512,), device=device)
    return model, opt, x, y


def train_eager(steps, model, opt, x, y):
    for step in range(steps):
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=step % 2 == 1):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return loss


def step_fp32(model, opt, x, y):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def train_graph(steps, model, opt, x, y):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):  # warm-up: cuBLAS workspaces, optimizer state
            opt.zero_grad(set_to_none=True)
            step_fp32(model, opt, x, y)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        loss = step_fp32(model, opt, x, y)
    for _ in range(steps):
        graph.replay()
    return loss


def main():
    args = [a for a in sys.argv[1:] if a != "--cuda-graph"]
    use_graph = len(args) != len(sys.argv) - 1
    steps = int(args[0]) if args else 300
    device = torch.device("cuda")
    model, opt, x, y = build(device, capturable=use_graph)
    start = time.perf_counter()
    if use_graph:
        loss = train_graph(steps, model, opt, x, y)
    else:
        loss = train_eager(steps, model, opt, x, y)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    # The in-loop time for benchmarks/cost.sh (the launches are not known
    # here: cost.sh takes them from topdown's closing line).
    print(f"loop_s={loop_s:.6f} steps={steps}", flush=True)
    print(f"pytorch_mlp: {steps} steps{' (CUDA graph)' if use_graph else ''}, "
          f"loss {loss.item():.4f}, {loop_s:.3f} s")


if __name__ == "__main__":
    main()
