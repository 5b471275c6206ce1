#include "levels/tree.h"

#include <math.h>
#include <string.h>

/* ---- formulas of MODEL.md section 3 ------------------------------------- */

static double retire_share(const td_issue_rates *r, double ipc_max)
{
    return r->ipc * r->warp_eff / ipc_max;
}

static double branch_share(const td_issue_rates *r, double ipc_max)
{
    return r->ipc * (1.0 - r->warp_eff) / ipc_max;
}

static double replay_share(const td_issue_rates *r, double ipc_max)
{
    return fmax(0.0, r->ipc_issued - r->ipc) / ipc_max;
}

/* ---- the records ---------------------------------------------------------- */

/* MODEL.md sections 4 and 7: each node, its parent and default threshold
 * (level 1: fraction of all slots; below: of the parent), its kind and
 * formula, its colour (families: Retire green, Divergence purple, Frontend
 * blues, Memory_Bound reds, Core_Bound oranges; deeper nodes are shades of
 * their parent) and its long description. */
static const td_node_info nodes[TD_NODE_COUNT] = {
    [TD_N_RETIRE] = {"Retire", "Retire", -1, 1, "RET", 0.0,
        "Issue slots that retired a useful instruction with all its threads active.",
        TD_KIND_USEFUL, retire_share, "#2ca02c",
        "Retire = IPC * WarpEff / IPC_MAX. The fraction of issue slots that did useful work. High is good; the remaining slots are lost to Divergence, Frontend or Backend."},
    [TD_N_DIVERGENCE] = {"Divergence", "Divergence", -1, 1, "DIV", 0.10,
        "Issue slots lost to inactive threads of issued warps and to replayed instructions.",
        TD_KIND_COMPUTED, NULL, "#9467bd",
        "Divergence = Branch + Replay. Slots that issued an instruction but did less than a full warp's work."},
    [TD_N_BRANCH] = {"Branch", "Divergence.Branch", TD_N_DIVERGENCE, 2, "DIV", 0.10,
        "Slots lost to threads masked off by divergent branches (warp execution efficiency < 100%).",
        TD_KIND_COMPUTED, branch_share, "#b294c7",
        "Branch = IPC * (1 - WarpEff) / IPC_MAX, WarpEff = thread_inst_executed / (32 * inst_executed). Fix: restructure data-dependent branches, sort work so that warps take the same path."},
    [TD_N_REPLAY] = {"Replay", "Divergence.Replay", TD_N_DIVERGENCE, 2, "DIV", 0.10,
        "Slots spent re-issuing instructions (issued minus executed).",
        TD_KIND_COMPUTED, replay_share, "#6a3d9a",
        "Replay = max(0, IPC_issued - IPC) / IPC_MAX. Instructions issued more than once (e.g. address divergence, bank conflicts on older GPUs)."},
    [TD_N_FRONTEND] = {"Frontend", "Frontend", -1, 1, "FE", 0.20,
        "Unused slots where warps waited for instructions to be fetched, decoded or released by synchronization.",
        TD_KIND_STALL_SPLIT, NULL, "#1f77b4",
        "Frontend = Stalled * S(Frontend) / S: the share of unused slots whose warps stalled for front-end reasons."},
    [TD_N_FETCH] = {"Fetch", "Frontend.Fetch", TD_N_FRONTEND, 2, "FE", 0.10,
        "Warps waiting for the next instruction: instruction cache misses, branch targets, barriers.",
        TD_KIND_STALL_SPLIT, NULL, "#3182bd",
        "Fetch = Instruction_Fetch + Branch_Resolving + Synchronization."},
    [TD_N_INSTRUCTION_FETCH] = {"Instruction_Fetch", "Frontend.Fetch.Instruction_Fetch", TD_N_FETCH, 3, "FE", 0.10,
        "Instruction cache misses: the next instruction was not fetched yet (stall no_instruction).",
        TD_KIND_STALL_SPLIT, NULL, "#08519c",
        "Stall reason no_instruction. Fix: smaller hot loops (less unrolling, fewer template instantiations in one kernel)."},
    [TD_N_BRANCH_RESOLVING] = {"Branch_Resolving", "Frontend.Fetch.Branch_Resolving", TD_N_FETCH, 3, "FE", 0.10,
        "Waiting for a branch target to be computed or the warp PC to be updated.",
        TD_KIND_STALL_SPLIT, NULL, "#4292c6",
        "Stall reason branch_resolving. Fix: fewer or uniform branches."},
    [TD_N_SYNCHRONIZATION] = {"Synchronization", "Frontend.Fetch.Synchronization", TD_N_FETCH, 3, "FE", 0.10,
        "Waiting at barriers (__syncthreads), memory barriers (__threadfence) or in nanosleep.",
        TD_KIND_STALL_SPLIT, NULL, "#9ecae1",
        "Stall reasons barrier, membar, sleeping. Fix: balance work between the warps of a block, fewer barriers and fences."},
    [TD_N_DECODE] = {"Decode", "Frontend.Decode", TD_N_FRONTEND, 2, "FE", 0.10,
        "Warps selected but not dispatched, and other front-end stalls.",
        TD_KIND_STALL_SPLIT, NULL, "#17becf",
        "Decode = Dispatch + Misc."},
    [TD_N_DISPATCH] = {"Dispatch", "Frontend.Decode.Dispatch", TD_N_DECODE, 3, "FE", 0.10,
        "The dispatcher could not issue the selected warp's instruction (pipeline conflict).",
        TD_KIND_STALL_SPLIT, NULL, "#0e8a96",
        "Stall reason dispatch_stall."},
    [TD_N_MISC] = {"Misc", "Frontend.Decode.Misc", TD_N_DECODE, 3, "FE", 0.10,
        "Miscellaneous hardware reasons (stall misc).",
        TD_KIND_STALL_SPLIT, NULL, "#8fdbe3",
        "Stall reason misc."},
    [TD_N_BACKEND] = {"Backend", "Backend", -1, 1, "BE", 0.20,
        "Unused slots where warps waited for memory or for execution resources.",
        TD_KIND_STALL_SPLIT, NULL, "#d62728",
        "Backend = Stalled * S(Backend) / S: the share of unused slots whose warps stalled on memory or execution resources."},
    [TD_N_MEMORY_BOUND] = {"Memory_Bound", "Backend.Memory_Bound", TD_N_BACKEND, 2, "BE", 0.10,
        "Warps waiting on the memory system: global, local, texture, shared or constant memory.",
        TD_KIND_STALL_SPLIT, NULL, "#cb181d",
        "Memory_Bound = L1_Bound + MIO_Bound + Constant_Memory + Drain."},
    [TD_N_L1_BOUND] = {"L1_Bound", "Backend.Memory_Bound.L1_Bound", TD_N_MEMORY_BOUND, 3, "BE", 0.10,
        "Waiting for L1TEX (global, local, texture) results, or its queues being full.",
        TD_KIND_STALL_SPLIT, NULL, "#a50f15",
        "Stall reasons long_scoreboard, lg_throttle, tex_throttle. Fix: coalesce accesses, improve locality, more loads in flight, fewer local-memory spills."},
    [TD_N_MIO_BOUND] = {"MIO_Bound", "Backend.Memory_Bound.MIO_Bound", TD_N_MEMORY_BOUND, 3, "BE", 0.10,
        "Waiting on the MIO path: shared memory results, special math results, or the MIO queue being full.",
        TD_KIND_STALL_SPLIT, NULL, "#ef3b2c",
        "Stall reasons mio_throttle, short_scoreboard. Fix: avoid shared-memory bank conflicts, fewer special-function or shared-memory instructions."},
    [TD_N_CONSTANT_MEMORY] = {"Constant_Memory", "Backend.Memory_Bound.Constant_Memory", TD_N_MEMORY_BOUND, 3, "BE", 0.10,
        "Immediate constant cache misses (divergent or first-time __constant__ accesses).",
        TD_KIND_STALL_SPLIT, NULL, "#fc9272",
        "Stall reason imc_miss. Fix: uniform indexing of __constant__ data within a warp, or use global memory for divergent tables."},
    [TD_N_DRAIN] = {"Drain", "Backend.Memory_Bound.Drain", TD_N_MEMORY_BOUND, 3, "BE", 0.10,
        "Waiting at exit for outstanding memory writes to drain.",
        TD_KIND_STALL_SPLIT, NULL, "#67000d",
        "Stall reason drain."},
    [TD_N_CORE_BOUND] = {"Core_Bound", "Backend.Core_Bound", TD_N_BACKEND, 2, "BE", 0.10,
        "Warps waiting on execution units: busy pipes, fixed-latency dependencies, tensor cores.",
        TD_KIND_STALL_SPLIT, NULL, "#ff7f0e",
        "Core_Bound = Math_Pipe + Dependency_Wait + Tensor."},
    [TD_N_MATH_PIPE] = {"Math_Pipe", "Backend.Core_Bound.Math_Pipe", TD_N_CORE_BOUND, 3, "BE", 0.10,
        "An execution pipe (FMA, ALU, FP64, XU...) was busy: the kernel saturates a math unit.",
        TD_KIND_STALL_SPLIT, NULL, "#d94801",
        "Stall reason math_pipe_throttle. Fix: use a wider pipe (FP32 instead of FP64 on consumer GPUs, fewer transcendental functions), or accept: the kernel is compute-bound."},
    [TD_N_DEPENDENCY_WAIT] = {"Dependency_Wait", "Backend.Core_Bound.Dependency_Wait", TD_N_CORE_BOUND, 3, "BE", 0.10,
        "Waiting on a fixed-latency dependency: too little instruction-level parallelism or too few warps.",
        TD_KIND_STALL_SPLIT, NULL, "#fdae6b",
        "Stall reason wait. Fix: more independent instructions (unrolling, more accumulators) or more resident warps."},
    [TD_N_TENSOR] = {"Tensor", "Backend.Core_Bound.Tensor", TD_N_CORE_BOUND, 3, "BE", 0.10,
        "Waiting on warpgroup matrix (GMMA) operations of the tensor cores (Hopper).",
        TD_KIND_STALL_SPLIT, NULL, "#8c510a",
        "Stall reason gmma (CC 9.0)."},
};

static const td_node_set builtin = {nodes, TD_NODE_COUNT};

const td_node_set *td_nodes_builtin(void)
{
    return &builtin;
}

const td_node_info *td_node_get(int node)
{
    return (node >= 0 && node < TD_NODE_COUNT) ? &nodes[node] : NULL;
}

int td_node_set_find(const td_node_set *set, const char *path_or_name)
{
    if (!path_or_name)
        return -1;
    for (int n = 0; n < set->count; n++)
        if (strcmp(set->nodes[n].path, path_or_name) == 0)
            return n;
    for (int n = 0; n < set->count; n++)
        if (strcmp(set->nodes[n].name, path_or_name) == 0)
            return n;
    return -1;
}

int td_node_find(const char *path_or_name)
{
    return td_node_set_find(&builtin, path_or_name);
}

const char *td_node_long_desc(int node)
{
    return (node >= 0 && node < TD_NODE_COUNT) ? nodes[node].long_desc : NULL;
}

const char *td_kind_name(td_node_kind kind)
{
    static const char *const names[] = {
        [TD_KIND_USEFUL] = "useful",
        [TD_KIND_COMPUTED] = "computed",
        [TD_KIND_STALL_SPLIT] = "stall_split",
        [TD_KIND_STALL] = "stall",
        [TD_KIND_SOURCE] = "source",
    };
    return kind >= 0 && kind <= TD_KIND_SOURCE ? names[kind] : "?";
}
