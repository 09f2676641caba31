"""A stand-in for torch in the kfdmp_worker tests: set_num_threads and the
torch.cuda calls the helper makes. FAKE_TORCH_NO_GPU=1: no GPU."""
import os
import time

threads_set = None


def set_num_threads(n):
    global threads_set
    threads_set = n


class _Event(object):
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3  # ms, as torch


class _Cuda(object):
    Event = _Event

    @staticmethod
    def is_available():
        return os.environ.get("FAKE_TORCH_NO_GPU") != "1"

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def get_device_name(i=0):
        return "Fake GPU 9000"


cuda = _Cuda()
