#!/usr/bin/env python3
"""Python 3.6 lint: the scripts that run on the test box (EL8's platform
python is 3.6) parse as 3.6 and call no library with a 3.7+ argument.

    scripts/lint-py36.py [FILE...]   default: every *.py under scripts/

Two passes per file: ast.parse(feature_version=(3, 6)) (syntax the parser
knows to be newer: walrus, positional-only parameters, ...), then an AST walk
for what the parser accepts but 3.6 does not run: library arguments and
modules added in 3.7+ and the f-string "=" specifier (3.8). Prints
FILE:LINE: what, why; exit 1 when anything is found, 2 on a file it cannot
read or parse at all.
"""
import ast
import glob
import io
import os
import re
import sys
import tokenize

# keyword arguments: (callee name suffix, keyword) -> version that added it
KEYWORDS = {
    ("run", "capture_output"): "3.7",
    ("run", "text"): "3.7",
    ("Popen", "text"): "3.7",
    ("check_output", "text"): "3.7",
    ("check_call", "text"): "3.7",
    ("call", "text"): "3.7",
    ("add_subparsers", "required"): "3.7",
}
# modules and attributes: name -> version
MODULES = {"dataclasses": "3.7", "contextvars": "3.7", "graphlib": "3.9", "zoneinfo": "3.9",
           "importlib.resources": "3.7", "importlib.metadata": "3.8", "tomllib": "3.11"}
# a bare name matches any object's attribute; a dotted one the module's
ATTRS = {"removeprefix": "3.9", "removesuffix": "3.9", "fromisoformat": "3.7", "time_ns": "3.7",
         "nullcontext": "3.7", "cached_property": "3.8", "math.isqrt": "3.8", "math.prod": "3.8",
         "shlex.join": "3.8", "asyncio.run": "3.7", "is_relative_to": "3.9"}
BUILTINS = {"breakpoint": "3.7", "aiter": "3.10", "anext": "3.10"}
# f"{x=}" and f"{x=!r:>4}": a self-documenting expression (3.8)
FSTRING_EQ = re.compile(r"\{[^{}!:=<>]*[^{}!:=<>\s]\s*=\s*(![rsa])?(:[^{}]*)?\}")


def callee(node):
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return ""


def dotted(node):
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return base + "." + node.attr if base else node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def lint(path):
    with open(path, "rb") as f:
        raw = f.read()
    src = raw.decode("utf-8")
    found = []
    try:
        tree = ast.parse(src, path, feature_version=(3, 6))
    except SyntaxError as e:
        return [f"{path}:{e.lineno}: syntax that Python 3.6 does not parse: {e.msg}"]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = callee(node)
            for kw in node.keywords:
                ver = KEYWORDS.get((name, kw.arg))
                if ver:
                    found.append(f"{path}:{node.lineno}: {name}({kw.arg}=...) needs Python {ver}")
            if isinstance(node.func, ast.Name) and node.func.id in BUILTINS:
                found.append(f"{path}:{node.lineno}: {node.func.id}() needs Python {BUILTINS[node.func.id]}")
        elif isinstance(node, ast.Attribute):
            full = dotted(node)
            for key, ver in ATTRS.items():
                if (full == key) if "." in key else (node.attr == key):
                    found.append(f"{path}:{node.lineno}: .{node.attr} needs Python {ver}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                if any(a.name == "annotations" for a in node.names):
                    found.append(f"{path}:{node.lineno}: from __future__ import annotations needs Python 3.7")
            if isinstance(node, ast.ImportFrom) and node.module == "importlib":
                names += ["importlib." + a.name for a in node.names]
            for n in names:
                if n in MODULES:
                    found.append(f"{path}:{node.lineno}: module {n} needs Python {MODULES[n]}")
    for tok in tokenize.tokenize(io.BytesIO(raw).readline):
        if tok.type != tokenize.STRING:
            continue
        prefix = re.match(r"[A-Za-z]*", tok.string).group(0).lower()
        if "f" in prefix and FSTRING_EQ.search(tok.string):
            found.append(f"{path}:{tok.start[0]}: f-string '=' specifier needs Python 3.8")
    return found


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = argv or sorted(glob.glob(os.path.join(root, "scripts", "**", "*.py"), recursive=True))
    found = []
    for p in files:
        try:
            found += lint(p)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            print(f"lint-py36: {p}: {e}", file=sys.stderr)
            return 2
    for line in found:
        print(line)
    print(f"lint-py36: {len(files)} files, {len(found)} finding(s)"
          + ("" if not found else "; these break on EL8's python3 (3.6)"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
