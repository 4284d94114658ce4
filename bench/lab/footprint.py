"""Suite `footprint`: what each parameter set of the build costs a small
device, measured: the code it adds to a statically linked program (portable
C, with the vector paths, size-first), the peak stack of each operation on
each code path (a painted stack), the heap each operation allocates, beside
OpenSSL's ML-KEM-768 and ML-DSA-44 measured the same way, and the heap of a
TLS handshake with each group (the handshake suite's measurement).

The suite builds libkpqc three more times beside the main build
(<build>/footprint/<variant>, the build's own selection, one section per
function and object) and links bench/src/kpqc-footprint.c once per
parameter set and library against it with --gc-sections; the code an
algorithm adds is what the linker's map says it kept from libkpqc.a (from
OpenSSL's libcrypto.a: the algorithm's own objects, its provider glue and
SHA-3, but not the EVP and provider framework every OpenSSL program has).
"""
import json
import os
import pathlib
import re
import subprocess
import sys

from . import algorithms, handshake
from .env import ROOT
from .results import md_table

# Library builds: the CMake options of each, and the code paths it runs.
VARIANTS = {"portable": (["-DKPQC_VECTOR_PATHS=OFF"], ["portable"]),
            "vector": ([], ["avx2", "avx512"]),
            "size-first": (["-DKPQC_SIZE_FIRST=ON"], ["portable"])}
SECTIONS = "-ffunction-sections -fdata-sections"
WRAPPED = ("malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign")
# OpenSSL's comparators: (kind, name, level, the libcrypto.a members that are the algorithm).
SHA3 = r"libcrypto-lib-(sha3|keccak1600[-\w]*)\.o|libdefault-lib-sha3_prov\.o"
OPENSSL = [("kem", "ML-KEM-768", 3, r"libcrypto-lib-ml_kem\.o|libdefault-lib-ml_kem_(kem|kmgmt)\.o|" + SHA3),
           ("sig", "ML-DSA-44", 2, r"libcrypto-lib-ml_dsa_\w+\.o|libdefault-lib-ml_dsa_(sig|kmgmt)\.o|"
                                   r"libcommon-lib-der_ml_dsa_\w+\.o|" + SHA3)]
OPENSSL_GROUPS = ["X25519", "X25519MLKEM768", "MLKEM768"]

PRESETS = {"paper": {}}


def add_arguments(p):
    p.add_argument("--variants", default=",".join(VARIANTS),
                   help="library builds to measure: " + ", ".join(VARIANTS))
    p.add_argument("--no-tls", action="store_true", help="skip the handshake memory per group")
    p.add_argument("--update-docs", metavar="FILE",
                   help="also write the tables into FILE after its MEASURED line (docs/algorithms.md)")


def _cache(build_dir, key):
    for line in (build_dir / "CMakeCache.txt").read_text().splitlines():
        if line.startswith(key + ":"):
            return line.split("=", 1)[1]
    return ""


def _run(argv, **kw):
    r = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(str(a) for a in argv)} failed:\n{(r.stdout + r.stderr)[-2000:]}")
    return r.stdout


def library(lab, variant, selection):
    """Builds libkpqc as VARIANTS[variant] says; returns its build directory."""
    d = lab.build.dir / "footprint" / variant
    _run(["cmake", "-S", ROOT, "-B", d, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DKPQC_BUILD_PROVIDER=OFF",
          "-DBUILD_TESTING=OFF", f"-DKPQC_ALGORITHMS={';'.join(selection)}", f"-DCMAKE_C_FLAGS={SECTIONS}",
          *VARIANTS[variant][0]])
    _run(["cmake", "--build", d, "--target", "kpqc", "-j", str(os.cpu_count() or 1)])
    return d


def kept_bytes(map_path, member):
    """Bytes of the text, read-only and data input sections the linker kept
    from the archive members whose `archive(member)` matches `member`."""
    text = map_path.read_text(errors="replace")
    text = text[text.index("Linker script and memory map"):]
    total, pending = 0, None
    for line in text.splitlines():
        m = re.match(r"^ (\.\S+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        if m:
            section, size, source = m.group(1), int(m.group(2), 16), m.group(3)
        elif pending and (m := re.match(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S.*)$", line)):
            section, size, source = pending, int(m.group(1), 16), m.group(2)
        else:
            pending = (m := re.match(r"^ (\.\S+)\s*$", line)) and m.group(1)
            continue
        pending = None
        if re.match(r"\.(text|rodata|data)", section) and re.search(member, source):
            total += size
    return total


def compiler(build_dir):
    return _cache(build_dir, "CMAKE_C_COMPILER") or "cc"


def program(cc, out, defines, includes, archive):
    """Links kpqc-footprint statically against `archive`; returns (exe, map)."""
    exe, link_map = out, out.with_suffix(".map")
    _run([cc, "-O2", "-std=c11", "-D_GNU_SOURCE", *[f"-I{i}" for i in includes], *defines,
          ROOT / "bench" / "src" / "kpqc-footprint.c", archive, "-Wl,--gc-sections", f"-Wl,-Map={link_map}",
          "-Wl," + ",".join(f"--wrap={f}" for f in WRAPPED), "-lpthread", "-ldl", "-o", exe])
    return exe, link_map


def measure(exe, env):
    """The program's three operations: {op: {"stack", "allocs", "heap_peak", "ok"}} in order."""
    out = _run([exe], env=dict(os.environ, **env), timeout=600)
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def runnable_paths(lab):
    """Code paths this CPU runs (kpqc-kat --impl under KPQC_IMPL)."""
    kat = lab.build.dir / "kpqc-kat"
    return {p for p in ("portable", "avx2", "avx512")
            if _run([kat, "--impl"], env=dict(os.environ, KPQC_IMPL=p)).strip() == p}


def tls_memory(lab, groups):
    """Heap of one handshake per group, as the handshake suite measures it
    (client and server together, the level's ECDSA certificate)."""
    rows = []
    for i, g in enumerate(groups):
        lab.progress("footprint tls", i, len(groups), g)
        lvl = next((lv for lv in (1, 3, 5) if g in handshake.groups(lv)), 1)
        try:
            _, hs = handshake.inproc(lab, g, handshake.SIGS[lvl][0], 3, heap=True)
        except RuntimeError:
            continue
        rows.append(lab.row("footprint_tls", level=lvl, group=g, sig=handshake.SIGS[lvl][0],
                            heap_peak=hs[-1]["heap_peak"], allocs=hs[-1]["allocs"]))
    lab.progress("footprint tls", len(groups), len(groups))
    return rows


def run(args, lab):
    t = algorithms.table()
    algs = [("kem", r) for r in t["kems"]] + [("sig", r) for r in t["sigs"]]
    variants = [v for v in args.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"footprint: unknown variant(s) {', '.join(sorted(unknown))}")
    work = lab.dir / "footprint"
    work.mkdir(exist_ok=True)
    code, stack = measure_kpqc(lab, algs, variants, work)
    ossl_code = measure_openssl(lab, work, stack)
    tables = [code_table(lab, algs, code, ossl_code), stack_table(lab, stack)]
    if not args.no_tls:
        tables.append(tls_table(tls_memory(lab, [r["name"] for r in t["kems"] + t["hybrids"]] + OPENSSL_GROUPS)))
    for title, md in tables:
        lab.section(title, md)
    if args.update_docs:
        update_docs(lab, args.update_docs, tables)
    return code


def measure_kpqc(lab, algs, variants, work):
    """Per library variant and parameter set: the code kept from libkpqc.a
    ({(name, variant): bytes}) and the operations on each path the variant
    has and the CPU runs ([(level, display, path, ops)])."""
    paths, cc = runnable_paths(lab), compiler(lab.build.dir)
    code, stack = {}, []
    for n, v in enumerate(variants):
        lab.progress("footprint build", n, len(variants), v)
        d = library(lab, v, [r["name"] for _, r in algs])
        for i, (kind, r) in enumerate(algs):
            lab.progress(f"footprint {v}", i, len(algs), r["name"])
            exe, link_map = program(cc, work / f"{v}-{r['name']}", [f"-DFOOTPRINT_{kind.upper()}={r['name']}"],
                                    [ROOT / "src", ROOT / "src" / "common", ROOT / "include", d / "generated"],
                                    d / "libkpqc.a")
            code[(r["name"], v)] = kept_bytes(link_map, r"libkpqc\.a\(")
            for path in (p for p in VARIANTS[v][1] if p in paths):
                label = path + (" -Os" if v == "size-first" else "")
                stack.append((r["level"], r["display"], label, measure(exe, {"KPQC_IMPL": path})))
        lab.progress(f"footprint {v}", len(algs), len(algs))
    return code, stack


def measure_openssl(lab, work, stack):
    """OpenSSL's comparators, linked statically against its libcrypto.a:
    their code ({name: bytes}); their operations are appended to `stack`."""
    prefix = _cache(lab.build.dir, "KPQC_OPENSSL_PREFIX")
    code = {}
    if not prefix or not os.path.exists(f"{prefix}/lib/libcrypto.a"):
        return code
    for kind, name, lvl, members in OPENSSL:
        exe, link_map = program(compiler(lab.build.dir), work / f"openssl-{name}",
                                [f'-DFOOTPRINT_OPENSSL_{kind.upper()}="{name}"'], [f"{prefix}/include"],
                                f"{prefix}/lib/libcrypto.a")
        code[name] = kept_bytes(link_map, r"libcrypto\.a\((" + members + r")\)")
        stack.append((lvl, f"{name} (OpenSSL)", "OpenSSL's default", measure(exe, {"OPENSSL_CONF": "/dev/null"})))
    return code


def code_table(lab, algs, code, ossl_code):
    rows = []
    for _, r in algs:
        sizes = [code.get((r["name"], v)) for v in VARIANTS]
        rows.append([r["level"], r["display"], *[f"{s:,}" if s is not None else "–" for s in sizes]])
        lab.row("footprint_code", alg=r["name"], level=r["level"],
                **{f"code_{v}": code.get((r["name"], v)) for v in VARIANTS})
    for _, name, lvl, _ in OPENSSL:
        if name in ossl_code:
            rows.append([lvl, f"{name} (OpenSSL: its objects and SHA-3)", "–", f"{ossl_code[name]:,}", "–"])
            lab.row("footprint_code", alg=name, level=lvl, code_openssl=ossl_code[name])
    return ("Code each algorithm adds to a static program (bytes of code, constants and data the linker keeps, "
            "--gc-sections)",
            md_table(["level", "algorithm", "portable -O3", "with vector paths -O3", "size-first -Os"],
                     sorted(rows, key=lambda x: x[0])))


def stack_table(lab, stack):
    rows = []
    for lvl, name, path, ops in stack:
        rows.append([lvl, name, path, *[f"{o['stack']:,}" + ("" if o["ok"] else " (failed)") for o in ops],
                     " / ".join(str(o["allocs"]) for o in ops), " / ".join(f"{o['heap_peak']:,}" for o in ops)])
        lab.row("footprint_stack", alg=name, level=lvl, path=path,
                **{f"{o['op']}_{k}": o[k] for o in ops for k in ("stack", "allocs", "heap_peak")})
    return ("Peak stack per operation (bytes, painted stack) and heap (allocations and peak bytes per operation: "
            "keygen / encaps or sign / decaps or verify)",
            md_table(["level", "algorithm", "path", "keygen stack", "encaps / sign stack", "decaps / verify stack",
                      "heap allocations", "heap peak"], sorted(rows, key=lambda x: (x[0], x[1]))))


def tls_table(tls):
    return ("Heap of a TLS 1.3 handshake per group (client and server together, as in the handshake suite's heap "
            "table)",
            md_table(["level", "group", "certificate", "peak KiB", "allocations"],
                     [[r["level"], r["group"], r["sig"], f"{r['heap_peak'] / 1024:.0f}", r["allocs"]]
                      for r in sorted(tls, key=lambda r: (r["level"], r["heap_peak"]))]))


def update_docs(lab, path, tables):
    """Replaces what follows the MEASURED line of `path` with this run's tables."""
    sys.path.insert(0, str(ROOT / "tools"))
    import kpqc_table
    doc = pathlib.Path(path)
    head = kpqc_table.generated_part(doc.read_text())
    env = lab.env
    body = [head, kpqc_table.MEASURED, "", "## Footprint", "",
            f"`kpqc-bench footprint` on {env.get('cpu', 'this machine')} ({env.get('cores', '?')} cores), "
            f"{env.get('compiler', '')}, {env.get('openssl', '')}, commit {env.get('commit', '')}; how it measures "
            "and what the numbers mean: [footprint.md](footprint.md).", ""]
    for title, md in tables:
        body += [f"### {title}", "", md, ""]
    doc.write_text("\n".join(body))
