"""kfdmp_reference.py without torch: the presets, the sizing of the
mi300x-8.7ms preset by its stated method, the FLOP count, and a clear error
(never a hang or a silent stock run) where torch is missing.

    python3 tests/test_kfdmp_reference.py [-v]
"""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
sys.path.insert(0, PYDIR)
import kfdmp_reference as ref  # noqa: E402

SCRIPT = os.path.join(PYDIR, "kfdmp_reference.py")


def have_torch():
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        return False


def run(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = PYDIR
    p = subprocess.Popen([sys.executable] + list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    out, err = p.communicate(b"kfdmp 1 hello index=0 workers=1\nconfig end\n", timeout=60)
    return p.returncode, out.decode(), err.decode()


class Reference(unittest.TestCase):
    def test_gpt2_flops(self):
        # one token, one position: 12 layers x (qkv + proj + 2 MLP) + LM head,
        # 2 FLOPs per multiply-add, plus 4*S*d per layer of attention
        d, V = 768, 50257
        want = 2 * (12 * (3 * d * d + d * d + 8 * d * d) + d * V) + 12 * 4 * d
        self.assertEqual(ref.gpt2_flops(1, 1), want)
        # 2 x 123.5M weights of the matmuls per token, plus attention at S = 128
        self.assertAlmostEqual(ref.gpt2_flops(8, 128) / (8 * 128) / 1e6, 247.06 + 4.72, delta=0.01)

    def test_sizing_efficiency_is_the_h100_measurement(self):
        """SIZING_EFFICIENCY is what the H100 measured on 2026-11-27 (one
        process, gpt2 batch 24 seq 256 in 12.66 ms: 0.126; before, batch 52 in
        25.07 ms gave 0.138, and an assumed 0.30 before that)."""
        m = ref.SIZING_MEASURED
        e = ref.gpt2_flops(m["batch"], m["seq"]) / (m["ms"] * 1e-3 * ref.PEAK_TFLOPS[m["gpu"]] * 1e12)
        self.assertAlmostEqual(e, 0.126, delta=0.0005)
        self.assertEqual(ref.SIZING_EFFICIENCY, round(e, 3))
        self.assertEqual((m["gpu"], m["date"]), ("h100-sxm", "2026-11-27"))

    def test_field_preset_is_the_sizing_method(self):
        p = ref.PRESETS["mi300x-8.7ms"]
        # the H100 run's summary: "batch for 8.7 ms at seq 256: 22"
        self.assertEqual(p["batch"], 22)
        batch, flops, ms = ref.size_for(ref.FIELD_MS, ref.SIZING_EFFICIENCY, ref.PEAK_TFLOPS["mi300x"],
                                        p["seq"])
        self.assertEqual((p["model"], p["batch"], p["seq"]), ("gpt2", batch, ref.FIELD_SEQ))
        self.assertAlmostEqual(ms, 8.7, delta=0.1)
        self.assertAlmostEqual(1000.0 / ms, 115, delta=2)

    def test_cli_without_torch(self):
        rc, out, err = run(SCRIPT, "--list-presets")
        self.assertEqual(rc, 0, err)
        for name in ("gpt2-b8-s128", "resnet50-b32", "mi300x-8.7ms"):
            self.assertIn(name, out)
        rc, out, err = run(SCRIPT, "--size-for", "8.7")
        self.assertEqual(rc, 0, err)
        self.assertTrue(out.startswith("gpt2 batch=%d seq=256 " % ref.PRESETS["mi300x-8.7ms"]["batch"]), out)
        rc, out, err = run(SCRIPT, "--flops", "--preset", "gpt2-b8-s128")
        self.assertEqual((rc, float(out)), (0, float(ref.gpt2_flops(8, 128))))
        rc, out, err = run(SCRIPT, "--batch", "0")
        self.assertEqual(rc, 2)
        self.assertIn("--batch 0: must be >= 1", err)
        rc, out, err = run(SCRIPT, "--model", "gpt2", "--seq", "2048")
        if not have_torch():
            self.assertEqual(rc, 1, err)

    @unittest.skipIf(have_torch(), "torch is installed here")
    def test_served_without_torch_is_an_error(self):
        rc, out, err = run(SCRIPT, "--preset", "gpt2-b8-s128")
        self.assertEqual(rc, 1, err)
        self.assertTrue(out.startswith("kfdmp 1 error setup failed: ") and "torch" in out, out)


if __name__ == "__main__":
    unittest.main()
