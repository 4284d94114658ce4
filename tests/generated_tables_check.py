#!/usr/bin/env python3
"""Checks that every generated constant table in src/ is what its generator
writes today.  The generators do more than print: they check the transforms
they describe against schoolbook products and prove the ranges the vector
kernels rely on (no lane overflows, each reduction's bound), so a table
edited by hand, or a generator changed without regenerating, fails here.
Each generator names its output in its docstring ("gen_tables.py > FILE").

  generated_tables_check.py
"""
import pathlib
import re
import subprocess
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"

failures = 0
generators = sorted(SRC.rglob("gen_*.py"))
if not generators:
    sys.exit("no generators found under %s" % SRC)
for gen in generators:
    m = re.search(r"%s\s*>\s*(\S+)" % re.escape(gen.name), gen.read_text())
    if not m:
        print("%s: its docstring names no output file" % gen.relative_to(SRC))
        failures += 1
        continue
    out = gen.parent / m.group(1)
    run = subprocess.run([sys.executable, gen.name], cwd=gen.parent, capture_output=True, text=True)
    if run.returncode != 0:
        print("%s failed (status %d):\n%s" % (gen.relative_to(SRC), run.returncode, run.stderr))
        failures += 1
    elif run.stdout != out.read_text():
        print("%s differs from what %s writes" % (out.relative_to(SRC), gen.name))
        failures += 1
    else:
        print("%s: as generated" % out.relative_to(SRC))
sys.exit(1 if failures else 0)
