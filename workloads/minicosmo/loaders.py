"""Loader strategies of minicosmo and the I/O bandwidth limit (see README.md, "Loaders").

    original     reads and decodes each batch in the training step
    ring_buffer  worker threads read and decode batches into a bounded buffer ahead of the step
    compressed   as original, from samples stored compressed (prepare.py --compress), decompressed
                 at fetch: fewer bytes through the limit, more decoding work

A TokenBucket shared by all readers of a rank limits the bytes read from the data files.
"""

import io
import lzma
import os
import threading
import time
import zlib

import numpy as np

LOADERS = ("original", "ring_buffer", "compressed")
# Suffix of a compressed sample file (sample_00000.npy.zlib) -> decompressor.
CODECS = {"zlib": zlib.decompress, "lzma": lzma.decompress}
COMPRESS = {"zlib": lambda b: zlib.compress(b, 6), "lzma": lambda b: lzma.compress(b, preset=1)}
CHUNK = 64 * 1024  # bytes per read through the bucket


class TokenBucket:
    """At most `mbps` x 10^6 bytes per second over all threads that call take().

    A token bucket without burst, as a device of that bandwidth: n bytes are
    available n/rate seconds after the previous request's bytes (or now, if the
    link was idle). Each request reserves its share of the link under the lock
    and sleeps outside it, so concurrent readers share the rate in arrival order.
    """

    def __init__(self, mbps):
        self.rate = mbps * 1e6
        self.next_free = 0.0
        self.lock = threading.Lock()

    def take(self, n):
        with self.lock:
            now = time.monotonic()
            self.next_free = max(self.next_free, now) + n / self.rate
            wait = self.next_free - now
        if wait > 0:
            time.sleep(wait)


def read_file(path, bucket):
    """The bytes of path, read in chunks through the bucket (None: unlimited)."""
    with open(path, "rb", buffering=0) as f:
        if bucket is None:
            return f.read()
        size = os.fstat(f.fileno()).st_size
        parts = []
        for off in range(0, size, CHUNK):
            n = min(CHUNK, size - off)
            bucket.take(n)
            parts.append(f.read(n))
        return b"".join(parts)


def decode(raw, codec=None):
    """An .npy file's bytes (compressed with codec, a CODECS key, if given) -> array."""
    if codec is not None:
        raw = CODECS[codec](raw)
    return np.load(io.BytesIO(raw), allow_pickle=False)


def sample_files(split_dir, compressed):
    """(sorted sample files, codec) of a split: sample_*.npy, or sample_*.npy.<codec>."""
    names = sorted(os.listdir(split_dir)) if os.path.isdir(split_dir) else []
    if not compressed:
        return [os.path.join(split_dir, n) for n in names
                if n.startswith("sample_") and n.endswith(".npy")], None
    for codec in CODECS:
        files = [os.path.join(split_dir, n) for n in names
                 if n.startswith("sample_") and n.endswith(".npy." + codec)]
        if files:
            return files, codec
    raise SystemExit("train.py: no compressed samples (sample_*.npy.zlib or .lzma) in %s "
                     "(run prepare.py --compress)" % split_dir)


class Direct:
    """original and compressed: the batch is read and decoded when the step asks for it.

    Every loader keeps `last_fetch`, (start, done) in Unix seconds of reading and
    decoding the batch it yielded last: DS-Analyzer's fetch start and fetch done.
    """

    def __init__(self, dataset):
        self.ds = dataset
        self.last_fetch = None

    def batches(self, epoch):
        for s in range(self.ds.steps):
            start = time.time()
            item = self.ds.batch(epoch, s)
            self.last_fetch = (start, time.time())
            yield item

    def close(self):
        pass


class RingBuffer:
    """Worker threads fill a buffer of at most `size` batches, in (epoch, step) order
    over the whole run, ahead of the training step that takes them.

    A worker takes the next (epoch, step) only after it got a free slot, so the
    batch the step waits for is always in the buffer or being made: workers
    that finish out of order cannot fill the buffer and starve it.
    """

    def __init__(self, dataset, n_epochs, size, workers):
        self.ds = dataset
        self.jobs = ((e, s) for e in range(n_epochs) for s in range(dataset.steps))
        self.slots = threading.Semaphore(size)
        self.cond = threading.Condition()
        self.ready = {}
        self.last_fetch = None  # as Direct's: here the worker's reading and decoding
        self.stopped = False
        self.workers = [threading.Thread(target=self._work, daemon=True, name="loader%d" % i)
                        for i in range(workers)]
        for t in self.workers:
            t.start()

    def _work(self):
        while True:
            self.slots.acquire()
            with self.cond:
                job = None if self.stopped else next(self.jobs, None)
            if job is None:
                return
            start = time.time()
            try:
                item = self.ds.batch(*job)
            except BaseException as exc:  # handed to the step, which raises it
                item = exc
            fetch = (start, time.time())
            with self.cond:
                self.ready[job] = (item, fetch)
                self.cond.notify_all()

    def batches(self, epoch):
        for s in range(self.ds.steps):
            with self.cond:
                while (epoch, s) not in self.ready:
                    self.cond.wait()
                item, self.last_fetch = self.ready.pop((epoch, s))
            self.slots.release()
            if isinstance(item, BaseException):
                raise item
            yield item

    def close(self):
        with self.cond:
            self.stopped = True
        for _ in self.workers:
            self.slots.release()


def make_loader(name, dataset, n_epochs, buffer_size, workers):
    if name == "ring_buffer":
        return RingBuffer(dataset, n_epochs, buffer_size, workers)
    return Direct(dataset)
