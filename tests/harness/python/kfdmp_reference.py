#!/usr/bin/env python3
"""Reference real workloads for `kfdmp --exec`: a decoder transformer
(GPT-2-small shape) and a CNN (ResNet-50 shape), fp16, random weights,
nothing downloaded, served through kfdmp_worker.serve.

    kfdmp --exec 'python3 kfdmp_reference.py --preset gpt2-b8-s128' ...
    python3 -m kfdmp_worker --standalone --duration 4 --warmup 2 -- \\
        kfdmp_reference.py --preset resnet50-b32
    python3 kfdmp_reference.py --list-presets
    python3 kfdmp_reference.py --flops --preset mi300x-8.7ms
    python3 kfdmp_reference.py --size-for 8.7 [--efficiency 0.126] [--peak-tflops 1307.4] [--seq 256]

A query is one forward pass of the whole batch (no autograd), on the current
stream; kfdmp_worker times it with torch.cuda.Event and waits for it. The
models come from transformers (GPT2LMHeadModel from a GPT2Config) and
torchvision (resnet50(weights=None)) where installed, else from the
equivalent pure-torch definitions below (same layer shapes, same FLOPs);
`--impl torch` forces those. torch.cuda is the same API on ROCm and CUDA
builds of PyTorch. `option graph=1` (kfdmp --graph) captures the forward
once as a torch.cuda.CUDAGraph and replays it; where the capture fails the
arm is answered `unsupported graph REASON`.

The presets and how `mi300x-8.7ms` was sized: docs/exec-workers.md,
"Reference workloads". No torch is needed for --list-presets, --flops
(gpt2) and --size-for.
"""
import argparse
import math
import os
import sys
import time

_T0 = time.time()  # the setup phases below are timed from here

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

# GPT-2 small: 12 layers, 768 hidden, 12 heads, vocab 50257, 1024 positions.
GPT2 = dict(layers=12, hidden=768, heads=12, vocab=50257, positions=1024)
# Dense fp16 (tensor/matrix core) peaks, TFLOP/s, without sparsity.
PEAK_TFLOPS = {"mi300x": 1307.4, "h100-sxm": 989.4}
# The efficiency (achieved FLOP/s / dense fp16 peak) the field preset is sized
# with: MEASURED on the H100 with one process, at the shape it sizes. First
# (2026-11-27, 05:27 UTC) gpt2 batch 52 x 256 took 25.07 ms a query: 0.138,
# which gave batch 24; batch 24 then took 12.66 ms (kfdmp --exec N = 1, median
# of 3 time-sliced repeats, 08:5x UTC; GPU time 12.5 ms): 1.576e12 /
# (12.66e-3 x 989.4e12) = 0.126 (the smaller batch reaches a lower fraction),
# which gives batch 22, 8.77 ms predicted
# (tests/harness/results/h100/2026-11-27-exec-reference/README.md). ASSUMED to
# carry over to the MI300X: that is the weak point (eager PyTorch on ROCm may
# reach another fraction of peak); the box's N = 1 QPS of this preset is the
# check. The box's MI308X has 80 CUs, not the MI300X's 304: the same preset
# takes about 3.8x longer there; --size-for MS --peak-tflops P [--efficiency E]
# sizes for another GPU.
SIZING_EFFICIENCY = 0.126
SIZING_MEASURED = dict(gpu="h100-sxm", date="2026-11-27", batch=24, seq=256, ms=12.66)
FIELD_MS = 8.7  # 1 / 115 QPS, the field's one process on an MI300X
FIELD_SEQ = 256

PRESETS = {
    "gpt2-b8-s128": dict(model="gpt2", batch=8, seq=128),
    "resnet50-b32": dict(model="resnet50", batch=32, image=224),
    # sized by --size-for 8.7 --seq 256 at SIZING_EFFICIENCY (measured on the
    # H100, assumed on the MI300X) on the MI300X peak: batch 22, 8.77 ms predicted
    "mi300x-8.7ms": dict(model="gpt2", batch=22, seq=256),
}


def gpt2_flops(batch, seq, cfg=GPT2):
    """FLOPs of one forward (2 per multiply-add): every Linear, the full
    S x S attention products (causal kernels may skip half: counted in full)
    and the LM head over every position. Embeddings, norms, softmax and GELU
    are not counted."""
    d, L, V = cfg["hidden"], cfg["layers"], cfg["vocab"]
    tokens = batch * seq
    per_layer_linear = d * 3 * d + d * d + d * 4 * d + 4 * d * d
    linear = 2 * tokens * (L * per_layer_linear + d * V)
    attention = L * 2 * 2 * batch * seq * seq * d
    return linear + attention


def size_for(ms, efficiency, peak_tflops, seq):
    """The GPT-2 batch whose forward takes `ms` at `efficiency` of
    `peak_tflops`: (batch, FLOPs, predicted ms)."""
    target = ms * 1e-3 * peak_tflops * 1e12 * efficiency
    per_seq = gpt2_flops(1, seq)
    batch = max(1, int(round(target / per_seq)))
    f = gpt2_flops(batch, seq)
    return batch, f, f / (peak_tflops * 1e12 * efficiency) * 1e3


# --- pure-torch models (used where transformers/torchvision are missing) ----
def _torch_models(torch):
    nn = torch.nn
    F = torch.nn.functional

    class Attention(nn.Module):
        def __init__(self, d, heads):
            nn.Module.__init__(self)
            self.heads = heads
            self.c_attn = nn.Linear(d, 3 * d)
            self.c_proj = nn.Linear(d, d)

        def forward(self, x):
            b, s, d = x.shape
            q, k, v = self.c_attn(x).split(d, dim=2)
            shape = (b, s, self.heads, d // self.heads)
            q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
            if hasattr(F, "scaled_dot_product_attention"):
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
                mask = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
                att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
                y = att @ v
            return self.c_proj(y.transpose(1, 2).reshape(b, s, d))

    class Block(nn.Module):
        def __init__(self, d, heads):
            nn.Module.__init__(self)
            self.ln_1 = nn.LayerNorm(d)
            self.attn = Attention(d, heads)
            self.ln_2 = nn.LayerNorm(d)
            self.c_fc = nn.Linear(d, 4 * d)
            self.c_proj = nn.Linear(4 * d, d)
            self.gelu_kw = {"approximate": "tanh"} if _gelu_has_approximate(F) else {}

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x)), **self.gelu_kw))

    class GPT2(nn.Module):
        def __init__(self, c):
            nn.Module.__init__(self)
            self.wte = nn.Embedding(c["vocab"], c["hidden"])
            self.wpe = nn.Embedding(c["positions"], c["hidden"])
            self.h = nn.ModuleList([Block(c["hidden"], c["heads"]) for _ in range(c["layers"])])
            self.ln_f = nn.LayerNorm(c["hidden"])
            self.lm_head = nn.Linear(c["hidden"], c["vocab"], bias=False)
            self.lm_head.weight = self.wte.weight  # tied, as GPT-2

        def forward(self, ids):
            pos = torch.arange(ids.shape[1], device=ids.device)
            x = self.wte(ids) + self.wpe(pos)
            for blk in self.h:
                x = blk(x)
            return self.lm_head(self.ln_f(x))

    class Bottleneck(nn.Module):
        def __init__(self, cin, width, stride):
            nn.Module.__init__(self)
            cout = width * 4
            self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(width)
            self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                          nn.BatchNorm2d(cout))

        def forward(self, x):
            y = F.relu(self.bn1(self.conv1(x)))
            y = F.relu(self.bn2(self.conv2(y)))
            y = self.bn3(self.conv3(y))
            return F.relu(y + (x if self.down is None else self.down(x)))

    class ResNet50(nn.Module):
        def __init__(self):
            nn.Module.__init__(self)
            self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.pool = nn.MaxPool2d(3, stride=2, padding=1)
            blocks, cin = [], 64
            for width, n, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
                for i in range(n):
                    blocks.append(Bottleneck(cin, width, stride if i == 0 else 1))
                    cin = width * 4
            self.layers = nn.Sequential(*blocks)
            self.fc = nn.Linear(2048, 1000)

        def forward(self, x):
            x = self.pool(F.relu(self.bn1(self.conv1(x))))
            x = self.layers(x)
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))

    return GPT2, ResNet50


def _gelu_has_approximate(F):
    try:
        import inspect
        return "approximate" in str(inspect.signature(F.gelu))
    except (TypeError, ValueError):
        return False


def build(args, torch):
    """(model, input, implementation) on args.device in args.dtype.

    Where torch.device is a context manager (torch 2.0 and later), the model
    is constructed on args.device, so its random initialisation runs there
    rather than on the CPU (several seconds for GPT-2 on a loaded host)."""
    dev = torch.device(args.device)
    if hasattr(dev, "__enter__"):
        with dev:
            return _build(args, torch)
    return _build(args, torch)


def _build(args, torch):
    dtype = {"fp16": torch.float16, "fp32": torch.float32, "bf16": torch.bfloat16}[args.dtype]
    dev = torch.device(args.device)
    torch.manual_seed(1234)
    impl = None
    if args.model == "gpt2":
        if args.seq > GPT2["positions"]:
            raise ValueError("--seq %d: GPT-2 has %d positions" % (args.seq, GPT2["positions"]))
        model = None
        if args.impl in ("auto", "hf"):
            try:
                import transformers
                conf = transformers.GPT2Config(n_layer=GPT2["layers"], n_embd=GPT2["hidden"],
                                               n_head=GPT2["heads"], vocab_size=GPT2["vocab"],
                                               n_positions=GPT2["positions"], use_cache=False)
                model = transformers.GPT2LMHeadModel(conf)
                impl = "transformers-%s" % transformers.__version__
            except ImportError:
                if args.impl == "hf":
                    raise
        if model is None:
            model = _torch_models(torch)[0](GPT2)
            impl = "pure-torch"
        inp = torch.randint(0, GPT2["vocab"], (args.batch, args.seq), device=dev)
    else:
        model = None
        if args.impl in ("auto", "hf"):
            try:
                import torchvision
                try:
                    model = torchvision.models.resnet50(weights=None)
                except TypeError:  # torchvision < 0.13
                    model = torchvision.models.resnet50(pretrained=False)
                impl = "torchvision-%s" % torchvision.__version__
            except ImportError:
                if args.impl == "hf":
                    raise
        if model is None:
            model = _torch_models(torch)[1]()
            impl = "pure-torch"
        inp = torch.randn(args.batch, 3, args.image, args.image, device=dev, dtype=dtype)
    model = model.to(device=dev, dtype=dtype).eval()
    if args.channels_last and args.model == "resnet50":
        model = model.to(memory_format=torch.channels_last)
        inp = inp.contiguous(memory_format=torch.channels_last)
    return model, inp, impl


def conv_flops(model, inp, torch):
    """FLOPs of Conv2d and Linear layers in one forward, by hooks."""
    total = [0]

    def hook(mod, args, out):
        if isinstance(mod, torch.nn.Conv2d):
            k = mod.weight.shape[1] * mod.weight.shape[2] * mod.weight.shape[3]
            total[0] += 2 * out.numel() * k
        else:
            total[0] += 2 * out.numel() * mod.weight.shape[1]

    hs = [m.register_forward_hook(hook) for m in model.modules()
          if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    try:
        with torch.no_grad():
            model(inp)
    finally:
        for h in hs:
            h.remove()
    return total[0]


class Reference(object):
    def __init__(self, args):
        self.args = args

    def setup(self, cfg):
        import kfdmp_worker
        t_import = time.time()
        import torch
        t_torch = time.time()
        args = self.args
        if args.device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("torch.cuda is not available (torch %s); --device cpu runs on the CPU"
                               % torch.__version__)
        model, inp, impl = build(args, torch)
        t_build = time.time()
        self.torch, self.model, self.inp = torch, model, inp
        ctx = torch.inference_mode if hasattr(torch, "inference_mode") else torch.no_grad

        def forward():
            with ctx():
                return model(inp)

        forward()  # first-use costs (kernel selection, allocator)
        if args.device == "cuda":
            torch.cuda.synchronize()
        t_first = time.time()
        flops = gpt2_flops(args.batch, args.seq) if args.model == "gpt2" else conv_flops(model, inp, torch)
        run = forward
        if cfg.graph:
            if args.device != "cuda":
                raise kfdmp_worker.Unsupported("graph", "no graph replay on --device cpu")
            run = self.capture(torch, model, inp)
        if args.device == "cuda":
            torch.cuda.synchronize()
        cfg.gpu_time = args.device == "cuda"
        if args.device == "cuda":
            # kfdmp_worker records an event after run() and waits for it:
            # the query ends when its GPU work has
            cfg.device = torch.cuda.get_device_name(torch.cuda.current_device())
        sys.stderr.write("kfdmp_reference: %s batch=%d %s %s %s impl=%s graph=%d flops/query=%.4g "
                         "torch=%s hip=%s cuda=%s threads=%d "
                         "setup_s: start=%.1f torch=%.1f build=%.1f first=%.1f rest=%.1f\n" % (
                             args.model, args.batch,
                             "seq=%d" % args.seq if args.model == "gpt2" else "image=%d" % args.image,
                             args.dtype, args.device, impl, int(bool(cfg.graph)), flops,
                             torch.__version__, getattr(torch.version, "hip", None),
                             getattr(torch.version, "cuda", None), torch.get_num_threads(),
                             t_import - _T0, t_torch - t_import, t_build - t_torch,
                             t_first - t_build, time.time() - t_first))
        return run

    def capture(self, torch, model, inp):
        """The forward as a CUDA/HIP graph; Unsupported where capture fails."""
        import kfdmp_worker
        try:
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s), torch.no_grad():
                for _ in range(3):
                    model(inp)
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.no_grad(), torch.cuda.graph(g):
                self.static_out = model(inp)
            torch.cuda.synchronize()
        except Exception as e:
            raise kfdmp_worker.Unsupported("graph", "capturing the forward failed: %s: %s"
                                           % (type(e).__name__, " ".join(str(e).split())[:300]))
        return g.replay


def parse(argv):
    ap = argparse.ArgumentParser(description="Reference PyTorch workloads for kfdmp --exec "
                                 "(docs/exec-workers.md)")
    ap.add_argument("--preset", choices=sorted(PRESETS), help="a named model/batch/seq")
    ap.add_argument("--model", choices=("gpt2", "resnet50"))
    ap.add_argument("--batch", type=int)
    ap.add_argument("--seq", type=int, help="gpt2: tokens per sequence")
    ap.add_argument("--image", type=int, help="resnet50: image side (default 224)")
    ap.add_argument("--dtype", choices=("fp16", "bf16", "fp32"), default="fp16")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                    help="cuda: the torch.cuda device (ROCm or CUDA); cpu: for smoke tests")
    ap.add_argument("--impl", choices=("auto", "hf", "torch"), default="auto",
                    help="auto: transformers/torchvision where installed, else pure torch")
    ap.add_argument("--channels-last", action="store_true", help="resnet50: NHWC memory format")
    ap.add_argument("--list-presets", action="store_true")
    ap.add_argument("--flops", action="store_true", help="print FLOPs per query and exit")
    ap.add_argument("--size-for", type=float, metavar="MS",
                    help="print the gpt2 batch (at --seq, default %d) whose query takes MS" % FIELD_SEQ)
    ap.add_argument("--efficiency", type=float, default=SIZING_EFFICIENCY,
                    help="achieved fraction of the dense peak for --size-for (default %.2f)" % SIZING_EFFICIENCY)
    ap.add_argument("--peak-tflops", type=float, default=PEAK_TFLOPS["mi300x"],
                    help="dense fp16 peak for --size-for (default MI300X %.1f)" % PEAK_TFLOPS["mi300x"])
    args = ap.parse_args(argv)
    if args.preset:
        p = PRESETS[args.preset]
        for k, v in p.items():
            if getattr(args, k) is None:
                setattr(args, k, v)
    if args.model is None:
        args.model = "gpt2"
    if args.batch is None:
        args.batch = 8 if args.model == "gpt2" else 32
    if args.seq is None:
        args.seq = 128 if args.size_for is None else FIELD_SEQ
    if args.image is None:
        args.image = 224
    for name in ("batch", "seq", "image"):
        if getattr(args, name) < 1:
            ap.error("--%s %d: must be >= 1" % (name, getattr(args, name)))
    if not 0 < args.efficiency <= 1:
        ap.error("--efficiency %g: must be in (0, 1]" % args.efficiency)
    if args.size_for is not None and args.size_for <= 0:
        ap.error("--size-for %g: must be > 0" % args.size_for)
    return args


def main(argv):
    args = parse(argv)
    if args.list_presets:
        for name in sorted(PRESETS):
            p = PRESETS[name]
            extra = ("seq=%d flops/query=%.4g" % (p["seq"], gpt2_flops(p["batch"], p["seq"]))
                     if p["model"] == "gpt2" else "image=%d" % p["image"])
            print("%-14s %s batch=%d %s" % (name, p["model"], p["batch"], extra))
        return 0
    if args.size_for is not None:
        batch, f, ms = size_for(args.size_for, args.efficiency, args.peak_tflops, args.seq)
        print("gpt2 batch=%d seq=%d flops/query=%.4g predicted_ms=%.2f (efficiency %.2f of %.1f TFLOP/s)"
              % (batch, args.seq, f, ms, args.efficiency, args.peak_tflops))
        return 0
    if args.flops:
        if args.model == "gpt2":
            print("%d" % gpt2_flops(args.batch, args.seq))
            return 0
        try:
            import torch
        except ImportError as e:
            sys.stderr.write("kfdmp_reference: --flops of %s counts with torch (%s)\n" % (args.model, e))
            return 1
        args.device, args.dtype = "cpu", "fp32"
        model, inp, _ = build(args, torch)
        print("%d" % (conv_flops(model, inp[:1], torch) * args.batch))
        return 0
    import kfdmp_worker
    ref = Reference(args)
    kfdmp_worker.serve(lambda run: run(), ref.setup, supports=("graph",))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
