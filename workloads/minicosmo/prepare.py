#!/usr/bin/env python3
"""Generate a synthetic CosmoFlow-style data set as .npy files.

Layout (see README.md):
    DIR/train/sample_00000.npy ...   int16 [D, D, D, C] "particle counts"
    DIR/train/targets.npy            float32 [N, 4] parameters in [-1, 1]
    DIR/train/sample_00000.npy.zlib  with --compress zlib (or .lzma): the same, compressed
    DIR/validation/...               same layout, n_valid samples
    DIR/dataset.yaml                 written last: shapes, counts, seed

The fields are log-normal random fields whose mean, contrast and per-channel
tilt depend on the four targets, so a small 3D CNN can actually learn them.
"""

import argparse
import os
import sys
import time

import numpy as np
import yaml

sys.dont_write_bytecode = True  # no __pycache__ next to the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loaders  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", required=True, help="output directory")
    p.add_argument("--n-samples", type=int, required=True,
                   help="number of training samples (files in train/)")
    p.add_argument("--n-valid", type=int, default=None,
                   help="number of validation samples (default: n-samples / 4, at least 1)")
    p.add_argument("--sample-shape", type=int, nargs=4, default=[16, 16, 16, 4],
                   metavar=("D", "H", "W", "C"), help="sample shape, channels last")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compress", choices=sorted(loaders.COMPRESS),
                   help="also write each sample compressed, sample_*.npy.<codec> "
                        "(for train.py --loader compressed)")
    return p.parse_args(argv)


def _smooth_kernel(shape, width):
    """Fourier-space Gaussian filter for a periodic box of spatial shape."""
    freqs = [np.fft.fftfreq(n) for n in shape[:2]] + [np.fft.rfftfreq(shape[2])]
    k2 = sum(np.meshgrid(*[f ** 2 for f in freqs], indexing="ij"))
    return np.exp(-0.5 * k2 * (2 * np.pi * width) ** 2)


def make_sample(rng, shape, target, kernel):
    d, h, w, c = shape
    noise = rng.standard_normal((c, d, h, w))
    field = np.fft.irfftn(np.fft.rfftn(noise, axes=(1, 2, 3)) * kernel,
                          s=(d, h, w), axes=(1, 2, 3))
    field /= field.std() + 1e-12
    mean = 1.5 + 0.75 * target[0]
    contrast = 0.6 + 0.3 * target[1]
    tilt = 1.0 + 0.4 * target[2] * np.linspace(-1.0, 1.0, c)
    rate = np.exp(mean + contrast * field + 0.3 * target[3] * field ** 2 / 2)
    rate *= tilt[:, None, None, None]
    counts = rng.poisson(rate).clip(0, np.iinfo(np.int16).max).astype(np.int16)
    return np.ascontiguousarray(np.moveaxis(counts, 0, -1))  # channels last


def write_split(root, name, n, shape, rng, kernel, codec):
    out = os.path.join(root, name)
    os.makedirs(out, exist_ok=True)
    targets = rng.uniform(-1.0, 1.0, size=(n, 4)).astype(np.float32)
    raw = packed = 0
    for i in range(n):
        path = os.path.join(out, "sample_%05d.npy" % i)
        np.save(path, make_sample(rng, shape, targets[i], kernel))
        if codec:
            with open(path, "rb") as f:
                data = f.read()
            with open(path + "." + codec, "wb") as f:
                f.write(loaders.COMPRESS[codec](data))
                raw, packed = raw + len(data), packed + f.tell()
    np.save(os.path.join(out, "targets.npy"), targets)
    return raw, packed


def main(argv=None):
    args = parse_args(argv)
    if args.n_samples < 1:
        sys.exit("prepare.py: --n-samples must be >= 1")
    n_valid = args.n_valid if args.n_valid is not None else max(1, args.n_samples // 4)
    shape = list(args.sample_shape)
    t0 = time.time()
    manifest = os.path.join(args.data_dir, "dataset.yaml")
    if os.path.exists(manifest):
        os.remove(manifest)  # incomplete until rewritten at the end
    rng = np.random.default_rng(args.seed)
    kernel = _smooth_kernel(shape[:3], width=1.5)
    r1, p1 = write_split(args.data_dir, "train", args.n_samples, shape, rng, kernel, args.compress)
    r2, p2 = write_split(args.data_dir, "validation", n_valid, shape, rng, kernel, args.compress)
    info = {"format": "minicosmo-npy-v1", "sample_shape": shape, "sample_dtype": "int16",
            "target_shape": [4], "n_train": args.n_samples, "n_valid": n_valid, "seed": args.seed}
    if args.compress:
        info["compressed"] = {"codec": args.compress, "ratio": round((r1 + r2) / (p1 + p2), 3)}
    with open(manifest, "w") as f:
        yaml.safe_dump(info, f, sort_keys=False)
    print("Wrote %d train + %d validation samples of shape %s to %s in %.2fs%s"
          % (args.n_samples, n_valid, shape, args.data_dir, time.time() - t0,
             ", also %s-compressed (ratio %.2f)" % (args.compress, (r1 + r2) / (p1 + p2))
             if args.compress else ""))


if __name__ == "__main__":
    main()
