#!/usr/bin/env python3
"""The private OpenSSL builds are made the same way whatever calls them, and
their cache key follows every input of the build.

cmake/openssl/bootstrap.sh --key SERIES prints the prefix a build goes to.
Checked here, for each series given:
  * a hostile environment (a broken CC, CFLAGS that no compiler accepts,
    a cross prefix, make flags) gives the same prefix as a clean one, both
    for --key and for a real call (which reuses the cached build, or builds);
  * editing any file beside the script (the script itself, even a comment)
    gives another prefix;
  * another compiler identity on PATH gives another prefix;
  * the prefix this build directory was configured with (CMake's own call,
    under CMake's environment) is the one a clean call names.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HOSTILE = {
    "CC": "false", "CXX": "false", "CFLAGS": "-Werror=nonsense", "CPPFLAGS": "-DOPENSSL_NO_SHA",
    "LDFLAGS": "-Wl,--nonsense", "LDLIBS": "-lnonsense", "CROSS_COMPILE": "bogus-",
    "AR": "false", "RANLIB": "false", "MAKEFLAGS": "-j1 --nonsense", "PERL5LIB": "/nonexistent",
    "PKG_CONFIG_PATH": "/nonexistent", "OPENSSL_CONF": "/nonexistent",
}


def clean_env(cache):
    env = {k: v for k, v in os.environ.items()
           if k in ("PATH", "HOME", "CARGO_HOME", "RUSTUP_HOME")}
    env["KPQC_CACHE_DIR"] = cache
    return env


def bootstrap(script, args, env):
    out = subprocess.run(["sh", script] + args, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(f"{script} {' '.join(args)} failed:\n{out.stderr}")
    return out.stdout.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--series", default="3.6", help="comma-separated series to check")
    ap.add_argument("--cache", help="the cache directory to reuse (a real call finds its build there)")
    ap.add_argument("--configured-prefix", default="",
                    help="the prefix CMake configured this build with (checked when it is a cached build)")
    ap.add_argument("--cross", default="", help="KPQC_OPENSSL_CROSS of this build")
    a = ap.parse_args()
    script = os.path.join(a.source_dir, "cmake", "openssl", "bootstrap.sh")
    cache = a.cache or tempfile.mkdtemp(prefix="kpqc-cache-")
    failures = 0
    checks = 0

    def check(cond, what):
        nonlocal failures, checks
        checks += 1
        print(("ok     " if cond else "FAILED ") + what)
        if not cond:
            failures += 1

    for series in a.series.split(","):
        env = clean_env(cache)
        if a.cross:
            env["KPQC_OPENSSL_CROSS"] = a.cross
        key = bootstrap(script, ["--key", series], env)
        check(key.startswith(cache + "/openssl-"), f"{series}: --key names a prefix in the cache ({key})")
        hostile = dict(env, **HOSTILE)
        check(bootstrap(script, ["--key", series], hostile) == key,
              f"{series}: a hostile environment (CC=false CFLAGS=-Werror=nonsense ...) keeps the prefix")
        if os.path.isfile(os.path.join(key, ".complete")):
            check(bootstrap(script, [series], hostile) == key,
                  f"{series}: a real call under the hostile environment returns the cached build")

        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "openssl")
            shutil.copytree(os.path.dirname(script), copy)
            copied = os.path.join(copy, "bootstrap.sh")
            check(bootstrap(copied, ["--key", series], env) == key,
                  f"{series}: an unchanged copy of the recipe keeps the prefix")
            for name in sorted(os.listdir(copy)):
                path = os.path.join(copy, name)
                with open(path, "rb") as f:
                    original = f.read()
                with open(path, "ab") as f:
                    f.write(b"\n# a comment\n")
                check(bootstrap(copied, ["--key", series], env) != key,
                      f"{series}: a comment added to {name} changes the prefix")
                with open(path, "wb") as f:
                    f.write(original)
            with open(os.path.join(copy, "extra.patch"), "w") as f:
                f.write("a new input\n")
            check(bootstrap(copied, ["--key", series], env) != key,
                  f"{series}: a new file beside the script changes the prefix")

            # Another compiler of the same name earlier on PATH.
            bindir = os.path.join(tmp, "bin")
            os.mkdir(bindir)
            compiler = (a.cross + "-gcc") if a.cross else "gcc"
            real = shutil.which(compiler)
            wrapper = os.path.join(bindir, compiler)
            with open(wrapper, "w") as f:
                f.write(f"#!/bin/sh\n[ \"$1\" = --version ] && {{ echo 'gcc (Other) 99.1'; exit 0; }}\n"
                        f"exec {real} \"$@\"\n")
            os.chmod(wrapper, 0o755)
            other = dict(env, PATH=bindir + os.pathsep + env["PATH"])
            check(bootstrap(script, ["--key", series], other) != key,
                  f"{series}: another compiler identity ({compiler} --version) changes the prefix")

    if a.configured_prefix and a.cache and a.configured_prefix.startswith(a.cache + "/"):
        env = clean_env(cache)
        if a.cross:
            env["KPQC_OPENSSL_CROSS"] = a.cross
        check(bootstrap(script, ["--key", "3.5"], env) == a.configured_prefix,
              "the prefix CMake configured (under CMake's environment) is the one a clean call names")

    print(f"bootstrap_check: {checks} checks, {failures} failing")
    if not a.cache:
        shutil.rmtree(cache, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
