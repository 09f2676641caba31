#!/usr/bin/env python3
"""Checks of one file of one patch ported by scripts/port-series.sh.

    port-check.py --path P --ours O --base B --theirs T [--merged M]
                  [--pristine PR] [--resolve OUT]
    port-check.py --manifest FILE      the same for many files (see --help)

O is the destination's file before the patch, B and T the file before and
after the patch in the series' own base (the patch's intent), M what git's
3-way merge made of it (conflict markers included, diff3 style or not).
PR is the same file in the pristine vendor source, to tell local edits from
the vendor's own code.

It prints one tab-separated line per finding:

    KIND  LINE  SCOPE  ORIGIN  MESSAGE

KIND is conflict (git could not merge a region), both-kept (an insert/insert
conflict resolved by keeping both sides, outside function bodies, and the
patch's lines land where the patch puts them), wrong-scope, lock or
declaration (a merge that git made, or that keeping both sides would make,
which is wrong). LINE is a line of the merged file, SCOPE the function or
struct around it, ORIGIN "base" (the destination's lines there are the
vendor's own: the series' base differs from the vendor tree), "local" (they
are local edits: they differ from --pristine), "base+local", or "?" without
--pristine.

With --resolve OUT it writes the file with every region resolved: both
sides where both-kept, otherwise the destination's side (the patch's lines
of that region left out) - the survey mode of port-series --keep-going.
Exit status: 0 nothing wrong, 1 a finding other than both-kept, 2 usage.
"""
import argparse
import re
import subprocess
import sys
import tempfile

TRIVIAL = {"", "{", "}", "};", "*/", "/*", "*", "else", "else {", "} else {", "break;", "return 0;",
           "return ret;", "return retval;", "return r;", "#endif", "#else", "default:", "out:", "})"}


def read(path):
    if not path:
        return None
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read().split("\n")
    except FileNotFoundError:
        return None


# --- scopes --------------------------------------------------------------------------------

def strip_code(line, state):
    """The line without comments and string/char literals; state carries an
    open block comment across lines."""
    if not state["comment"] and not any(c in line for c in "/\"'"):
        return line
    out = []
    i = 0
    n = len(line)
    while i < n:
        if state["comment"]:
            j = line.find("*/", i)
            if j < 0:
                return "".join(out)
            state["comment"] = False
            i = j + 2
            continue
        c = line[i]
        if line.startswith("/*", i):
            state["comment"] = True
            i += 2
            continue
        if line.startswith("//", i):
            break
        if c in "\"'":
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


NAME_RE = re.compile(r"([A-Za-z_]\w*)\s*\(")
AGG_RE = re.compile(r"\b(struct|union|enum)\s+([A-Za-z_]\w*)\s*$")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "__attribute__", "typeof"}


def scope_name(header, kind_hint):
    h = " ".join(header.split())
    h = re.sub(r"\s*\{\s*$", "", h)
    if "=" in h:  # an initialiser: name the variable
        m = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\])*\s*=\s*$", h.split("{")[0])
        return ("data", m.group(1) if m else "initialiser")
    m = AGG_RE.search(h)
    if m and "(" not in h:
        return ("type", f"{m.group(1)} {m.group(2)}")
    for m in NAME_RE.finditer(h):
        if m.group(1) not in KEYWORDS and not m.group(1).startswith("__"):
            return ("function", m.group(1) + "()")
    return ("block", h[:40] or "block")


TOP = ("top", "top level")


_SCOPES = {}


def scopes(lines, is_c):
    """For every line, (kind, name) of the top-level definition around it:
    ("function", "f()"), ("type", "struct s"), ("data", "v") or TOP."""
    key = (id(lines), len(lines), is_c)
    if key in _SCOPES and _SCOPES[key][0] is lines:
        return _SCOPES[key][1]
    _SCOPES[key] = (lines, _scopes(lines, is_c))
    return _SCOPES[key][1]


def _scopes(lines, is_c):
    if not is_c:
        return [TOP] * len(lines)
    res = []
    state = {"comment": False}
    depth = 0
    header = []
    cur = TOP
    in_macro = False
    # #if/#else: braces count in the first branch only (the others repeat
    # the same opening, as in the kcl variants of a function's header)
    cond = []
    for i, raw in enumerate(lines):
        here = cur if depth > 0 else TOP
        if in_macro:
            in_macro = raw.rstrip().endswith("\\")
            res.append(here)
            continue
        directive = re.match(r"\s*#\s*(\w+)", raw) if not state["comment"] else None
        if directive:
            d = directive.group(1)
            if d in ("if", "ifdef", "ifndef"):
                cond.append(False)
            elif d in ("else", "elif") and cond:
                cond[-1] = True
            elif d == "endif" and cond:
                cond.pop()
            in_macro = raw.rstrip().endswith("\\")
            res.append(here)
            continue
        code = strip_code(raw, state)
        if any(cond):
            res.append(here)
            continue
        opened = closed = False
        for ch in code:
            if ch == "{":
                if depth == 0:
                    cur = scope_name(" ".join(h for _, h in header) + " " + code.split("{")[0] + " {", None)
                    for k, _ in header:
                        res[k] = cur
                    header = []
                    opened = True
                depth += 1
            elif ch == "}":
                depth = max(0, depth - 1)
                if depth == 0:
                    closed = True
        if depth > 0 or opened or closed:
            res.append(cur)
            continue
        res.append(TOP)
        st = code.strip()
        if st == "" or st.endswith((";", "}")):
            header = []
        else:
            header.append((i, code))
    return res


def fmt_scope(s):
    return s[1]


# --- line mapping --------------------------------------------------------------------------

_OPS = {}


def opcodes(a, b):
    """difflib-style opcodes of a -> b, computed by git diff (fast)."""
    key = (id(a), id(b))
    if key in _OPS:
        return _OPS[key][2]
    with tempfile.TemporaryDirectory() as d:
        for name, content in (("a", a), ("b", b)):
            with open(f"{d}/{name}", "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write("\n".join(content) + "\n")
        out = subprocess.run(["git", "diff", "--no-index", "--no-color", "-U0", "--no-ext-diff",
                              f"{d}/a", f"{d}/b"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True,
                             errors="surrogateescape").stdout
    ops = []
    ai = bj = 0
    for m in re.finditer(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", out, re.M):
        a1, an, b1, bn = int(m.group(1)), int(m.group(2) or 1), int(m.group(3)), int(m.group(4) or 1)
        a_start = a1 - 1 if an else a1
        b_start = b1 - 1 if bn else b1
        if a_start > ai:
            ops.append(("equal", ai, a_start, bj, bj + a_start - ai))
        tag = "replace" if an and bn else "delete" if an else "insert"
        ops.append((tag, a_start, a_start + an, b_start, b_start + bn))
        ai, bj = a_start + an, b_start + bn
    if ai < len(a):
        ops.append(("equal", ai, len(a), bj, bj + len(a) - ai))
    _OPS[key] = (a, b, ops)
    return ops


def added_lines(a, b):
    """Indices into b of lines that a -> b adds (insert or replace)."""
    out = []
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag in ("insert", "replace"):
            out.extend(range(j1, j2))
    return out


def removed_lines(a, b):
    out = []
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag in ("delete", "replace"):
            out.extend(range(i1, i2))
    return out


def local_lines(ours, pristine):
    """Lines of ours that are local edits (differ from pristine); a deletion
    marks the lines around it."""
    if pristine is None:
        return None
    loc = set()
    for tag, i1, i2, j1, j2 in opcodes(pristine, ours):
        if tag in ("insert", "replace"):
            loc.update(range(j1, j2))
        elif tag == "delete":
            loc.update({max(0, j1 - 1), j1})
    return loc


def origin_of(olines, local):
    if local is None:
        return "?"
    olines = [x for x in olines if x is not None]
    if not olines:
        return "base"
    n = sum(1 for x in olines if x in local)
    if n == 0:
        return "base"
    return "local" if n == len(olines) else "base+local"


def find_block(ours, block, hint):
    """Index in ours where the list of lines block starts, nearest to hint."""
    if not block:
        return None
    best = None
    first = block[0]
    for i, line in enumerate(ours):
        if line == first and ours[i:i + len(block)] == block:
            if best is None or abs(i - hint) < abs(best - hint):
                best = i
    return best


# --- conflict regions ---------------------------------------------------------------------

def diff3_regions(ours, base, theirs):
    """git merge-file --diff3 on the three versions: a list of items, each
    either a str (a merged line) or a dict with ours/base/theirs lists."""
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for name, content in (("ours", ours), ("base", base), ("theirs", theirs)):
            p = f"{d}/{name}"
            with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write("\n".join(content))
            paths.append(p)
        out = subprocess.run(["git", "merge-file", "-p", "--diff3", "-L", "ours", "-L", "base", "-L", "theirs",
                              *paths], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, errors="surrogateescape").stdout
    items = []
    cur = None
    sect = None
    for line in out.split("\n"):
        if line.startswith("<<<<<<< ours"):
            cur = {"ours": [], "base": [], "theirs": []}
            sect = "ours"
        elif cur is not None and line.startswith("||||||| base"):
            sect = "base"
        elif cur is not None and line == "=======":
            sect = "theirs"
        elif cur is not None and line.startswith(">>>>>>> theirs"):
            items.append(cur)
            cur = None
        elif cur is not None:
            cur[sect].append(line)
        else:
            items.append(line)
    return items


# --- checks of a merged result ----------------------------------------------------------------

DECL_RE = re.compile(
    r"^\s*(?:(?:const|static|unsigned|signed|long|short|volatile)\s+)*"
    r"(?:(?:struct|union|enum)\s+\w+|[A-Za-z_]\w*)\s*[\s\*]\s*\**\s*([A-Za-z_]\w*(?:\s*\[[^\]]*\])?(?:\s*=\s*[^,;]+)?"
    r"(?:\s*,\s*\**\s*[A-Za-z_]\w*(?:\s*\[[^\]]*\])?(?:\s*=\s*[^,;]+)?)*)\s*;\s*$")
NOT_TYPES = {"return", "goto", "else", "case", "break", "continue", "do"}


def declared_names(code):
    m = DECL_RE.match(code)
    if not m:
        return []
    first = code.strip().split()[0]
    if first in NOT_TYPES:
        return []
    names = []
    for part in m.group(1).split(","):
        part = part.split("=")[0].strip().lstrip("*").strip()
        part = re.sub(r"\[.*$", "", part).strip()
        if re.fullmatch(r"[A-Za-z_]\w*", part):
            names.append(part)
    return names


def code_lines(lines):
    state = {"comment": False}
    return [strip_code(line, state) for line in lines]


CALL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def lock_ops(code):
    """(acquires, releases) as lists of the calls in one line of code."""
    acq, rel = [], []
    for m in CALL_RE.finditer(code):
        f = m.group(1)
        if "unlock" in f:
            rel.append(f)
        elif re.search(r"(^|_)(lock|trylock)(_|$)", f) and not re.search(r"lockdep|_init$|locked$|_held$|_is_locked", f):
            acq.append(f)
    return acq, rel


def function_bodies(lines, sc):
    """function name -> list of line indices."""
    bodies = {}
    for i, s in enumerate(sc):
        if s[0] == "function":
            bodies.setdefault(s[1], []).append(i)
    return bodies


def function_signature(code, idx, name):
    """The parameter list of function @name, whose body has the lines @idx:
    from the line that names it (at or before idx[0]) to the line with the
    body's opening brace, over as many lines as it takes."""
    if not idx:
        return ""
    name = name[:-2] if name.endswith("()") else name
    start = None
    for k in range(idx[0], max(-1, idx[0] - 40), -1):
        if re.search(r"\b%s\s*\(" % re.escape(name), code[k]):
            start = k
            break
    if start is None:
        return ""
    end = start
    while end < len(code) - 1 and end - start < 40 and "{" not in code[end]:
        end += 1
    return " ".join(code[start:end + 1])


def releasers(code, bodies, known=None):
    """Functions of this file that release a lock they do not take: directly,
    or by calling such a function (of this file, or of known)."""
    direct = {}
    for f, idx in bodies.items():
        a = sum(len(lock_ops(code[i])[0]) for i in idx)
        r = [x for i in idx for x in lock_ops(code[i])[1]]
        direct[f] = (a, r)
    rel = dict(known or {})
    rel.update({f: r[0] for f, (a, r) in direct.items() if a == 0 and r})
    changed = True
    while changed:
        changed = False
        for f, idx in bodies.items():
            if f in rel or direct[f][0] > 0:
                continue
            for i in idx:
                for m in CALL_RE.finditer(code[i]):
                    callee = m.group(1) + "()"
                    if callee in rel and callee != f:
                        rel[f] = f"{callee} -> {rel[callee]}"
                        changed = True
                        break
                if f in rel:
                    break
    return rel


def check_merged(path, ours, base, theirs, merged, local, emit, ours_map):
    """Structural checks of a merged file (no conflict markers)."""
    is_c = path.endswith((".c", ".h"))
    if not is_c:
        return
    sc_t = scopes(theirs, True)
    sc_m = scopes(merged, True)
    sc_o = scopes(ours, True)
    # 1. The patch's lines land in the definition the patch puts them in.
    want = {}
    for j in added_lines(base, theirs):
        t = theirs[j].strip()
        if t in TRIVIAL or t.startswith(("/*", "*", "//")):
            continue
        want.setdefault(theirs[j], set()).add(sc_t[j])
    got = added_lines(ours, merged)
    seen = set()
    for j in got:
        line = merged[j]
        if line not in want or sc_m[j] in want[line]:
            continue
        # a definition the patch adds is "top level" in neither
        if sc_m[j][0] == "top":
            continue
        key = (sc_m[j], tuple(sorted(x[1] for x in want[line])))
        if key in seen:
            continue
        seen.add(key)
        target = " or ".join(sorted(x[1] for x in want[line]))
        evidence = [ours_map(j - 1), ours_map(j + 1)]
        emit("wrong-scope", j, sc_m[j], origin_of(evidence, local),
             f"the merge puts the patch's line '{line.strip()[:60]}' into {sc_m[j][1]}; the patch puts it into {target}")
    # 2. Declarations the patch removes that the destination still uses.
    code_m = code_lines(merged)
    code_o = code_lines(ours)
    bodies_m = function_bodies(merged, sc_m)
    for i in removed_lines(ours, merged):
        names = declared_names(code_o[i])
        if not names or sc_o[i][0] != "function":
            continue
        f = sc_o[i]
        idx = bodies_m.get(f[1], [])
        declared_now = {n for k in idx for n in declared_names(code_m[k])}
        params = function_signature(code_m, idx, f[1])
        for name in names:
            # a local that the patch makes a parameter is still declared
            if name in declared_now or re.search(r"\b%s\b" % re.escape(name), params):
                continue
            uses = [k for k in idx if re.search(r"(?<![\w.>])%s\b" % re.escape(name), code_m[k])]
            if uses:
                emit("declaration", uses[0], f, origin_of([ours_map(k) for k in uses], local),
                     f"the merge drops the declaration of {name} from {f[1]}, which still uses it "
                     f"(line {uses[0] + 1}: '{merged[uses[0]].strip()[:50]}'): it does not compile")
    # 3. Lock balance: a function that now releases a lock it does not take.
    bodies_o = function_bodies(ours, sc_o)
    code_t = code_lines(theirs)
    rel_t = releasers(code_t, function_bodies(theirs, sc_t))
    rel_m = releasers(code_m, bodies_m, rel_t)
    rel_o = releasers(code_o, bodies_o)
    touched = {sc_m[j][1] for j in got if sc_m[j][0] == "function"}
    for f in sorted(touched):
        if f in rel_m and f in bodies_o and f not in rel_o:
            callers = sorted(g for g, idx in bodies_m.items() if g != f and
                             any(re.search(r"\b%s\s*\(" % re.escape(f[:-2]), code_m[k]) for k in idx) and
                             any(lock_ops(code_m[k])[0] for k in idx))
            first = bodies_m[f][0]
            emit("lock", first, ("function", f), origin_of([ours_map(first)], local),
                 f"the merge makes {f} release a lock it does not take ({rel_m[f]})"
                 + (f"; its callers {', '.join(callers)} take it and release it again" if callers else ""))


def check_one(a):
    """Findings of one file: a list of (kind, line, scope, origin, message)."""
    ours, base, theirs = read(a.ours), read(a.base), read(a.theirs)
    if ours is None or base is None or theirs is None:
        raise FileNotFoundError(f"{a.path}: --ours, --base and --theirs must be readable files")
    pristine = read(a.pristine)
    local = local_lines(ours, pristine)
    is_c = a.path.endswith((".c", ".h"))
    sc_o = scopes(ours, is_c)
    sc_t = scopes(theirs, is_c)
    findings = []

    def emit(kind, line, scope, origin, msg):
        findings.append((kind, line + 1 if line is not None else 0, fmt_scope(scope), origin, msg))

    def flat(rest):
        out = []
        for x in rest:
            out.extend([x] if isinstance(x, str) else x["ours"])
        return out

    # Regions, resolved: both-kept where that is safe, else the destination's side.
    items = diff3_regions(ours, base, theirs)
    resolved = []
    hint = 0
    for n, it in enumerate(items):
        if isinstance(it, str):
            resolved.append(it)
            continue
        at = find_block(ours, it["ours"], hint) if it["ours"] else None
        if at is None:
            prev = next((x for x in reversed(resolved) if x.strip()), None)
            cand = [i for i, x in enumerate(ours) if x == prev]
            at = min(cand, key=lambda i: abs(i - hint)) + 1 if cand else None
        olines = list(range(at, at + len(it["ours"]))) if at is not None else []
        if at is not None:
            hint = at + len(it["ours"])
        evidence = olines or ([at - 1, at] if at is not None else [])
        scope = sc_o[at] if at is not None and at < len(sc_o) else TOP
        insert_insert = not it["base"] and it["ours"] and it["theirs"]
        start = len(resolved)
        if insert_insert and scope[0] != "function":
            # keep both: the destination's lines, then the patch's; where do they land?
            trial = resolved + it["ours"] + it["theirs"]
            sc_trial = scopes(trial + flat(items[n + 1:]), is_c)
            want = {sc_t[j] for j, line in enumerate(theirs)
                    if line in it["theirs"] and line.strip() not in TRIVIAL}
            landed = {sc_trial[k] for k in range(start + len(it["ours"]), len(trial))
                      if trial[k].strip() not in TRIVIAL}
            if not is_c or not want or landed <= want:
                resolved = trial
                emit("both-kept", start, scope, origin_of(evidence, local),
                     f"both sides inserted lines here: kept the destination's {len(it['ours'])} line(s), "
                     f"then the patch's {len(it['theirs'])}")
                continue
            emit("wrong-scope", start, scope, origin_of(evidence, local),
                 "both sides inserted lines here; keeping both would put the patch's lines into "
                 f"{', '.join(sorted(x[1] for x in landed - want))}, the patch puts them into "
                 f"{', '.join(sorted(x[1] for x in want))}")
        else:
            what = ("both sides inserted lines inside a function" if insert_insert else
                    "the destination changed lines the patch changes" if it["ours"] and it["base"] else
                    "the destination removed lines the patch changes" if it["base"] else
                    "conflicting changes")
            emit("conflict", start, scope, origin_of(evidence, local),
                 f"{what} ({len(it['ours'])} line(s) here, {len(it['base'])} in the series' base, "
                 f"{len(it['theirs'])} in the patch)")
        resolved.extend(it["ours"])

    merged = resolved
    if a.merged and not any(isinstance(x, dict) for x in items):
        merged = read(a.merged) or merged
    # merged line -> line of ours, where it is one
    omap = {}
    for tag, i1, i2, j1, j2 in opcodes(ours, merged):
        if tag == "equal":
            for k in range(i2 - i1):
                omap[j1 + k] = i1 + k

    check_merged(a.path, ours, base, theirs, merged, local, emit, omap.get)
    if a.resolve:
        with open(a.resolve, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("\n".join(merged))
    return findings


FIELDS = ("path", "ours", "base", "theirs", "merged", "pristine", "resolve")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--manifest", help="many files: one per line, tab-separated: " + " ".join(FIELDS)
                    + " (empty fields for none); each finding line then starts with the path")
    ap.add_argument("--path")
    ap.add_argument("--ours")
    ap.add_argument("--base")
    ap.add_argument("--theirs")
    ap.add_argument("--merged", help="git's clean result (default: merge the three here)")
    ap.add_argument("--pristine")
    ap.add_argument("--resolve")
    a = ap.parse_args()
    jobs = []
    if a.manifest:
        with open(a.manifest, encoding="utf-8") as f:
            for line in f:
                v = line.rstrip("\n").split("\t")
                if len(v) != len(FIELDS):
                    print(f"port-check: {a.manifest}: a line has {len(v)} fields, not {len(FIELDS)}", file=sys.stderr)
                    return 2
                jobs.append(argparse.Namespace(**{k: (x or None) for k, x in zip(FIELDS, v)}))
    elif a.path and a.ours and a.base and a.theirs:
        jobs.append(a)
    else:
        print("port-check: give --manifest FILE, or --path, --ours, --base and --theirs", file=sys.stderr)
        return 2
    bad = 0
    for job in jobs:
        try:
            findings = check_one(job)
        except FileNotFoundError as e:
            print(f"port-check: {e}", file=sys.stderr)
            return 2
        _OPS.clear()
        _SCOPES.clear()
        for kind, line, scope, origin, msg in findings:
            print(f"{job.path}\t{kind}\t{line}\t{scope}\t{origin}\t{msg}" if a.manifest else
                  f"{kind}\t{line}\t{scope}\t{origin}\t{msg}")
            bad += kind != "both-kept"
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
