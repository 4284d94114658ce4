"""Instructions counted by callgrind: a figure that does not move with the
load of a shared machine, beside wall time, which does."""
import os
import pathlib
import shutil
import subprocess
import tempfile


def available():
    return shutil.which("valgrind") is not None


def total_instructions(build, argv, env=None):
    """Instructions the whole program `argv` executed (callgrind's summary),
    run in the provider's environment."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "cg.out"
        r = subprocess.run([build.env_cmd, "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + argv,
                           capture_output=True, text=True, timeout=1800, env=dict(os.environ, **(env or {})))
        if r.returncode != 0:
            raise RuntimeError(f"callgrind {' '.join(argv)} failed: {r.stderr.strip()[-500:]}")
        for line in out.read_text(errors="replace").splitlines():
            if line.startswith("summary: "):
                return int(line.split()[1])
    raise RuntimeError(f"callgrind wrote no summary for {' '.join(argv)}")


def per_repetition(build, argv_for, counts=(1, 6), env=None):
    """Instructions per repetition of what argv_for(n) repeats n times: the
    difference of two runs divided by the difference of their counts, so
    that start-up and set-up, the same in both runs, cancel."""
    lo, hi = counts
    return (total_instructions(build, argv_for(hi), env) - total_instructions(build, argv_for(lo), env)) / (hi - lo)
