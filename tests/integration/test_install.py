"""`cmake --install build --prefix P` gives what a user of the library and
of the provider expects: libkpqc static and shared (versioned soname), its
headers, kpqc-kat, kpqc.pc, the CMake package kpqc, the provider module in
P/<libdir>/ossl-modules, OpenSSL configuration files in P/share/kpqc-tls and
the commands kpqc-openssl, kpqc-env and kpqc-probe (test_deploy.py runs them).
Programs are built against the installed files only."""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT_CONSUMER = pathlib.Path(__file__).resolve().parents[1] / "install" / "consumer"


def _kpqc_groups(table, listed):
    ids = {r["id"] for r in table["KEM"] + table["HYBRID"]}
    return sorted(g for g in listed if g in ids)


def test_layout(installed):
    p, lib = installed.prefix, installed.libdir
    for f in (lib / "libkpqc.a", lib / "libkpqc.so", p / "include/kpqc/kpqc.h", p / "include/kpqc/drbg.h",
              p / "bin/kpqc-kat", lib / "pkgconfig/kpqc.pc", lib / "cmake/kpqc/kpqcConfig.cmake",
              lib / "cmake/kpqc/kpqcConfigVersion.cmake", lib / "ossl-modules/kpqcprovider.so",
              installed.share / "kpqc-provider.cnf", installed.share / "openssl.cnf",
              installed.share / "systemd/kpqc-tls.conf"):
        assert f.is_file(), f
    for f in (p / "bin/kpqc-openssl", p / "bin/kpqc-env", p / "bin/kpqc-probe"):
        assert f.is_file() and os.access(f, os.X_OK), f
    dyn = subprocess.run(["readelf", "-d", str(lib / "libkpqc.so")], capture_output=True, text=True, check=True)
    soname = re.search(r"Library soname: \[(libkpqc\.so\.[0-9.]+)\]", dyn.stdout).group(1)
    assert (lib / soname).is_file()
    # Installed files name the prefix they were installed to, not the build tree.
    for f in (lib / "pkgconfig/kpqc.pc", installed.share / "kpqc-provider.cnf", installed.share / "openssl.cnf",
              installed.share / "systemd/kpqc-tls.conf", p / "bin/kpqc-env", p / "bin/kpqc-openssl"):
        text = f.read_text()
        assert str(installed.prefix) in text and str(installed.build) not in text, f


def test_shared_library_exports_exactly_the_interface(installed):
    headers = "".join((installed.prefix / "include/kpqc" / h).read_text() for h in ("kpqc.h", "drbg.h"))
    declared = set(re.findall(r"^KPQC_API [^(]*?\b(kpqc_\w+)\(", headers, re.M))
    nm = subprocess.run(["nm", "-D", "--defined-only", str(installed.libdir / "libkpqc.so")],
                        capture_output=True, text=True, check=True).stdout
    exported = {line.split()[-1] for line in nm.splitlines() if line.strip()}
    assert declared and exported == declared
    # The provider links libkpqc in and exports only its entry point.
    nm = subprocess.run(["nm", "-D", "--defined-only", str(installed.libdir / "ossl-modules/kpqcprovider.so")],
                        capture_output=True, text=True, check=True).stdout
    assert [line.split()[-1] for line in nm.splitlines() if line.strip()] == ["OSSL_provider_init"]


def test_kpqc_kat_runs(installed, lab, table):
    out = subprocess.run([str(installed.prefix / "bin/kpqc-kat"), "--list"], capture_output=True, text=True,
                         check=True, timeout=60).stdout.split()
    kems = lab.run("list", "-kem-algorithms").stdout
    assert [k["id"] for k in table["KEM"] if k["id"] in out] == [k["id"] for k in table["KEM"] if k["id"] in kems]
    first = subprocess.run([str(installed.prefix / "bin/kpqc-kat"), out[0], "--count", "1"], capture_output=True,
                           text=True, check=True, timeout=60).stdout
    assert "count = 0" in first


def _run_round_trip(installed, exe):
    out = subprocess.run([str(exe)], env=installed.env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert re.match(r"^[1-9][0-9]* KEMs agree", out.stdout), out.stdout
    return out.stdout


def test_pkg_config_program(installed, tmp_path):
    if shutil.which("pkg-config") is None:
        pytest.fail("pkg-config is missing (scripts/install-deps.sh installs it)")
    env = installed.env()
    env["PKG_CONFIG_PATH"] = str(installed.libdir / "pkgconfig")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "kpqc"], env=env, capture_output=True, text=True,
                           check=True).stdout.split()
    assert f"-I{installed.prefix}/include" in flags and "-lkpqc" in flags
    exe = tmp_path / "kem_roundtrip"
    subprocess.run(["cc", "-std=c11", "-o", str(exe), str(ROOT_CONSUMER / "kem_roundtrip.c"), *flags], check=True,
                   timeout=120)
    ldd = subprocess.run(["ldd", str(exe)], env=env, capture_output=True, text=True, check=True).stdout
    assert str(installed.libdir / "libkpqc.so.") in ldd, ldd
    _run_round_trip(installed, exe)


def test_find_package_program(installed, tmp_path):
    build = tmp_path / "consumer"
    subprocess.run([installed.cmake, "-S", str(ROOT_CONSUMER), "-B", str(build), "-G", "Ninja",
                    f"-DCMAKE_PREFIX_PATH={installed.prefix}"], check=True, capture_output=True, timeout=120)
    subprocess.run([installed.cmake, "--build", str(build)], check=True, capture_output=True, timeout=300)
    shared = _run_round_trip(installed, build / "kem_roundtrip")
    static = _run_round_trip(installed, build / "kem_roundtrip_static")
    assert shared.split()[0] == static.split()[0]


def test_installed_provider_lists_the_groups(installed, lab, table):
    want = _kpqc_groups(table, lab.built_groups())
    assert want
    listed = installed.openssl("list", "-tls-groups", "-tls1_3").stdout.strip().split(":")
    assert _kpqc_groups(table, listed) == want
    providers = installed.openssl("list", "-providers").stdout
    assert "kpqcprovider" in providers and "default" in providers
    assert str(installed.libdir / "ossl-modules/kpqcprovider.so") in installed.share.joinpath(
        "kpqc-provider.cnf").read_text()


def test_snippet_included_by_a_distribution_cnf(installed, lab, table, tmp_path):
    """Appended to an openssl.cnf as distributions ship it (openssl_conf
    first, its own sections for the CLI and libssl), the snippet adds the
    provider and leaves the rest working."""
    conf = tmp_path / "openssl.cnf"
    conf.write_text(
        "openssl_conf = openssl_init\n\n"
        "[openssl_init]\nssl_conf = ssl_sect\n\n"
        "[ssl_sect]\nsystem_default = system_default_sect\n\n"
        "[system_default_sect]\nMinProtocol = TLSv1.2\n\n"
        "[ req ]\ndistinguished_name = req_distinguished_name\n\n[ req_distinguished_name ]\n\n"
        f".include {installed.share / 'kpqc-provider.cnf'}\n")
    listed = installed.openssl("list", "-tls-groups", "-tls1_3", conf=conf).stdout.strip().split(":")
    assert _kpqc_groups(table, listed) == _kpqc_groups(table, lab.built_groups())
    assert "X25519MLKEM768" in listed  # the default provider stays active
    key = tmp_path / "k.pem"
    installed.openssl("genpkey", "-algorithm", table["KEM"][0]["id"], "-out", str(key), conf=conf)
    assert "PRIVATE KEY" in key.read_text()


def test_debian_package_holds_the_installed_files(installed, tmp_path):
    """`cpack -G DEB` packs the same files under the configured prefix, the
    configuration files naming that prefix."""
    cache = installed.cache
    cpack = pathlib.Path(installed.cmake).with_name("cpack")
    subprocess.run([str(cpack), "-G", "DEB", "--config", str(installed.build / "CPackConfig.cmake"), "-B",
                    str(tmp_path)], check=True, capture_output=True, timeout=300)
    deb = next(tmp_path.glob("kpqc-tls_*.deb"))
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    prefix = pathlib.Path(cache["CMAKE_INSTALL_PREFIX"])
    packed = {pathlib.Path(line.split()[5].lstrip(".")).relative_to(prefix)
              for line in listing.splitlines() if not line.startswith("d")}
    installed_files = {p.relative_to(installed.prefix) for p in installed.prefix.rglob("*") if not p.is_dir()}
    assert packed == installed_files
    cnf = subprocess.run(f"dpkg-deb --fsys-tarfile {deb} | tar -xO .{prefix}/share/kpqc-tls/kpqc-provider.cnf",
                         shell=True, capture_output=True, text=True, check=True).stdout
    assert f"module = {prefix}/{cache['CMAKE_INSTALL_LIBDIR']}/ossl-modules/kpqcprovider.so" in cnf
    depends = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends"], capture_output=True, text=True,
                             check=True).stdout
    assert "libssl3 (>= 3.5)" in depends
