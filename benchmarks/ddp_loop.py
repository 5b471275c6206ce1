"""A PyTorch DistributedDataParallel training loop over NCCL, to profile a
multi-process, multi-GPU workload (benchmarks/multigpu.sh):

    torchrun --standalone --nproc_per_node 2 benchmarks/ddp_loop.py [STEPS]

Each rank trains the same 4-layer MLP on its own GPU (cuda:LOCAL_RANK) for
STEPS steps (default 200): each step copies a pinned host batch to the GPU
(an HtoD copy), runs forward and backward (cuBLAS GEMMs, elementwise
kernels) and lets DDP all-reduce the gradients (NCCL kernels) before the
AdamW step. Rank 1 gets a batch 1.5x larger, so the imbalance report has a
slowest rank to find. Prints one line per rank: steps, batch, seconds, and
the final loss.
"""
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 1024), torch.nn.LayerNorm(1024),
        torch.nn.Linear(1024, 10)).to(device)
    ddp = DDP(model, device_ids=[local_rank])
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
    batch = 512 if rank == 0 else 768
    x_host = torch.randn(batch, 1024).pin_memory()
    y_host = torch.randint(0, 10, (batch,)).pin_memory()
    torch.cuda.synchronize()
    start = time.perf_counter()
    loss = torch.zeros(())
    for _ in range(steps):
        x = x_host.to(device, non_blocking=True)
        y = y_host.to(device, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    # The record and its newline in one write: the ranks share the log, and
    # on the H200 pair one rank's record landed before another's newline.
    print(f"ddp_loop: rank {rank} of {dist.get_world_size()}, {steps} steps, batch {batch}, "
          f"{seconds:.3f} s, loss {loss.item():.4f}\n", end="", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
