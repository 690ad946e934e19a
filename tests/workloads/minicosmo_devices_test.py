"""Unit tests of minicosmo's device and backend choice (workloads/minicosmo/devices.py).

Run by tests/workloads/minicosmo_devices.sh:  cd tests/workloads && python3 -B -m unittest -v minicosmo_devices_test
The visible GPUs are mocked (torch.cuda), so they run on a machine without any.
"""

import os
import socket
import sys
import types
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "workloads",
                                "minicosmo"))
import devices  # noqa: E402
import torch  # noqa: E402

HOST = socket.gethostname()


def gpu(name, nccl=True):
    return {"device": "cuda:0", "gpu": name, "reason": None, "nccl": nccl}


def cpu(reason="no CUDA device visible"):
    return {"device": "cpu", "gpu": None, "reason": reason, "nccl": False}


class DeviceFor(unittest.TestCase):
    def test_cpu_unless_asked_and_visible(self):
        self.assertEqual(devices.device_for(False, 0, 4), "cpu")
        self.assertEqual(devices.device_for(True, 0, 0), "cpu")

    def test_local_rank_modulo_visible_devices(self):
        # All of a node's GPUs visible to each rank (srun without binding, torchrun): rank i, GPU i.
        self.assertEqual([devices.device_for(True, r, 4) for r in range(6)],
                         ["cuda:0", "cuda:1", "cuda:2", "cuda:3", "cuda:0", "cuda:1"])
        # Each rank handed its own GPU (CUDA_VISIBLE_DEVICES per rank, Slurm binding): always cuda:0.
        self.assertEqual([devices.device_for(True, r, 1) for r in range(3)], ["cuda:0"] * 3)


class BackendFor(unittest.TestCase):
    def test_nccl_when_every_rank_has_its_own_gpu(self):
        self.assertEqual(devices.backend_for([gpu("h/GPU-a"), gpu("h/GPU-b")]), "nccl")
        self.assertEqual(devices.backend_for([gpu("h1/GPU-a"), gpu("h2/GPU-a")]), "nccl")

    def test_gloo_otherwise(self):
        self.assertEqual(devices.backend_for([gpu("h/GPU-a"), cpu()]), "gloo")
        self.assertEqual(devices.backend_for([cpu(), cpu()]), "gloo")
        self.assertEqual(devices.backend_for([gpu("h/GPU-a"), gpu("h/GPU-a")]), "gloo")  # shared
        self.assertEqual(devices.backend_for([gpu("h/GPU-a", False), gpu("h/GPU-b", False)]), "gloo")
        self.assertEqual(devices.backend_for([]), "gloo")


class GpuNote(unittest.TestCase):
    def test_silent_without_rank_gpu_or_when_all_have_a_gpu(self):
        self.assertIsNone(devices.gpu_note(False, [cpu(), cpu()]))
        self.assertIsNone(devices.gpu_note(True, [gpu("h/GPU-a"), gpu("h/GPU-b")]))
        self.assertIsNone(devices.gpu_note(True, [gpu("h/GPU-a", nccl=False)]))  # 1 rank: no group

    def test_no_gpu_anywhere(self):
        self.assertEqual(devices.gpu_note(True, [cpu("torch built without CUDA")] * 2),
                         "minicosmo: --rank-gpu: no GPU visible (torch built without CUDA); "
                         "training on the CPU")

    def test_some_ranks_without_gpu(self):
        note = devices.gpu_note(True, [gpu("h/GPU-a"), cpu(), gpu("h/GPU-b"), cpu()])
        self.assertIn("rank(s) 1, 3 see no GPU (no CUDA device visible)", note)
        self.assertIn("gloo", note)

    def test_shared_gpu(self):
        note = devices.gpu_note(True, [gpu("h/GPU-a"), gpu("h/GPU-a")])
        self.assertIn("ranks 0, 1 on h/GPU-a", note)
        self.assertIn("gloo", note)

    def test_no_nccl(self):
        self.assertIn("no NCCL", devices.gpu_note(True, [gpu("h/GPU-a", False), gpu("h/GPU-b", False)]))


class LocalPlacement(unittest.TestCase):
    """This rank's placement with the visible GPUs mocked."""

    def visible(self, count, uuid=True, built=True):
        props = (lambda i: types.SimpleNamespace(uuid="GPU-%d" % i)) if uuid else \
            (lambda i: types.SimpleNamespace())
        patches = [mock.patch.object(torch.backends.cuda, "is_built", return_value=built),
                   mock.patch.object(torch.cuda, "is_available", return_value=count > 0),
                   mock.patch.object(torch.cuda, "device_count", return_value=count),
                   mock.patch.object(torch.cuda, "get_device_properties", side_effect=props),
                   mock.patch.object(devices.dist, "is_nccl_available", return_value=True)]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)

    def test_gpu_by_local_rank(self):
        self.visible(2)
        self.assertEqual(devices.local_placement(True, 3),
                         {"device": "cuda:1", "gpu": HOST + "/GPU-1", "reason": None, "nccl": True})

    def test_two_local_ranks_on_one_gpu_agree_on_gloo(self):
        self.visible(1)
        both = [devices.local_placement(True, r) for r in (0, 1)]
        self.assertEqual([p["device"] for p in both], ["cuda:0", "cuda:0"])
        self.assertEqual(devices.backend_for(both), "gloo")
        self.visible(2)
        self.assertEqual(devices.backend_for([devices.local_placement(True, r) for r in (0, 1)]), "nccl")

    def test_identity_without_uuid_is_the_visible_entry(self):
        self.visible(2, uuid=False)
        with mock.patch.dict(os.environ, {"CUDA_VISIBLE_DEVICES": "2,3"}):
            self.assertEqual(devices.local_placement(True, 1)["gpu"], HOST + "/3")

    def test_no_device_or_no_cuda_build(self):
        self.visible(0)
        self.assertEqual(devices.local_placement(True, 0),
                         {"device": "cpu", "gpu": None, "reason": "no CUDA device visible", "nccl": False})
        self.visible(0, built=False)
        self.assertEqual(devices.local_placement(True, 0)["reason"], "torch built without CUDA")

    def test_cpu_path_never_asks_cuda(self):
        self.visible(4)
        self.assertEqual(devices.local_placement(False, 0)["device"], "cpu")
        torch.cuda.device_count.assert_not_called()
        torch.cuda.is_available.assert_not_called()


class CpuPlacement(unittest.TestCase):
    def test_cpu_tensors_stay_where_they_are(self):
        place = devices.Placement([cpu()], 0, None, None)
        t = torch.ones(2)
        self.assertIs(place.pin(t), t)
        self.assertIs(place.to(t), t)  # no copy: the same results as before --rank-gpu existed
        place.synchronize()
        self.assertEqual(place.summary(), "Devices: rank 0 cpu")


if __name__ == "__main__":
    unittest.main()
