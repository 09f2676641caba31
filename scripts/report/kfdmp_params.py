#!/usr/bin/env python3
"""The test-box ablation matrix and the check of its amdgpu parameters.

    kfdmp_params.py list MATRIX [--configs A,B]
        print the selected configurations, one per line:
        NAME<TAB>PARAMS (space separated, may be empty)<TAB>DESCRIPTION
    kfdmp_params.py known (--modinfo KO | --series DIR | --source FILE...)
        print the parameters a source defines and what it says of their values
    kfdmp_params.py validate MATRIX [--configs A,B] [--strict]
                    (--modinfo KO [--series DIR] | --series DIR | --source FILE...)
        check every NAME=VALUE of the selected configurations

Sources of truth, in order of preference:
  --modinfo KO   `modinfo -p KO` of the built module: the parameter names
                 the module really has. Value rules (word lists, ranges) are
                 not in modinfo; they are taken from --series when given,
                 else the value is reported "unchecked".
  --series DIR   the series: every added line (+) of DIR/*.patch except the
                 cover letter, parsed for module_param*() and the kfd_mp
                 parameter structures (kfd_mp_choice_param: word list;
                 kfd_mp_uint_param: min, max, power_of_2).
  --source FILE  C files (e.g. a prepared tree's amdkfd/kfd_*.c), same parser.

Verdicts: ok, bad (the value is refused by the rules), unknown (the source
does not define the parameter: insmod would only log "unknown parameter
... ignored" and run stock, so a real run refuses it), unchecked (the name
exists, no value rule is known). Exit status: 0, or 1 when a verdict is bad,
or unknown with --strict; 2 on usage or matrix errors.

Python 3 standard library only.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
PARAM_RE = re.compile(r"^\??([a-z_][a-z0-9_]*)=(\S+)$")  # ?NAME=VALUE: optional (issue 17)
# Hypothesis-matrix fields 4-6 (optional): hypothesis | compute partition | kfdmp options.
HYPOTHESES = ("baseline", "xcc_l2_sharing", "hws_oversubscription", "submit_path", "preemption", "switches",
              # issue 24: host-side causes, and the arm that only makes a default explicit
              "host_threads", "cpu_placement", "idle_queues", "noise_floor")
PARTITIONS = ("-", "SPX", "DPX", "QPX", "CPX")


class MatrixError(Exception):
    pass


def read_matrix(path):
    """[(name, [params], description)] of a matrix file (see its header)."""
    return [r[:3] for r in read_arms(path)]


def read_arms(path):
    """[(name, [params], description, hypothesis, partition, kfdmp options)]:
    lines of 3 fields are the switches' ablation (hypothesis "switches", the
    partition left as it is, no extra options)."""
    rows = []
    seen = set()
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = [c.strip() for c in line.split("|")]
            if len(cols) == 3:
                cols += ["switches", "-", ""]
            if len(cols) != 6:
                raise MatrixError(f"{path}:{lineno}: expected 'name | params | description' or 'name | params | "
                                  f"description | hypothesis | partition | kfdmp options', got {line!r}")
            name, params, desc, hyp, part, kargs = cols
            if hyp not in HYPOTHESES:
                raise MatrixError(f"{path}:{lineno}: {name}: hypothesis {hyp!r} is not one of {', '.join(HYPOTHESES)}")
            if part not in PARTITIONS:
                raise MatrixError(f"{path}:{lineno}: {name}: partition {part!r} is not one of {', '.join(PARTITIONS)}")
            if "\t" in kargs or "--out" in kargs.split():
                raise MatrixError(f"{path}:{lineno}: {name}: kfdmp options may not hold a tab or --out")
            if not NAME_RE.match(name):
                raise MatrixError(f"{path}:{lineno}: bad configuration name {name!r}")
            if name in seen:
                raise MatrixError(f"{path}:{lineno}: configuration {name!r} listed twice")
            seen.add(name)
            plist = params.split() if params not in ("", "-") else []
            names = set()
            for p in plist:
                m = PARAM_RE.match(p)
                if not m:
                    raise MatrixError(f"{path}:{lineno}: {name}: {p!r} is not NAME=VALUE")
                if m.group(1) in names:
                    raise MatrixError(f"{path}:{lineno}: {name}: {m.group(1)} given twice")
                names.add(m.group(1))
            rows.append((name, plist, desc, hyp, part, kargs))
    if not rows:
        raise MatrixError(f"{path}: no configuration")
    return rows


def select(rows, configs):
    if not configs:
        return rows
    by_name = {r[0]: r for r in rows}
    out = []
    for c in configs.split(","):
        c = c.strip()
        if not c:
            continue
        if c not in by_name:
            raise MatrixError(f"no configuration {c!r} in the matrix (have: {', '.join(by_name)})")
        out.append(by_name[c])
    if not out:
        raise MatrixError("--configs selects nothing")
    return out


# --- parameter definitions ----------------------------------------------------

def series_text(series_dir):
    """The added lines of the series' patches, cover letter excluded."""
    patches = sorted(p for p in glob.glob(os.path.join(series_dir, "[0-9][0-9][0-9][0-9]-*.patch"))
                     if not os.path.basename(p).startswith("0000-"))
    lines = []
    for p in patches:
        with open(p, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("+") and not line.startswith("+++"):
                    lines.append(line[1:])
    return "".join(lines), patches


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def c_int(token, defines):
    token = token.strip().rstrip("uUlL")
    for _ in range(5):
        if token in defines:
            token = defines[token].strip().strip("()").rstrip("uUlL")
    try:
        return int(token, 0)
    except ValueError:
        m = re.fullmatch(r"(\d+)\s*<<\s*(\d+)", token) or re.fullmatch(r"BIT\((\d+)\)", token)
        if m and len(m.groups()) == 2:
            return int(m.group(1)) << int(m.group(2))
        if m:
            return 1 << int(m.group(1))
        return None


def parse_params(text):
    """{name: rule} from C source text. A rule is a dict with 'kind':
    'choice' (words), 'uint' (min, max, power_of_2), or 'plain' (type)."""
    text = strip_comments(text)
    defines = dict(re.findall(r"^\s*#\s*define\s+(\w+)\s+([^\n]+)$", text, flags=re.M))
    arrays = {}
    for m in re.finditer(r"char\s*\*\s*(?:const\s+)?(\w+)\s*\[[^\]]*\]\s*=\s*\{(.*?)\}\s*;", text, flags=re.S):
        arrays[m.group(1)] = re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2))
    structs = {}
    for m in re.finditer(r"struct\s+(kfd_mp_choice_param|kfd_mp_uint_param)\s+(\w+)\s*=\s*\{(.*?)\}\s*;",
                         text, flags=re.S):
        kind, var, body = m.groups()
        fields = dict((k, v.strip()) for k, v in re.findall(r"\.(\w+)\s*=\s*([^,]+?)\s*(?=,|$)", body.strip(),
                                                           flags=re.S))
        structs[var] = (kind, fields)
    params = {}
    for m in re.finditer(r"module_param_cb\(\s*(\w+)\s*,\s*&?\s*(\w+)\s*,\s*&?\s*(\w+)\s*,", text):
        name, ops, var = m.groups()
        rule = {"kind": "plain", "type": ops}
        if var in structs:
            kind, fields = structs[var]
            if kind == "kfd_mp_choice_param":
                words = arrays.get(fields.get("choices", "").lstrip("&"))
                rule = {"kind": "choice", "words": words} if words else {"kind": "plain", "type": ops}
            else:
                rule = {"kind": "uint",
                        "min": c_int(fields.get("min", "0"), defines),
                        "max": c_int(fields.get("max", "0xffffffff"), defines),
                        "power_of_2": fields.get("power_of_2", "false") in ("true", "1")}
        params[name] = rule
    for m in re.finditer(r"module_param_named\(\s*(\w+)\s*,\s*[\w.]+\s*,\s*(\w+)\s*,", text):
        params.setdefault(m.group(1), {"kind": "plain", "type": m.group(2)})
    for m in re.finditer(r"(?<!_)module_param\(\s*(\w+)\s*,\s*(\w+)\s*,", text):
        params.setdefault(m.group(1), {"kind": "plain", "type": m.group(2)})
    return params


def modinfo_params(ko):
    """{name: {'kind': 'modinfo', 'desc': ...}} from `modinfo -p KO`."""
    out = subprocess.run(["modinfo", "-p", ko], check=True, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True).stdout
    params = {}
    for line in out.splitlines():
        name, sep, desc = line.partition(":")
        if sep and re.fullmatch(r"[A-Za-z_]\w*", name):
            params[name] = {"kind": "modinfo", "desc": desc.strip()}
    return params


def check_value(rule, value):
    """(verdict, why)."""
    kind = rule["kind"]
    if kind == "choice":
        if value in rule["words"]:
            return "ok", "one of " + "|".join(rule["words"])
        return "bad", "not one of " + "|".join(rule["words"])
    if kind == "uint":
        try:
            v = int(value, 0)
        except ValueError:
            return "bad", "not an unsigned integer"
        lo, hi = rule["min"], rule["max"]
        if v < 0 or (lo is not None and v < lo) or (hi is not None and v > hi):
            return "bad", f"outside {lo if lo is not None else '?'}..{hi if hi is not None else '?'}"
        if rule["power_of_2"] and (v == 0 or v & (v - 1)):
            return "bad", "not a power of 2"
        bounds = f"{lo if lo is not None else '?'}..{hi if hi is not None else '?'}"
        return "ok", f"in {bounds}" + (", a power of 2" if rule["power_of_2"] else "") + \
            (" (a bound is a macro defined outside the series: not checked)" if None in (lo, hi) else "")
    if kind == "plain" and rule.get("type") in ("int", "uint", "ulong", "long", "short", "ushort"):
        try:
            v = int(value, 0)
        except ValueError:
            return "bad", f"not an integer ({rule['type']})"
        if rule["type"].startswith("u") and v < 0:
            return "bad", f"negative ({rule['type']})"
        return "ok", rule["type"]
    if kind == "plain" and rule.get("type") in ("bool", "bint"):
        if value in ("0", "1", "y", "n", "Y", "N", "true", "false"):
            return "ok", "bool"
        return "bad", "not a bool"
    return "unchecked", "the parameter exists; no value rule known (insmod refuses a bad value)"


def describe(rule):
    k = rule["kind"]
    if k == "choice":
        return "choice: " + "|".join(rule["words"])
    if k == "uint":
        lo = rule["min"] if rule["min"] is not None else "?"
        hi = rule["max"] if rule["max"] is not None else "?"
        return f"uint {lo}..{hi}" + (" power of 2" if rule["power_of_2"] else "")
    if k == "modinfo":
        return "modinfo: " + rule["desc"]
    return "type " + str(rule.get("type"))


def load_sources(args):
    """(rules, name_source, value_source) strings describe where they came from."""
    series_rules, series_desc = None, None
    if args.series:
        text, patches = series_text(args.series)
        series_rules = parse_params(text)
        series_desc = f"the series ({len(patches)} patches in {args.series})"
    if args.source:
        text = ""
        for f in args.source:
            with open(f, encoding="utf-8", errors="replace") as fh:
                text += fh.read() + "\n"
        src_rules = parse_params(text)
        src_desc = f"C sources ({len(args.source)} files)"
        if series_rules is None:
            series_rules, series_desc = src_rules, src_desc
        else:
            series_rules.update(src_rules)
            series_desc += " and " + src_desc
    if args.modinfo:
        rules = modinfo_params(args.modinfo)
        names_from = f"modinfo -p {args.modinfo}"
        if series_rules:
            for n, r in series_rules.items():
                if n in rules and r["kind"] != "plain":
                    rules[n] = dict(r, desc=rules[n]["desc"])
        return rules, names_from, series_desc or "none (values unchecked unless the type is known)"
    if series_rules is None:
        raise MatrixError("no parameter source: give --modinfo, --series or --source")
    return series_rules, series_desc, series_desc


def add_source_args(p):
    p.add_argument("--modinfo", metavar="KO")
    p.add_argument("--series", metavar="DIR")
    p.add_argument("--source", metavar="FILE", nargs="+")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    sub.required = True  # not add_subparsers(required=): Python 3.6 (EL8) lacks it
    p = sub.add_parser("list")
    p.add_argument("matrix")
    p.add_argument("--configs", default="")
    p = sub.add_parser("known")
    add_source_args(p)
    p = sub.add_parser("validate")
    p.add_argument("matrix")
    p.add_argument("--configs", default="")
    p.add_argument("--strict", action="store_true")
    add_source_args(p)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "list":
            for name, params, desc, hyp, part, kargs in select(read_arms(args.matrix), args.configs):
                print(f"{name}\t{' '.join(params)}\t{desc}\t{hyp}\t{part}\t{kargs}")
            return 0
        rules, names_from, values_from = load_sources(args)
        if args.cmd == "known":
            print(f"# names: {names_from}\n# value rules: {values_from}")
            for n in sorted(rules):
                print(f"{n}\t{describe(rules[n])}")
            return 0
        rows = select(read_matrix(args.matrix), args.configs)
    except (MatrixError, OSError, subprocess.CalledProcessError) as e:
        print(f"kfdmp_params: {e}", file=sys.stderr)
        return 2
    print(f"parameter names checked against: {names_from}")
    print(f"parameter values checked against: {values_from}")
    counts = {"ok": 0, "bad": 0, "unknown": 0, "unchecked": 0}
    for name, params, _ in rows:
        if not params:
            print(f"  {name:<16} (no parameters: the module's defaults)")
        for p in params:
            pname, value = p.split("=", 1)
            optional = pname.startswith("?")
            pname = pname.lstrip("?")
            rule = rules.get(pname)
            if rule is None and optional:
                counts["ok"] += 1
                print(f"  {name:<16} {p:<36} {'OPTIONAL':<9} not defined by {names_from}: the arm is skipped "
                      "with this reason when the loaded module lacks it")
                continue
            if rule is None:
                verdict, why = "unknown", "not defined by " + names_from + \
                    " (insmod would ignore it and run stock)"
            else:
                verdict, why = check_value(rule, value)
            counts[verdict] += 1
            print(f"  {name:<16} {p:<36} {verdict.upper():<9} {why}")
    print("summary: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if counts["bad"] or (args.strict and counts["unknown"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
