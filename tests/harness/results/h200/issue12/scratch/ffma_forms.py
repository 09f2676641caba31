# FFMA operand forms per kernel in an sm_90 cubin, without cuobjdump (none on the
# build machine): python3 ffma_forms.py X.cubin (nvcc -arch=sm_90 -cubin). An
# instruction is 16 bytes; FFMA = low 9 bits 0x023; low halfword 0x7223 = R,R,R,
# 0x7c23 = R,UR,R, 0x7a23 = R,c[],R. Checked against cuobjdump -sass of run 4.
import sys, struct, collections
d = open(sys.argv[1], 'rb').read()
shoff, = struct.unpack_from('<Q', d, 0x28); shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
secs = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize) for i in range(shnum)]
stro = secs[shstrndx][4]
name = lambda o: d[stro + o:d.index(b'\0', stro + o)].decode()
for s in secs:
    n = name(s[0])
    if not n.startswith('.text.'): continue
    c = collections.Counter(); regs = collections.Counter()
    for off in range(s[4], s[4] + s[5], 16):
        lo, = struct.unpack_from('<Q', d, off)
        if lo & 0x1ff == 0x023:
            form = {0x7223: 'R,R,R', 0x7c23: 'R,UR,R', 0x7a23: 'R,c,R'}.get(lo & 0xffff, hex(lo & 0xffff))
            c[form] += 1
            if form != 'R,UR,R': regs[('Rd%d Ra%d Rb%d' % (lo >> 16 & 0xff, lo >> 24 & 0xff, lo >> 32 & 0xff))] += 1
            else: regs[('Rd%d Ra%d URb%d' % (lo >> 16 & 0xff, lo >> 24 & 0xff, lo >> 32 & 0x3f))] += 1
    if c: print(n[6:], dict(c), [k for k in regs if isinstance(k, str)][:3])
# order of the first LDG and FFMA per kernel
for s in secs:
    n = name(s[0])
    if not n.startswith('.text.'): continue
    idx = {}
    for k, off in enumerate(range(s[4], s[4] + s[5], 16)):
        lo, = struct.unpack_from('<Q', d, off)
        for nm, code in (('LDG', 0x981), ('FFMA', 0x023), ('STG', 0x986)):
            if (lo & (0x1ff if nm == 'FFMA' else 0xfff)) == code: idx.setdefault(nm, k)
    if 'FFMA' in idx: print(n[6:][-40:], 'first instruction index:', idx)
