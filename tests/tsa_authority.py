"""A local RFC 3161 time-stamping authority for tests, built on ``openssl ts -reply``.

Register with ``pytest_plugins = ["tsa_authority"]``. The ``local_tsa`` fixture (session scope)
creates a throw-away CA and a TSA certificate signed by it (extendedKeyUsage critical,
timeStamping), writes an ``openssl.cnf`` with a ``[tsa]`` section, and serves
``POST`` requests on ``http://127.0.0.1:<port>/`` (loopback only) by running
``openssl ts -reply`` on each query. Tests are skipped if the ``openssl`` command is missing.

The yielded :class:`LocalTSA` has ``url``, ``ca_cert_pem`` (bytes), ``ca_cert_path``, plus
``tsa_cert_path``, ``directory`` and ``requests`` (the Content-Type of every request received).
"""

from __future__ import annotations

import http.server
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

QUERY_MEDIA_TYPE = "application/timestamp-query"
REPLY_MEDIA_TYPE = "application/timestamp-reply"
POLICY_OID = "1.2.3.4.1"
CA_SUBJECT = "/O=casebuilder tests/CN=casebuilder test CA"
TSA_SUBJECT = "/O=casebuilder tests/CN=casebuilder test TSA"
_MAX_QUERY_BYTES = 64 * 1024

_REQ_CNF = """\
[ req ]
distinguished_name = req_dn
prompt = no

[ req_dn ]
CN = placeholder

[ v3_ca ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash

[ v3_tsa ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
"""

_TSA_CNF = """\
[ tsa ]
default_tsa = tsa_config

[ tsa_config ]
serial = {serial}
crypto_device = builtin
signer_cert = {tsa_cert}
certs = {ca_cert}
signer_key = {tsa_key}
signer_digest = sha256
default_policy = {policy}
other_policies = 1.2.3.4.5.6
digests = sha256
accuracy = secs:1, millisecs:500, microsecs:100
clock_precision_digits = 0
ordering = yes
tsa_name = yes
ess_cert_id_chain = yes
ess_cert_id_alg = sha256
"""


def openssl_path() -> str:
    """The ``openssl`` executable, or skip the test that needs it."""
    path = shutil.which("openssl")
    if path is None:
        pytest.skip("the openssl command line tool is not installed; the local TSA needs it")
    return path


def run_openssl(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run ``openssl`` with ``args``; fail loudly with its stderr if it exits non-zero."""
    result = subprocess.run(
        [openssl_path(), *map(str, args)], cwd=cwd, capture_output=True, check=False, timeout=60
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"openssl {' '.join(map(str, args))} failed ({result.returncode}):\n"
            + result.stderr.decode(errors="replace")
        )
    return result


def make_ca(directory: Path, name: str = "ca", subject: str = CA_SUBJECT) -> tuple[Path, Path]:
    """Self-signed CA (RSA 2048) as ``<name>.pem`` and ``<name>.key`` in ``directory``."""
    cnf = directory / "req.cnf"
    cnf.write_text(_REQ_CNF)
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    run_openssl(
        "req", "-x509", "-config", cnf, "-extensions", "v3_ca", "-newkey", "rsa:2048",
        "-nodes", "-keyout", key, "-out", cert, "-subj", subject, "-days", "30", "-sha256",
    )  # fmt: skip
    return cert, key


def make_tsa_cert(
    directory: Path, ca_cert: Path, ca_key: Path, *, key_spec: str = "rsa:2048"
) -> tuple[Path, Path]:
    """TSA key and certificate issued by the CA, with extendedKeyUsage critical,timeStamping."""
    cnf = directory / "req.cnf"
    cnf.write_text(_REQ_CNF)
    key, csr, cert = directory / "tsa.key", directory / "tsa.csr", directory / "tsa.pem"
    run_openssl(
        "req", "-new", "-config", cnf, "-newkey", key_spec, "-nodes", "-keyout", key,
        "-out", csr, "-subj", TSA_SUBJECT,
    )  # fmt: skip
    run_openssl(
        "x509", "-req", "-in", csr, "-CA", ca_cert, "-CAkey", ca_key, "-set_serial", "4242",
        "-days", "30", "-sha256", "-extfile", cnf, "-extensions", "v3_tsa", "-out", cert,
    )  # fmt: skip
    return cert, key


@dataclass
class LocalTSA:
    url: str
    ca_cert_path: Path
    ca_cert_pem: bytes
    tsa_cert_path: Path
    config_path: Path
    directory: Path
    requests: list[str] = field(default_factory=list)


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _TSAServer

    def do_POST(self) -> None:
        content_type = self.headers.get("Content-Type", "")
        self.server.tsa.requests.append(content_type)
        if content_type != QUERY_MEDIA_TYPE:
            self.send_error(415, f"expected {QUERY_MEDIA_TYPE}")
            return
        length = int(self.headers.get("Content-Length", "0"))
        if not 0 < length <= _MAX_QUERY_BYTES:
            self.send_error(400, "bad Content-Length")
            return
        query = self.rfile.read(length)
        try:
            reply = self.server.reply(query)
        except RuntimeError as exc:
            self.send_error(500, str(exc).splitlines()[0])
            return
        self.send_response(200)
        self.send_header("Content-Type", REPLY_MEDIA_TYPE)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep pytest output clean


class _TSAServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, tsa: LocalTSA) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.tsa = tsa
        # openssl ts -reply rewrites the serial file; one reply at a time keeps serials unique.
        self._lock = threading.Lock()

    def reply(self, query: bytes) -> bytes:
        with self._lock, tempfile.TemporaryDirectory(dir=self.tsa.directory) as tmp:
            query_path, reply_path = Path(tmp, "query.tsq"), Path(tmp, "reply.tsr")
            query_path.write_bytes(query)
            run_openssl(
                "ts", "-reply", "-config", self.tsa.config_path, "-queryfile", query_path,
                "-out", reply_path,
            )  # fmt: skip
            return reply_path.read_bytes()


@pytest.fixture(scope="session")
def local_tsa(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalTSA]:
    """A running local TSA on loopback; see the module docstring."""
    openssl_path()
    directory = tmp_path_factory.mktemp("tsa")
    ca_cert, ca_key = make_ca(directory)
    tsa_cert, tsa_key = make_tsa_cert(directory, ca_cert, ca_key)
    serial = directory / "tsaserial"
    serial.write_text("01\n")
    config = directory / "openssl.cnf"
    config.write_text(
        _TSA_CNF.format(
            serial=serial, tsa_cert=tsa_cert, ca_cert=ca_cert, tsa_key=tsa_key, policy=POLICY_OID
        )
    )
    tsa = LocalTSA(
        url="",
        ca_cert_path=ca_cert,
        ca_cert_pem=ca_cert.read_bytes(),
        tsa_cert_path=tsa_cert,
        config_path=config,
        directory=directory,
    )
    server = _TSAServer(tsa)
    host, port = server.server_address[:2]
    tsa.url = f"http://{host}:{port}/tsa"
    thread = threading.Thread(target=server.serve_forever, name="local-tsa", daemon=True)
    thread.start()
    try:
        yield tsa
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
