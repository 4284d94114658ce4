"""Certificates for mutual TLS with the broker: one CA per signature
algorithm, a server and a client certificate under it, and the bad ones
the broker must refuse (a client certificate from another CA, an expired
one).  Everything is made with the build's openssl CLI, so any algorithm
the provider offers works by name."""
import base64
import pathlib
import subprocess

from . import algorithms


class SigAlg:
    """A certificate key type: `name` for reports and file names, `newkey` for `openssl req`."""

    def __init__(self, name, newkey, kind, level=None, provider_id=None):
        self.name, self.newkey, self.kind, self.level = name, newkey, kind, level
        self.provider_id = provider_id  # set for kpqcprovider's algorithms

    def __repr__(self):
        return self.name


def listener_algorithms(table=None):
    """The broker's listeners, one per server-certificate algorithm: the
    published set (ECDSA-P256, ML-DSA-44/65/87, OpenSSL's own), every
    HAETAE level, AIMer's fastest level-1 set and the P-256 composites."""
    t = table or algorithms.table()
    algs = [SigAlg("ECDSA-P256", ["ec", "-pkeyopt", "ec_paramgen_curve:P-256"], "classical", 1)]
    algs += [SigAlg(n, [n], "pure PQC", lvl) for n, lvl in (("ML-DSA-44", 2), ("ML-DSA-65", 3), ("ML-DSA-87", 5))]
    aimer = [s for s in t["sigs"] if s["family"] == "aimer" and s["level"] == 1 and s["name"].endswith("f")][:1]
    for s in [s for s in t["sigs"] if s["family"] == "haetae"] + aimer:
        algs.append(SigAlg(s["display"], [s["name"]], "pure PQC", s["level"], s["name"]))
    kpqc = [a.provider_id for a in algs if a.provider_id]
    for c in t["composites"]:
        if c["curve"] == "p256" and c["sig"] in kpqc:
            algs.append(SigAlg(c["name"], [c["name"]], "hybrid", c["level"], c["name"]))
    return algs


def offered_signatures(openssl):
    """Lower-case names of every signature algorithm the build's OpenSSL offers."""
    out = subprocess.run([openssl, "list", "-signature-algorithms"], capture_output=True, text=True, timeout=60).stdout
    names = set()
    for line in out.splitlines():
        inner = line.split("@")[0].strip().strip("{} ")
        names.update(n.strip().lower() for n in inner.split(","))
    return names


def der_size(pem_path):
    text = pathlib.Path(pem_path).read_text()
    body = text.split("-----BEGIN CERTIFICATE-----")[1].split("-----END CERTIFICATE-----")[0]
    return len(base64.b64decode("".join(body.split())))


class PkiError(RuntimeError):
    pass


def wanted_listeners(table, sigs=""):
    algs = listener_algorithms(table)
    if sigs:
        wanted = [s.strip().lower() for s in sigs.split(",")]
        algs = [a for a in algs if a.name.lower() in wanted]
    return algs


def prepare_listeners(pki, algs, offered):
    """Certificates for every listener the provider can serve; the others get a reason."""
    ready, unavailable = {}, {}
    for alg in algs:
        if alg.provider_id and alg.provider_id.lower() not in offered:
            unavailable[alg.name] = "not offered by kpqcprovider in this build"
            continue
        try:
            ready[alg.name] = dict(pki.listener_set(alg), alg=alg)
        except (PkiError, subprocess.TimeoutExpired) as e:
            unavailable[alg.name] = f"certificates could not be made: {e}"
    return ready, unavailable


class Pki:
    def __init__(self, build_dir, directory):
        self.openssl = str(pathlib.Path(build_dir) / "kpqc-openssl")
        self.dir = pathlib.Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)

    def _run(self, *args, stdin=None):
        r = subprocess.run([self.openssl, *args], capture_output=True, text=True, timeout=300, input=stdin)
        if r.returncode != 0:
            lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
            raise PkiError(f"openssl {args[0]}: " + (lines[-1] if lines else f"exit {r.returncode}"))
        return r

    def ca(self, alg, tag="ca"):
        """A self-signed CA of `alg`; returns (cert, key)."""
        cert, key = self.dir / f"{alg.name}-{tag}.pem", self.dir / f"{alg.name}-{tag}.key"
        self._run("req", "-x509", "-newkey", *alg.newkey, "-keyout", str(key), "-out", str(cert), "-nodes",
                  "-days", "3", "-subj", f"/CN=kpqc-bench {alg.name} {tag}",
                  "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        return cert, key

    def leaf(self, alg, ca, role, tag=None, expired=False):
        """A server or client certificate of `alg` issued by `ca` = (cert, key).
        Servers are named localhost / 127.0.0.1, as clients check."""
        tag = tag or role
        cert, key, csr = (self.dir / f"{alg.name}-{tag}.pem", self.dir / f"{alg.name}-{tag}.key",
                          self.dir / f"{alg.name}-{tag}.csr")
        self._run("req", "-new", "-newkey", *alg.newkey, "-keyout", str(key), "-out", str(csr), "-nodes",
                  "-subj", f"/CN={'localhost' if role == 'server' else 'kpqc-bench ' + tag}")
        ext = self.dir / f"{alg.name}-{tag}.ext"
        ext.write_text("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n" +
                       ("extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n"
                        if role == "server" else "extendedKeyUsage=clientAuth\n"))
        validity = (["-not_before", "20200101000000Z", "-not_after", "20200102000000Z"] if expired
                    else ["-days", "3"])
        self._run("x509", "-req", "-in", str(csr), "-CA", str(ca[0]), "-CAkey", str(ca[1]), "-out", str(cert),
                  "-extfile", str(ext), *validity)
        csr.unlink()
        ext.unlink()
        return cert, key

    def listener_set(self, alg):
        """CA, server and client certificates for one listener."""
        ca = self.ca(alg)
        return {"ca": ca, "server": self.leaf(alg, ca, "server"), "client": self.leaf(alg, ca, "client")}

    def bad_clients(self, alg, ca):
        """Client certificates the broker must refuse: issued by another CA
        of the same algorithm, and expired (issued by the right CA)."""
        rogue = self.ca(alg, tag="rogue-ca")
        return {"other CA": self.leaf(alg, rogue, "client", tag="rogue-client"),
                "expired": self.leaf(alg, ca, "client", tag="expired-client", expired=True)}
