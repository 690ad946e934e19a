#!/usr/bin/env python3
"""minicosmo: a small CosmoFlow-style 3D CNN regression trainer (PyTorch, CPU or GPU).

Command line compatible with the CosmoFlow reference train.py:

    train.py [config.yaml] [--distributed] [--rank-gpu] [--n-train N]
             [--n-valid N] [--n-epochs E] [--batch-size B] [--output-dir DIR]
             [--data-dir DIR] [--dummy-data]
             [--loader original|ring_buffer|compressed] [--io-limit MBPS]

Data-parallel over the ranks a launcher started (torch.distributed,
DistributedDataParallel; with --rank-gpu on each rank's GPU, NCCL when every rank
has one: devices.py). See README.md for the data and output formats.
"""

import time

import argparse  # noqa: E402
import copy  # noqa: E402
import datetime  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402
import yaml  # noqa: E402

_T_TORCH = time.time()
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn as nn  # noqa: E402
TORCH_IMPORT_SECONDS = time.time() - _T_TORCH

sys.dont_write_bytecode = True  # no __pycache__ next to the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devices  # noqa: E402
import loaders  # noqa: E402
from mllog import MLLogger  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
HISTORY_HEADER = ["epoch", "loss", "lr", "mae", "time", "val_loss", "val_mae"]
EPOCHS_HEADER = ["epoch", "start_time", "end_time", "epoch_time"]
STALLS_HEADER = ["Iteration", "Epoch", "Fetch time (sec)", "Fetch done time (sec)",
                 "Training start (sec)", "Iteration time (sec)", "Training Stall time (sec)",
                 "Compute time (sec)"]

DEFAULT_CONFIG = {
    "output_dir": "results/minicosmo",
    "mlperf": {"org": "campaign", "division": "closed", "status": "onprem",
               "platform": None},
    "data": {"name": "cosmo", "data_dir": "data/minicosmo", "n_train": 256,
             "n_valid": 64, "sample_shape": [16, 16, 16, 4], "target_shape": [4],
             "batch_size": 8, "n_epochs": 4, "shard": True, "apply_log": True,
             "n_dummy_samples": 32, "loader": "original", "io_limit": None,
             "buffer_size": 4, "loader_workers": 1},
    "model": {"name": "cosmoflow", "conv_size": 16, "n_conv_layers": 3,
              "kernel_size": 3, "fc1_size": 128, "fc2_size": 64,
              "hidden_activation": "LeakyReLU", "dropout": 0.0},
    "optimizer": {"name": "SGD", "lr": 0.01, "momentum": 0.9},
    "lr_schedule": {"scaling": "none", "base_batch_size": 8,
                    "n_warmup_epochs": 0, "decay_schedule": {}},
    "train": {"loss": "mse", "metrics": ["mae"], "seed": 0, "threads": 1},
}


def log(msg):
    print(msg, flush=True)


# --------------------------------------------------------------------------
# Command line and configuration
# --------------------------------------------------------------------------

def parse_args(argv=None):
    p = argparse.ArgumentParser(description="minicosmo CosmoFlow-style trainer")
    p.add_argument("config", nargs="?", default=os.path.join(HERE, "configs", "cosmo.yaml"),
                   help="YAML config (default: configs/cosmo.yaml next to this script)")
    p.add_argument("--distributed", action="store_true",
                   help="data-parallel over ranks from RANK/WORLD_SIZE or Slurm env")
    p.add_argument("--rank-gpu", action="store_true",
                   help="train on a GPU: cuda:(LOCAL_RANK mod visible devices); the CPU, with a "
                        "note, where none is visible")
    p.add_argument("--n-train", type=int)
    p.add_argument("--n-valid", type=int)
    p.add_argument("--n-epochs", type=int)
    p.add_argument("--batch-size", type=int, help="per-rank batch size")
    p.add_argument("--output-dir")
    p.add_argument("--data-dir")
    p.add_argument("--dummy-data", action="store_true", help="use in-memory random data")
    p.add_argument("--loader", choices=loaders.LOADERS,
                   help="original: read+decode in the step; ring_buffer: worker threads fill a "
                        "bounded buffer ahead; compressed: samples from prepare.py --compress")
    p.add_argument("--ring-buffer", dest="loader", action="store_const", const="ring_buffer",
                   help="the same as --loader ring_buffer")
    p.add_argument("--buffer-size", type=int, help="ring buffer: batches buffered (default 4)")
    p.add_argument("--workers", type=int, dest="loader_workers",
                   help="ring buffer: worker threads (default 1)")
    p.add_argument("--io-limit", type=float, metavar="MBPS",
                   help="limit the bytes read from the data files to MBPS x 10^6 per second per rank")
    p.add_argument("--seed", type=int)
    p.add_argument("--threads", type=int, help="torch threads per rank (default 1)")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds before a stuck collective fails (default 300)")
    p.add_argument("--instance", type=int,
                   help="instance of an MLPerf HPC weak-scaling run: every :::MLLOG record "
                        "carries metadata.instance_id")
    p.add_argument("--target-mae", type=float,
                   help="quality target: stop when the validation MAE reaches it "
                        "(run_stop status success, else aborted)")
    return p.parse_args(argv)


def deep_update(base, upd):
    for k, v in (upd or {}).items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            deep_update(base[k], v)
        else:
            base[k] = v
    return base


def load_config(args):
    cfg = copy.deepcopy(DEFAULT_CONFIG)
    with open(args.config) as f:
        deep_update(cfg, yaml.safe_load(f) or {})
    d = cfg["data"]
    for key in ("n_train", "n_valid", "n_epochs", "batch_size", "data_dir", "loader",
                "io_limit", "buffer_size", "loader_workers"):
        val = getattr(args, key)
        if val is not None:
            d[key] = val
    if args.dummy_data:
        d["name"] = "dummy"
    if args.output_dir is not None:
        cfg["output_dir"] = args.output_dir
    if args.seed is not None:
        cfg["train"]["seed"] = args.seed
    if args.threads is not None:
        cfg["train"]["threads"] = args.threads
    if args.target_mae is not None:
        cfg["train"]["target_mae"] = args.target_mae
    if d["name"] not in ("cosmo", "dummy"):
        raise SystemExit("train.py: data.name must be 'cosmo' or 'dummy', got %r" % d["name"])
    if d["loader"] not in loaders.LOADERS:
        raise SystemExit("train.py: data.loader must be one of %s, got %r"
                         % (", ".join(loaders.LOADERS), d["loader"]))
    if d["io_limit"] is not None and not d["io_limit"] >= 0:
        raise SystemExit("train.py: --io-limit must be >= 0 MB/s (0: no limit)")
    if d["buffer_size"] < 1 or d["loader_workers"] < 1:
        raise SystemExit("train.py: need buffer_size >= 1 and loader workers >= 1")
    if d["batch_size"] < 1 or d["n_epochs"] < 0 or d["n_train"] < 1 or d["n_valid"] < 0:
        raise SystemExit("train.py: need batch_size >= 1, n_train >= 1, n_valid >= 0, n_epochs >= 0")
    return cfg


# --------------------------------------------------------------------------
# Rank detection
# --------------------------------------------------------------------------

def first_host(nodelist):
    """First host name of a Slurm node list, e.g. 'nid[00012-00015],nid00020'."""
    try:
        out = subprocess.run(["scontrol", "show", "hostnames", nodelist],
                             capture_output=True, text=True, timeout=30)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.split()[0]
    except (OSError, subprocess.SubprocessError):
        pass
    m = re.match(r"([^,\[]*)(?:\[([^\]]*)\])?([^,]*)", nodelist.strip())
    if not m or not (m.group(1) or m.group(2)):
        return None
    first = ""
    if m.group(2):
        first = re.split(r"[,-]", m.group(2))[0]
    return m.group(1) + first + m.group(3)


def detect_ranks(distributed):
    """Returns dict(rank, size, local_rank, addr, port, source)."""
    env = os.environ
    info = {"rank": 0, "size": 1, "local_rank": 0, "addr": None, "port": None,
            "source": "single"}
    if not distributed:
        return info
    if "RANK" in env and "WORLD_SIZE" in env:
        info.update(rank=int(env["RANK"]), size=int(env["WORLD_SIZE"]),
                    local_rank=int(env.get("LOCAL_RANK", env["RANK"])),
                    addr=env.get("MASTER_ADDR", "127.0.0.1"),
                    port=int(env.get("MASTER_PORT", "29500")), source="env")
    elif "SLURM_PROCID" in env:
        size = int(env.get("SLURM_NTASKS", env.get("SLURM_NPROCS", "1")))
        addr = env.get("MASTER_ADDR")
        if not addr:
            # A step's own nodes first: instances of one job are steps on different nodes.
            nodelist = env.get("SLURM_STEP_NODELIST",
                               env.get("SLURM_JOB_NODELIST", env.get("SLURM_NODELIST", "")))
            addr = (first_host(nodelist) if nodelist else None) or "127.0.0.1"
        port = env.get("MASTER_PORT")
        if not port:
            jobid = env.get("SLURM_JOB_ID", env.get("SLURM_JOBID", "0"))
            jobid = int(re.sub(r"\D", "", jobid) or 0)
            step = int(re.sub(r"\D", "", env.get("SLURM_STEP_ID", "0")) or 0)
            port = 20000 + (jobid + 1009 * step) % 20000
        info.update(rank=int(env["SLURM_PROCID"]), size=size,
                    local_rank=int(env.get("SLURM_LOCALID", "0")),
                    addr=addr, port=int(port), source="slurm")
    else:
        log("Note: --distributed given but neither RANK/WORLD_SIZE nor SLURM_PROCID is set; "
            "running a single process")
    if not 0 <= info["rank"] < info["size"]:
        raise SystemExit("train.py: rank %d outside world size %d" % (info["rank"], info["size"]))
    return info


# --------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------

def steps_for(n_samples, n_shards, batch_size, what):
    per_shard = n_samples // n_shards
    if n_samples % (n_shards * batch_size):
        log("Warning: %s=%d not divisible by shards*batch_size=%d; dropping the remainder"
            % (what, n_samples, n_shards * batch_size))
    return per_shard // batch_size


class NpyDataset:
    """Reads DIR/<split>/sample_*.npy (or .npy.<codec> when compressed) + targets.npy
    (written by prepare.py).

    Sample i of the n_samples used per epoch is file i % n_files, so fewer files
    than samples are cycled. With shard, rank r takes every size-th sample of a
    shuffled order shared by all ranks; without, every rank reads all n_samples.
    batch(epoch, step) reads the files through the rank's I/O limit (bucket, or
    None) and decodes them, then pin (devices.Placement.pin) readies them for the copy
    to the device; it is safe to call from several threads.
    """

    def __init__(self, split_dir, n_samples, cfg_data, rank, size, seed, shuffle,
                 compressed=False, bucket=None, pin=lambda t: t):
        self.files, self.codec = loaders.sample_files(split_dir, compressed)
        tpath = os.path.join(split_dir, "targets.npy")
        if not self.files or not os.path.exists(tpath):
            raise SystemExit("train.py: no sample_*.npy/targets.npy in %s (run prepare.py)" % split_dir)
        self.targets = np.load(tpath).astype(np.float32)
        if len(self.targets) < len(self.files):
            raise SystemExit("train.py: %s has fewer targets than sample files" % tpath)
        shape = tuple(cfg_data["sample_shape"])
        probe = loaders.decode(loaders.read_file(self.files[0], None), self.codec)
        if tuple(probe.shape) != shape:
            raise SystemExit("train.py: %s has shape %s, config sample_shape is %s"
                             % (self.files[0], tuple(probe.shape), shape))
        self.n_samples = n_samples
        self.batch_size = cfg_data["batch_size"]
        self.shard = bool(cfg_data.get("shard", True))
        self.apply_log = bool(cfg_data.get("apply_log", True))
        self.rank, self.size = rank, size
        self.seed, self.shuffle = seed, shuffle
        self.bucket = bucket
        self.pin = pin
        n_shards = size if self.shard else 1
        self.steps = steps_for(n_samples, n_shards, self.batch_size,
                               "n_" + os.path.basename(split_dir))

    def order(self, epoch):
        idx = np.arange(self.n_samples)
        if self.shuffle:
            # Shared order when sharding (disjoint shards), per-rank order otherwise.
            salt = 0 if self.shard else 7919 * (self.rank + 1)
            idx = np.random.default_rng(self.seed + 1000003 * epoch + salt).permutation(idx)
        if self.shard:
            idx = idx[self.rank::self.size]
        return idx

    def batch(self, epoch, step):
        B = self.batch_size
        sel = self.order(epoch)[step * B:(step + 1) * B] % len(self.files)
        x = np.stack([loaders.decode(loaders.read_file(self.files[i], self.bucket), self.codec)
                      for i in sel]).astype(np.float32)
        if self.apply_log:
            np.log1p(x, out=x)
        else:
            x /= x.mean(axis=(1, 2, 3, 4), keepdims=True) + 1e-12
        x = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 4, 1, 2, 3)))
        return self.pin(x), self.pin(torch.from_numpy(self.targets[sel]))


class DummyDataset:
    """Random tensors generated once in memory (pinned by pin) and repeated, like the reference."""

    def __init__(self, n_samples, cfg_data, rank, size, seed, pin=lambda t: t):
        d, h, w, c = cfg_data["sample_shape"]
        B = cfg_data["batch_size"]
        pool = max(1, math.ceil(cfg_data.get("n_dummy_samples", 32) / B)) * B
        g = torch.Generator().manual_seed(seed + rank)
        self.x = pin(torch.rand((pool, c, d, h, w), generator=g))
        self.y = pin(torch.rand((pool,) + tuple(cfg_data.get("target_shape", [4])), generator=g))
        self.pool, self.batch_size = pool, B
        n_shards = size if cfg_data.get("shard", True) else 1
        self.steps = steps_for(n_samples, n_shards, B, "n_samples (dummy)")

    def batch(self, epoch, step):
        B = self.batch_size
        o = (step * B) % self.pool  # pool is a multiple of B: slices are views
        return self.x[o:o + B], self.y[o:o + B]


# --------------------------------------------------------------------------
# Model and learning rate
# --------------------------------------------------------------------------

def build_model(cfg_model, cfg_data):
    d, h, w, c = cfg_data["sample_shape"]
    act = getattr(nn, cfg_model.get("hidden_activation", "LeakyReLU"))
    k = int(cfg_model.get("kernel_size", 3))
    layers, ch = [], c
    spatial = [d, h, w]
    for i in range(int(cfg_model.get("n_conv_layers", 3))):
        out = int(cfg_model.get("conv_size", 16)) * 2 ** i
        layers += [nn.Conv3d(ch, out, k, padding=k // 2), act(), nn.MaxPool3d(2)]
        ch = out
        spatial = [s // 2 for s in spatial]
        if min(spatial) < 1:
            raise SystemExit("train.py: too many conv layers for sample_shape %s" % cfg_data["sample_shape"])
    flat = ch * spatial[0] * spatial[1] * spatial[2]
    drop = float(cfg_model.get("dropout", 0.0))
    fc1, fc2 = int(cfg_model.get("fc1_size", 128)), int(cfg_model.get("fc2_size", 64))
    n_out = int(np.prod(cfg_data.get("target_shape", [4])))
    layers += [nn.Flatten(), nn.Linear(flat, fc1), act(), nn.Dropout(drop),
               nn.Linear(fc1, fc2), act(), nn.Dropout(drop), nn.Linear(fc2, n_out), nn.Tanh()]
    return nn.Sequential(*layers)


class LRSchedule:
    """Peak lr = optimizer.lr scaled by global/base batch size (none|linear|sqrt),
    linear warmup from optimizer.lr over n_warmup_epochs, step decay factors."""

    def __init__(self, cfg, global_batch):
        s = cfg.get("lr_schedule") or {}
        self.base = float(cfg["optimizer"]["lr"])
        ratio = global_batch / float(s.get("base_batch_size", global_batch) or global_batch)
        scaling = s.get("scaling", "none") or "none"
        factor = {"none": 1.0, "linear": ratio, "sqrt": math.sqrt(ratio)}.get(scaling)
        if factor is None:
            raise SystemExit("train.py: lr_schedule.scaling must be none, linear or sqrt")
        self.peak = self.base * factor
        self.warmup = int(s.get("n_warmup_epochs", 0) or 0)
        self.decay = sorted((int(e), float(f)) for e, f in (s.get("decay_schedule") or {}).items())

    def __call__(self, epoch):
        if epoch < self.warmup:
            return self.base + (self.peak - self.base) * epoch / self.warmup
        lr = self.peak
        for e, f in self.decay:
            if epoch >= e:
                lr = self.peak * f
        return lr


# --------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------

def allreduce_sum(values, distributed):
    t = torch.tensor(values, dtype=torch.float64)
    if distributed:
        dist.all_reduce(t)
    return t.tolist()


def fmt(v):
    return "nan" if v is None or (isinstance(v, float) and math.isnan(v)) else "%.6g" % v


def main(argv=None):
    args = parse_args(argv)
    cfg = load_config(args)
    info = detect_ranks(args.distributed)
    is_root = info["rank"] == 0
    threads = int(cfg["train"].get("threads", 1))
    torch.set_num_threads(threads)
    torch.set_flush_denormal(True)  # keep step time independent of the data values
    seed = int(cfg["train"].get("seed", 0))
    torch.manual_seed(seed)
    mll = MLLogger(os.path.join(cfg["output_dir"], "mlperf.log") if is_root else None,
                   enabled=is_root,
                   metadata=None if args.instance is None else {"instance_id": args.instance})
    try:
        return run(args, cfg, info, mll, threads, seed)
    except BaseException as exc:
        if isinstance(exc, SystemExit) and exc.code in (0, None):
            raise
        mll.end("run_stop", metadata={"status": "aborted"})
        raise
    finally:
        mll.close()
        if dist.is_initialized():
            dist.destroy_process_group()


def run(args, cfg, info, mll, threads, seed):
    rank, size = info["rank"], info["size"]
    is_root = rank == 0
    d = cfg["data"]
    out_dir = cfg["output_dir"]

    mll.start("init_start")
    mlp = cfg.get("mlperf") or {}
    mll.event("submission_benchmark", "cosmoflow")
    mll.event("submission_org", mlp.get("org") or "campaign")
    mll.event("submission_division", mlp.get("division") or "closed")
    mll.event("submission_status", mlp.get("status") or "onprem")
    mll.event("submission_platform", mlp.get("platform") or socket.gethostname())
    mll.event("number_of_ranks", size)
    if args.instance is not None:
        mll.event("instance", args.instance)
    nnodes = os.environ.get("SLURM_JOB_NUM_NODES", os.environ.get("SLURM_NNODES"))
    if nnodes:
        mll.event("number_of_nodes", int(nnodes))

    if is_root:
        log("minicosmo: %d rank(s) (%s), %d thread(s)/rank, data %s, torch %s, "
            "torch import %.3fs" % (size, info["source"], threads, d["name"],
                                    torch.__version__, TORCH_IMPORT_SECONDS))

    distributed = size > 1
    timeout = datetime.timedelta(seconds=args.timeout)
    if distributed:
        # Always gloo (barriers, metrics); the gradients may get an NCCL group (devices.place).
        dist.init_process_group(
            "gloo", init_method="tcp://%s:%d" % (info["addr"], info["port"]),
            rank=rank, world_size=size, timeout=timeout)
    place = devices.place(args.rank_gpu, rank, info["local_rank"], distributed, timeout)
    note = devices.gpu_note(args.rank_gpu, place.placements)
    if is_root and note:
        print(note, file=sys.stderr, flush=True)
    if is_root and args.rank_gpu:
        log(place.summary())

    # Effective configuration (rank 0 writes it)
    if is_root:
        os.makedirs(out_dir, exist_ok=True)
        eff = copy.deepcopy(cfg)
        eff["n_ranks"] = size
        eff["distributed"] = {"world_size": size, "source": info["source"],
                              "master_addr": info["addr"], "master_port": info["port"],
                              "backend": place.backend}
        eff["devices"] = place.placements
        eff["config_file"] = os.path.abspath(args.config)
        with open(os.path.join(out_dir, "config.yaml"), "w") as f:
            yaml.safe_dump(eff, f, sort_keys=False)
    mll.end("init_stop")
    mll.start("run_start")

    B = d["batch_size"]
    global_batch = B * size
    mll.event("global_batch_size", global_batch)
    mll.event("train_samples", d["n_train"])
    mll.event("eval_samples", d["n_valid"])
    if distributed:
        dist.barrier()
    mll.start("staging_start")
    if d["name"] == "dummy":
        train_data = DummyDataset(d["n_train"], d, rank, size, seed, place.pin)
        valid_data = (DummyDataset(d["n_valid"], d, rank, size, seed + 1, place.pin)
                      if d["n_valid"] else None)
    else:
        data_dir = os.path.expandvars(d["data_dir"])
        # One bucket per rank: its readers (step or workers, train and validation) share the limit.
        bucket = loaders.TokenBucket(d["io_limit"]) if d["io_limit"] else None
        compressed = d["loader"] == "compressed"
        train_data = NpyDataset(os.path.join(data_dir, "train"), d["n_train"], d,
                                rank, size, seed, True, compressed, bucket, place.pin)
        valid_data = (NpyDataset(os.path.join(data_dir, "validation"), d["n_valid"], d,
                                 rank, size, seed, False, compressed, bucket, place.pin)
                      if d["n_valid"] else None)
    if distributed:
        dist.barrier()
    mll.end("staging_stop")
    if train_data.steps < 1:
        raise SystemExit("train.py: n_train=%d gives 0 steps per rank with batch_size=%d, %d rank(s)"
                         % (d["n_train"], B, size))

    net = build_model(cfg["model"], d).to(place.device)  # the same initial weights on any device
    model = place.wrap(net) if distributed else net
    sched = LRSchedule(cfg, global_batch)
    ocfg = cfg["optimizer"]
    opt_name = ocfg.get("name", "SGD")
    if opt_name == "SGD":
        opt = torch.optim.SGD(net.parameters(), lr=sched(0), momentum=float(ocfg.get("momentum", 0.0)),
                              weight_decay=float(ocfg.get("weight_decay", 0.0)))
    elif opt_name == "Adam":
        opt = torch.optim.Adam(net.parameters(), lr=sched(0))
    else:
        raise SystemExit("train.py: optimizer.name must be SGD or Adam")
    mll.event("opt_name", opt_name)
    mll.event("opt_base_learning_rate", sched.peak)
    mll.event("opt_learning_rate_warmup_epochs", sched.warmup)
    mll.event("opt_learning_rate_warmup_factor", sched.peak / sched.base if sched.base else 1.0)
    mll.event("opt_learning_rate_decay_boundary_epochs", [e for e, _ in sched.decay])
    mll.event("opt_learning_rate_decay_factor", sched.decay[0][1] if sched.decay else 1.0)
    mse = nn.MSELoss()

    n_epochs = d["n_epochs"]
    hist_fh = epochs_fh = None
    if is_root:
        hist_fh = open(os.path.join(out_dir, "history.csv"), "w", buffering=1)
        hist_fh.write(",".join(HISTORY_HEADER) + "\n")
        epochs_fh = open(os.path.join(out_dir, "epochs.csv"), "w", buffering=1)
        epochs_fh.write(",".join(EPOCHS_HEADER) + "\n")
        log("Training: n_train %d n_valid %d batch_size %d/rank (global %d), shard %s, "
            "%d train + %d valid steps/rank/epoch"
            % (d["n_train"], d["n_valid"], B, global_batch, d.get("shard", True),
               train_data.steps, valid_data.steps if valid_data else 0))
        log("Loader: %s%s, I/O limit %s" % (
            d["loader"],
            " (%d batches, %d worker(s))" % (d["buffer_size"], d["loader_workers"])
            if d["loader"] == "ring_buffer" else "",
            "%g MB/s per rank" % d["io_limit"] if d["io_limit"] else "none"))
        if d["name"] == "dummy" and (d["loader"] != "original" or d["io_limit"]):
            log("Note: dummy data is in memory; --loader and --io-limit change nothing")
    os.makedirs(out_dir, exist_ok=True)
    stalls_fh = open(os.path.join(out_dir, "stalls-rank%d.csv" % rank), "w")
    stalls_fh.write(",".join(STALLS_HEADER) + "\n")
    train_loader = loaders.make_loader(d["loader"], train_data, n_epochs,
                                       d["buffer_size"], d["loader_workers"])
    valid_loader = (loaders.make_loader(d["loader"], valid_data, n_epochs,
                                        d["buffer_size"], d["loader_workers"])
                    if valid_data is not None and valid_data.steps > 0 else None)
    iteration = 0
    epoch_times = []
    last_val_mae = None
    target = cfg["train"].get("target_mae")
    if target is not None:
        mll.event("target_mae", float(target))
    reached = False
    for epoch in range(n_epochs):
        lr = sched(epoch)
        for g in opt.param_groups:
            g["lr"] = lr
        mll.start("epoch_start", metadata={"epoch_num": epoch})
        t0 = time.time()
        model.train()
        tl, tm, tn = 0.0, 0.0, 0
        # Per iteration: fetch (obtaining the batch), then compute; the stall is the part of
        # the iteration (from the previous one's end) that was not compute.
        stalls = []
        batches = train_loader.batches(epoch)
        t_prev = t0
        while True:
            x_y = next(batches, None)
            if x_y is None:
                break
            x, y = x_y
            t_ready = time.time()
            x, y = place.to(x), place.to(y)  # the copy to the GPU counts as compute
            opt.zero_grad(set_to_none=True)
            pred = model(x)
            loss = mse(pred, y)
            loss.backward()
            opt.step()
            tl += loss.item() * len(y)
            tm += (pred.detach() - y).abs().mean().item() * len(y)
            tn += len(y)
            place.synchronize()  # compute includes the GPU's kernels and all-reduce
            t_end = time.time()
            compute = t_end - t_ready
            # DS-Analyzer's fetch: the loader's reading and decoding of this batch (in a worker,
            # ahead of the step, for ring_buffer); fetch start = fetch done - fetch time.
            f_start, f_done = train_loader.last_fetch
            stalls.append("%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n" % (
                iteration, epoch, f_done - f_start, f_done, t_ready, t_end - t_prev,
                t_ready - t_prev, compute))
            iteration += 1
            t_prev = t_end
        stalls_fh.write("".join(stalls))
        stalls_fh.flush()
        if epochs_fh:
            epochs_fh.write("%d,%.6f,%.6f,%.6f\n" % (epoch, t0, t_prev, t_prev - t0))
        vl = vm = vn = 0.0
        if valid_loader is not None:
            mll.start("eval_start", metadata={"epoch_num": epoch})
            net.eval()
            with torch.no_grad():
                for x, y in valid_loader.batches(epoch):
                    x, y = place.to(x), place.to(y)
                    pred = net(x)
                    vl += ((pred - y) ** 2).mean().item() * len(y)
                    vm += (pred - y).abs().mean().item() * len(y)
                    vn += len(y)
        tl, tm, tn, vl, vm, vn = allreduce_sum([tl, tm, tn, vl, vm, vn], distributed)
        if valid_loader is not None:
            mll.end("eval_stop", metadata={"epoch_num": epoch})
        dt = time.time() - t0
        mll.end("epoch_stop", metadata={"epoch_num": epoch})
        epoch_times.append(dt)
        loss, mae = tl / tn, tm / tn
        val_loss = vl / vn if vn else float("nan")
        val_mae = vm / vn if vn else float("nan")
        if vn:
            last_val_mae = val_mae
            mll.event("eval_error", val_mae, metadata={"epoch_num": epoch})
        if is_root:
            hist_fh.write(",".join([str(epoch), fmt(loss), fmt(lr), fmt(mae), "%.6f" % dt,
                                    fmt(val_loss), fmt(val_mae)]) + "\n")
            log("Epoch %d/%d steps %d time %.3fs loss %.5f mae %.5f val_loss %s val_mae %s lr %.5g"
                % (epoch + 1, n_epochs, train_data.steps, dt, loss, mae,
                   fmt(val_loss), fmt(val_mae), lr))
        # As the MLPerf references: training stops at the first evaluation that reaches the target.
        if target is not None and vn and val_mae <= float(target):
            reached = True
            break
    for fh in (hist_fh, epochs_fh, stalls_fh):
        if fh:
            fh.close()
    for ld in (train_loader, valid_loader):
        if ld:
            ld.close()
    # Without a target every completed run is a success; with one, only a run that reached it.
    mll.end("run_stop", metadata={"status": "success" if target is None or reached else "aborted"})
    if is_root:
        if epoch_times:
            log("Mean epoch time: %.3f" % (sum(epoch_times) / len(epoch_times)))
        if last_val_mae is not None:
            log("Final val_mae: %.5f" % last_val_mae)
    return 0


if __name__ == "__main__":
    sys.exit(main())
