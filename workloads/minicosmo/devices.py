"""Where a minicosmo rank trains (--rank-gpu) and the backend of its gradients (README.md, "GPUs").

A rank asked for a GPU that sees CUDA devices trains on cuda:(LOCAL_RANK mod visible devices): a
launcher or Slurm that hands each rank its own devices (CUDA_VISIBLE_DEVICES) leaves it cuda:0, one
that shows a node's ranks all its GPUs gives local rank i the i-th. Any other rank trains on the CPU.

The backend is agreed collectively, not by a rule: whether a rank sees a GPU depends on its own node
and CUDA_VISIBLE_DEVICES, which the other ranks cannot know. The process group is always gloo (it also
carries the barriers and the metrics, host tensors); over it every rank publishes its placement
(all_gather_object) and each computes backend_for() on the same list: NCCL, in a second group for
DistributedDataParallel, when every rank has a GPU of its own; gloo otherwise (a rank on the CPU, or
two ranks on one GPU, which NCCL refuses). The list also gives rank 0 every rank's device to record.
"""

import os
import socket

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


# --------------------------------------------------------------------------
# Decisions (pure: unit-tested with the device count and the placements given)
# --------------------------------------------------------------------------

def device_for(rank_gpu, local_rank, device_count):
    """'cuda:<local_rank mod device_count>' when a GPU is asked for and one is visible, else 'cpu'."""
    if not rank_gpu or device_count < 1:
        return "cpu"
    return "cuda:%d" % (local_rank % device_count)


def shared_gpus(placements):
    """{GPU: ranks} of the GPUs that more than one rank trains on."""
    ranks = {}
    for r, p in enumerate(placements):
        if p["gpu"] is not None:
            ranks.setdefault(p["gpu"], []).append(r)
    return {g: rs for g, rs in ranks.items() if len(rs) > 1}


def backend_for(placements):
    """The gradients' backend from every rank's placement: nccl when each rank has a GPU of its own
    and torch has NCCL, else gloo."""
    if placements and all(p["gpu"] is not None and p["nccl"] for p in placements) \
            and not shared_gpus(placements):
        return "nccl"
    return "gloo"


def gpu_note(rank_gpu, placements):
    """The one line rank 0 prints when --rank-gpu did not give every rank a GPU of its own, else None."""
    if not rank_gpu:
        return None
    cpu = [r for r, p in enumerate(placements) if p["gpu"] is None]
    if len(cpu) == len(placements):
        why = sorted({p["reason"] for p in placements})
        return "minicosmo: --rank-gpu: no GPU visible (%s); training on the CPU" % "; ".join(why)
    if cpu:
        return ("minicosmo: --rank-gpu: rank(s) %s see no GPU (%s) and train on the CPU; "
                "gradients over gloo" % (", ".join(map(str, cpu)), placements[cpu[0]]["reason"]))
    shared = shared_gpus(placements)
    if shared:
        return ("minicosmo: --rank-gpu: ranks share a GPU (%s); gradients over gloo (NCCL needs a "
                "GPU per rank)" % "; ".join("ranks %s on %s" % (", ".join(map(str, rs)), g)
                                            for g, rs in sorted(shared.items())))
    if backend_for(placements) != "nccl" and len(placements) > 1:
        return "minicosmo: --rank-gpu: torch has no NCCL; gradients over gloo"
    return None


# --------------------------------------------------------------------------
# This rank's placement (torch)
# --------------------------------------------------------------------------

def gpu_identity(index):
    """host/<GPU UUID>, or host/<its CUDA_VISIBLE_DEVICES entry> where torch gives no UUID (older
    versions): then two ranks that Slurm binds to different GPUs, each seeing its own as '0', look alike
    and train with gloo, slower but correct."""
    uuid = getattr(torch.cuda.get_device_properties(index), "uuid", None)
    if uuid is None:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        entries = visible.split(",") if visible else []
        uuid = entries[index] if index < len(entries) else str(index)
    return "%s/%s" % (socket.gethostname(), uuid)


def local_placement(rank_gpu, local_rank):
    """{device, gpu (identity or None), reason (why no GPU, or None), nccl} of this rank."""
    count = 0
    reason = None
    if rank_gpu:
        if not torch.backends.cuda.is_built():
            reason = "torch built without CUDA"
        elif not torch.cuda.is_available() or torch.cuda.device_count() < 1:
            reason = "no CUDA device visible"
        else:
            count = torch.cuda.device_count()
    device = device_for(rank_gpu, local_rank, count)
    gpu = gpu_identity(torch.device(device).index) if device != "cpu" else None
    return {"device": device, "gpu": gpu, "reason": reason,
            "nccl": gpu is not None and dist.is_nccl_available()}


class Placement:
    """A rank's device, every rank's placement and the gradients' process group."""

    def __init__(self, placements, rank, backend, group):
        self.placements = placements
        self.device = torch.device(placements[rank]["device"])
        self.on_gpu = self.device.type == "cuda"
        self.backend = backend  # None: a single process
        self.group = group      # the NCCL group, or None: the default (gloo) group

    def summary(self):
        """'Devices: rank 0 cuda:0 (host/GPU-...), rank 1 cpu; gradients over gloo'."""
        ranks = ", ".join("rank %d %s" % (r, p["device"]) + (" (%s)" % p["gpu"] if p["gpu"] else "")
                          for r, p in enumerate(self.placements))
        return "Devices: " + ranks + ("; gradients over %s" % self.backend if self.backend else "")

    def pin(self, t):
        """A host tensor in page-locked memory when training on a GPU, so that to() is asynchronous.
        Pinned under this rank's device: a loader thread would otherwise open a context on GPU 0."""
        if not self.on_gpu:
            return t
        with torch.cuda.device(self.device):
            return t.pin_memory()

    def to(self, t):
        return t.to(self.device, non_blocking=True)

    def synchronize(self):
        """Waits for the rank's GPU work (kernels, NCCL all-reduce), so that a timing includes it."""
        if self.on_gpu:
            torch.cuda.synchronize(self.device)

    def wrap(self, net):
        """DistributedDataParallel over this rank's device and the agreed backend."""
        return DistributedDataParallel(net, device_ids=[self.device.index] if self.on_gpu else None,
                                       process_group=self.group)


def place(rank_gpu, rank, local_rank, distributed, timeout):
    """Chooses this rank's device and, with distributed (the default gloo group initialised), agrees
    on the gradients' backend with the other ranks (every rank calls it)."""
    mine = local_placement(rank_gpu, local_rank)
    if mine["gpu"] is not None:
        torch.cuda.set_device(torch.device(mine["device"]))  # NCCL and the caching allocator use it
    if not distributed:
        return Placement([mine], 0, None, None)
    placements = [None] * dist.get_world_size()
    dist.all_gather_object(placements, mine)
    backend = backend_for(placements)
    group = dist.new_group(backend="nccl", timeout=timeout) if backend == "nccl" else None
    return Placement(placements, rank, backend, group)
