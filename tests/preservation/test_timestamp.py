"""RFC 3161 time-stamps: real round trips through a local ``openssl ts`` authority, interoperability
with ``openssl ts -verify``, and tokens built here to reach every signature algorithm and every
way a token can be wrong."""

from __future__ import annotations

import hashlib
import socket
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from asn1crypto import algos, cms, core, tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from casebuilder.errors import TimestampError
from casebuilder.preservation.timestamp import (
    QUERY_MEDIA_TYPE,
    TimestampAuthority,
    TimestampToken,
    build_request,
    parse_response,
    urllib_transport,
    verify_token,
)

# The local TSA fixture (tests/tsa_authority.py) is registered by tests/conftest.py.

DIGEST = hashlib.sha256(
    b'{"case_id":"c1","root":"ab","time":"t","tree_size":1,"type":"x"}'
).digest()
OTHER_DIGEST = hashlib.sha256(b"something else").digest()


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch):
    # urllib honours *_proxy variables; the local TSA must be reached directly on loopback.
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture(scope="module")
def tsa_token(local_tsa) -> TimestampToken:
    authority = TimestampAuthority(local_tsa.url, ca_certs_pem=local_tsa.ca_cert_pem, timeout=30)
    return authority.timestamp(DIGEST)


def _openssl_verify(tmp_path: Path, token_der: bytes, digest: bytes, ca_path: Path):
    token_path = tmp_path / "token.tsr"
    token_path.write_bytes(token_der)
    # -token_in: the file holds the bare TimeStampToken (ContentInfo), not a TimeStampResp.
    return subprocess.run(
        ["openssl", "ts", "-verify", "-digest", digest.hex(), "-in", str(token_path),
         "-token_in", "-CAfile", str(ca_path)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip


def _flip(data: bytes, index: int) -> bytes:
    return data[:index] + bytes([data[index] ^ 0x01]) + data[index + 1 :]


def _signature_offset(token_der: bytes) -> tuple[int, int]:
    signature = cms.ContentInfo.load(token_der)["content"]["signer_infos"][0]["signature"].native
    offset = token_der.index(signature)
    return offset, len(signature)


# --- build_request ------------------------------------------------------------------------------


def test_build_request_is_a_der_timestampreq():
    der = build_request(DIGEST, nonce=2**63 + 5)
    request = tsp.TimeStampReq.load(der, strict=True)
    assert request["version"].native == "v1"
    assert request["message_imprint"]["hash_algorithm"]["algorithm"].native == "sha256"
    assert request["message_imprint"]["hashed_message"].native == DIGEST
    assert request["nonce"].native == 2**63 + 5
    assert request["cert_req"].native is True
    assert request.dump(force=True) == der
    no_cert = tsp.TimeStampReq.load(build_request(DIGEST, nonce=1, cert_req=False))
    assert no_cert["cert_req"].native is False


@pytest.mark.parametrize("digest", [b"", b"\x00" * 31, hashlib.sha512(b"x").digest()])
def test_build_request_refuses_a_digest_that_is_not_sha256(digest):
    with pytest.raises(TimestampError, match="32 bytes"):
        build_request(digest, nonce=1)


# --- round trip through the local openssl TSA ---------------------------------------------------


def test_round_trip_yields_a_token_that_verifies_under_the_ca(local_tsa, tsa_token):
    assert local_tsa.requests and all(ct == QUERY_MEDIA_TYPE for ct in local_tsa.requests)
    checked = verify_token(tsa_token.token_der, DIGEST, ca_certs_pem=local_tsa.ca_cert_pem)
    assert checked == tsa_token
    assert tsa_token.gen_time.tzinfo is not None
    assert tsa_token.gen_time.utcoffset() == timedelta(0)
    assert abs(datetime.now(UTC) - tsa_token.gen_time) < timedelta(minutes=2)
    assert tsa_token.policy == "1.2.3.4.1"
    assert tsa_token.serial_number >= 1
    assert tsa_token.tsa_name is not None
    assert "casebuilder test TSA" in tsa_token.tsa_name


def test_each_request_gets_a_fresh_nonce_and_serial(local_tsa):
    nonces = iter([11, 12])
    authority = TimestampAuthority(local_tsa.url, nonce_source=lambda: next(nonces))
    first, second = authority.timestamp(DIGEST), authority.timestamp(DIGEST)
    assert first.serial_number != second.serial_number
    tst = cms.ContentInfo.load(second.token_der)["content"]["encap_content_info"]["content"]
    assert tst.parsed["nonce"].native == 12


def test_openssl_ts_verify_accepts_our_token(tmp_path, local_tsa, tsa_token):
    result = _openssl_verify(tmp_path, tsa_token.token_der, DIGEST, local_tsa.ca_cert_path)
    assert result.returncode == 0, result.stderr
    assert "Verification: OK" in result.stdout


def test_openssl_ts_verify_agrees_on_what_is_bad(tmp_path, local_tsa, tsa_token):
    # Proves the interoperability check above could fail: openssl rejects what we reject.
    wrong_digest = _openssl_verify(
        tmp_path, tsa_token.token_der, OTHER_DIGEST, local_tsa.ca_cert_path
    )
    assert wrong_digest.returncode != 0
    offset, length = _signature_offset(tsa_token.token_der)
    tampered = _flip(tsa_token.token_der, offset + length // 2)
    bad_signature = _openssl_verify(tmp_path, tampered, DIGEST, local_tsa.ca_cert_path)
    assert bad_signature.returncode != 0


def test_a_different_digest_is_rejected(local_tsa, tsa_token):
    with pytest.raises(TimestampError, match="messageImprint does not match"):
        verify_token(tsa_token.token_der, OTHER_DIGEST, ca_certs_pem=local_tsa.ca_cert_pem)


@pytest.mark.parametrize("where", [0, 1, -1])
def test_a_flipped_byte_in_the_signature_is_rejected(local_tsa, tsa_token, where):
    offset, length = _signature_offset(tsa_token.token_der)
    index = offset + (length // 2 if where == 1 else 0 if where == 0 else length - 1)
    tampered = _flip(tsa_token.token_der, index)
    with pytest.raises(TimestampError, match="signature over the time-stamp token does not verify"):
        verify_token(tampered, DIGEST)
    with pytest.raises(TimestampError, match="does not verify"):
        verify_token(tampered, DIGEST, ca_certs_pem=local_tsa.ca_cert_pem)


def test_an_altered_tstinfo_is_rejected(tsa_token):
    tst_der = bytes(
        cms.ContentInfo.load(tsa_token.token_der)["content"]["encap_content_info"]["content"]
    )
    # The last bytes of the TSTInfo are the TSA name; changing one letter leaves it well formed.
    index = tsa_token.token_der.index(tst_der) + len(tst_der) - 1
    tampered = _flip(tsa_token.token_der, index)
    with pytest.raises(TimestampError, match="messageDigest does not match"):
        verify_token(tampered, DIGEST)


def test_a_ca_that_did_not_issue_the_tsa_certificate_is_rejected(local_tsa, tsa_token):
    # Same subject name as the real CA, different key: only the signature check can tell.
    real_ca = x509.load_pem_x509_certificate(local_tsa.ca_cert_pem)
    impostor = _self_signed_ca(ec.generate_private_key(ec.SECP256R1()), real_ca.subject)
    pem = impostor.public_bytes(serialization.Encoding.PEM)
    with pytest.raises(TimestampError, match="not issued by any of the given CA certificates"):
        verify_token(tsa_token.token_der, DIGEST, ca_certs_pem=pem)
    # Any one of several CAs is enough.
    verify_token(tsa_token.token_der, DIGEST, ca_certs_pem=pem + local_tsa.ca_cert_pem)


def test_garbage_ca_pem_is_a_timestamp_error(tsa_token):
    with pytest.raises(TimestampError, match="not valid PEM"):
        verify_token(tsa_token.token_der, DIGEST, ca_certs_pem=b"not a certificate")


def test_a_response_with_the_wrong_nonce_is_rejected(local_tsa):
    response = urllib_transport(local_tsa.url, build_request(DIGEST, nonce=1000), 30)
    assert parse_response(response, digest=DIGEST, nonce=1000).token_der
    with pytest.raises(TimestampError, match="nonce 1000 does not match the request's 1001"):
        parse_response(response, digest=DIGEST, nonce=1001)


def test_a_replayed_reply_is_caught_by_the_authority(local_tsa):
    # A man in the middle answers with a genuine token for another request (another nonce).
    def replaying_transport(url: str, body: bytes, timeout: float) -> bytes:
        nonce = tsp.TimeStampReq.load(body)["nonce"].native
        return urllib_transport(url, build_request(DIGEST, nonce=nonce + 1), timeout)

    authority = TimestampAuthority(local_tsa.url, transport=replaying_transport)
    with pytest.raises(TimestampError, match="nonce"):
        authority.timestamp(DIGEST)


def test_a_response_for_another_digest_is_rejected(local_tsa):
    response = urllib_transport(local_tsa.url, build_request(OTHER_DIGEST, nonce=7), 30)
    with pytest.raises(TimestampError, match="messageImprint does not match"):
        parse_response(response, digest=DIGEST, nonce=7)


def test_the_real_tsa_refusing_a_request_is_a_timestamp_error(local_tsa):
    # The local TSA only accepts SHA-256 imprints; openssl answers a SHA-512 one with rejection.
    request = tsp.TimeStampReq(
        {
            "version": 1,
            "message_imprint": {
                "hash_algorithm": {"algorithm": "sha512"},
                "hashed_message": hashlib.sha512(b"x").digest(),
            },
            "nonce": 5,
            "cert_req": True,
        }
    ).dump()
    response = urllib_transport(local_tsa.url, request, 30)
    with pytest.raises(TimestampError, match=r"refused the request: rejection.*bad_alg"):
        parse_response(response, digest=DIGEST, nonce=5)


# --- fake transports ----------------------------------------------------------------------------


class _StatusOnlyResp(core.Sequence):
    """TimeStampResp without a token (asn1crypto's own spec wrongly makes the token mandatory)."""

    _fields = [  # noqa: RUF012 - asn1crypto's declaration style
        ("status", tsp.PKIStatusInfo),
        ("time_stamp_token", cms.ContentInfo, {"optional": True}),
    ]


@pytest.mark.parametrize("status", ["rejection", "waiting", "revocation_notification"])
def test_a_refusal_status_from_the_server_is_a_timestamp_error(status):
    response = _StatusOnlyResp(
        {
            "status": {
                "status": status,
                "status_string": ["policy says no"],
                "fail_info": {"unaccepted_policy"},
            }
        }
    ).dump()
    authority = TimestampAuthority(
        "http://tsa.invalid/", transport=lambda url, body, timeout: response
    )
    with pytest.raises(
        TimestampError, match=rf"refused the request: {status}.*policy says no.*unaccepted_policy"
    ):
        authority.timestamp(DIGEST)


def test_granted_without_a_token_is_a_timestamp_error():
    response = _StatusOnlyResp({"status": {"status": "granted"}}).dump()
    with pytest.raises(TimestampError, match="carries no token"):
        parse_response(response, digest=DIGEST, nonce=1)


@pytest.mark.parametrize("body", [b"", b"<html>502 Bad Gateway</html>", b"\x30\x03\x02\x01\x00"])
def test_a_malformed_response_is_a_timestamp_error(body):
    with pytest.raises(TimestampError, match="not a valid TimeStampResp"):
        parse_response(body, digest=DIGEST, nonce=1)


@pytest.mark.parametrize("error", [OSError("network is unreachable"), TimeoutError("timed out")])
def test_a_transport_failure_is_a_timestamp_error(error):
    def failing(url: str, body: bytes, timeout: float) -> bytes:
        raise error

    authority = TimestampAuthority("https://tsa.invalid/tsr", transport=failing)
    with pytest.raises(TimestampError, match="could not be reached") as caught:
        authority.timestamp(DIGEST)
    assert caught.value.__cause__ is error


def test_the_transport_is_given_the_url_request_and_timeout():
    seen = []

    def recording(url: str, body: bytes, timeout: float) -> bytes:
        seen.append((url, body, timeout))
        raise OSError("stop here")

    authority = TimestampAuthority(
        "http://tsa.invalid/x", transport=recording, timeout=4.5, nonce_source=lambda: 99
    )
    with pytest.raises(TimestampError):
        authority.timestamp(DIGEST)
    assert seen == [("http://tsa.invalid/x", build_request(DIGEST, nonce=99), 4.5)]


def test_the_default_transport_reports_a_refused_connection_as_timestamp_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    authority = TimestampAuthority(f"http://127.0.0.1:{port}/", timeout=5)
    with pytest.raises(TimestampError, match="could not be reached"):
        authority.timestamp(DIGEST)


def test_the_default_transport_reports_an_http_error_as_oserror(local_tsa):
    # The local TSA answers 400 to a query over 64 KiB.
    with pytest.raises(OSError, match="HTTP Error 400"):
        urllib_transport(local_tsa.url, b"\x30" * 70_000, 30)


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://tsa.example/", "tsa.example", "http://"]
)
def test_only_http_urls_are_accepted(url):
    with pytest.raises(TimestampError, match="http"):
        TimestampAuthority(url)
    with pytest.raises(TimestampError, match="http"):
        urllib_transport(url, b"", 1)


# --- tokens built here: every algorithm and every defect ----------------------------------------


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "casebuilder tests"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _self_signed_ca(key, subject: x509.Name) -> x509.Certificate:
    now = datetime.now(UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(key, hashes.SHA256())
    )


@pytest.fixture(scope="module")
def python_ca():
    key = ec.generate_private_key(ec.SECP256R1())
    return key, _self_signed_ca(key, _name("python test CA"))


def _tsa_cert(
    ca, key, *, eku=(ExtendedKeyUsageOID.TIME_STAMPING,), eku_critical=True, valid_from=None
):
    ca_key, ca_cert = ca
    now = datetime.now(UTC)
    valid_from = valid_from or now - timedelta(days=1)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name("python test TSA"))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid_from)
        .not_valid_after(valid_from + timedelta(days=2))
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    )
    if eku:
        builder = builder.add_extension(x509.ExtendedKeyUsage(list(eku)), critical=eku_critical)
    return builder.sign(ca_key, hashes.SHA256())


_PSS_PARAMS = {
    "hash_algorithm": {"algorithm": "sha256"},
    "mask_gen_algorithm": {"algorithm": "mgf1", "parameters": {"algorithm": "sha256"}},
    "salt_length": 32,
    "trailer_field": "trailer_field_bc",
}


def _make_token(
    key,
    cert: x509.Certificate,
    *,
    digest: bytes = DIGEST,
    algorithm: dict | None = None,
    digest_algorithm: str = "sha256",
    sid: str = "issuer",
    include_cert: bool = True,
    ess: str | None = "v2",
    ess_cert: x509.Certificate | None = None,
    gen_time: datetime | None = None,
) -> bytes:
    """A TimeStampToken signed with ``key`` as a TSA would make it (or, by options, wrongly)."""
    tst_info = tsp.TSTInfo(
        {
            "version": 1,
            "policy": "1.2.3.4.7",
            "message_imprint": {
                "hash_algorithm": {"algorithm": "sha256"},
                "hashed_message": digest,
            },
            "serial_number": 77,
            "gen_time": gen_time or datetime.now(UTC).replace(microsecond=0),
            "nonce": 3,
        }
    )
    tst_der = tst_info.dump()
    cert_der = cert.public_bytes(serialization.Encoding.DER)
    asn1_cert = asn1_x509.Certificate.load(cert_der)
    attributes = [
        {"type": "content_type", "values": ["tst_info"]},
        {"type": "message_digest", "values": [hashlib.new(digest_algorithm, tst_der).digest()]},
    ]
    ess_der = (ess_cert or cert).public_bytes(serialization.Encoding.DER)
    if ess == "v2":
        attributes.append(
            {
                "type": "signing_certificate_v2",
                "values": [{"certs": [{"cert_hash": hashlib.sha256(ess_der).digest()}]}],
            }
        )
    elif ess == "v1":
        attributes.append(
            {
                "type": "signing_certificate",
                "values": [{"certs": [{"cert_hash": hashlib.sha1(ess_der).digest()}]}],
            }
        )
    if sid == "issuer":
        signer_id = cms.SignerIdentifier(
            name="issuer_and_serial_number",
            value={"issuer": asn1_cert.issuer, "serial_number": asn1_cert.serial_number},
        )
    else:
        signer_id = cms.SignerIdentifier(
            name="subject_key_identifier", value=asn1_cert.key_identifier
        )
    signer_info = cms.SignerInfo(
        {
            "version": "v1" if sid == "issuer" else "v3",
            "sid": signer_id,
            "digest_algorithm": {"algorithm": digest_algorithm},
            "signed_attrs": attributes,
            "signature_algorithm": algorithm,
            "signature": b"",
        }
    )
    to_sign = b"\x31" + signer_info["signed_attrs"].dump()[1:]
    hash_algorithm = getattr(hashes, digest_algorithm.upper())()
    if isinstance(key, ed25519.Ed25519PrivateKey):
        signature = key.sign(to_sign)
    elif isinstance(key, ec.EllipticCurvePrivateKey):
        signature = key.sign(to_sign, ec.ECDSA(hash_algorithm))
    elif algorithm["algorithm"] == "rsassa_pss":
        pss = padding.PSS(mgf=padding.MGF1(hash_algorithm), salt_length=32)
        signature = key.sign(to_sign, pss, hash_algorithm)
    else:
        signature = key.sign(to_sign, padding.PKCS1v15(), hash_algorithm)
    signer_info["signature"] = signature
    signed_data = {
        "version": "v3",
        "digest_algorithms": [{"algorithm": digest_algorithm}],
        "encap_content_info": {
            "content_type": "tst_info",
            "content": core.ParsableOctetString(tst_der),
        },
        "signer_infos": [signer_info],
    }
    if include_cert:
        signed_data["certificates"] = [asn1_cert]
    return cms.ContentInfo({"content_type": "signed_data", "content": signed_data}).dump()


@pytest.fixture(scope="module")
def rsa_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


_ALGORITHMS = {
    "rsa-pkcs1v15": ("rsa", {"algorithm": "sha256_rsa"}, "sha256"),
    "rsa-pkcs1v15-bare": ("rsa", {"algorithm": "rsassa_pkcs1v15"}, "sha384"),
    "rsa-pss": ("rsa", {"algorithm": "rsassa_pss", "parameters": _PSS_PARAMS}, "sha256"),
    "ecdsa-p256": ("ec", {"algorithm": "sha256_ecdsa"}, "sha256"),
    "ecdsa-p384-sha512": ("ec384", {"algorithm": "sha512_ecdsa"}, "sha512"),
    "ed25519": ("ed25519", {"algorithm": "ed25519"}, "sha512"),
}


def _key(kind, rsa_key):
    if kind == "rsa":
        return rsa_key
    if kind == "ec":
        return ec.generate_private_key(ec.SECP256R1())
    if kind == "ec384":
        return ec.generate_private_key(ec.SECP384R1())
    return ed25519.Ed25519PrivateKey.generate()


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


@pytest.mark.parametrize("name", list(_ALGORITHMS))
def test_every_supported_signature_algorithm_verifies(python_ca, rsa_key, name):
    kind, algorithm, digest_algorithm = _ALGORITHMS[name]
    key = _key(kind, rsa_key)
    cert = _tsa_cert(python_ca, key)
    token_der = _make_token(key, cert, algorithm=algorithm, digest_algorithm=digest_algorithm)
    token = verify_token(token_der, DIGEST, ca_certs_pem=_pem(python_ca[1]))
    assert token.policy == "1.2.3.4.7"
    assert token.serial_number == 77
    assert token.tsa_name is None
    # ...and the same token with one signature byte changed does not.
    offset, length = _signature_offset(token_der)
    with pytest.raises(TimestampError, match="does not verify"):
        verify_token(_flip(token_der, offset + length - 1), DIGEST)


def test_signer_found_by_subject_key_identifier_and_ess_v1(python_ca):
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _tsa_cert(python_ca, key)
    token_der = _make_token(key, cert, algorithm={"algorithm": "sha256_ecdsa"}, sid="ski", ess="v1")
    verify_token(token_der, DIGEST, ca_certs_pem=_pem(python_ca[1]))


def test_a_signer_certificate_missing_from_the_token_is_rejected(python_ca):
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _tsa_cert(python_ca, key)
    token_der = _make_token(key, cert, algorithm={"algorithm": "sha256_ecdsa"}, include_cert=False)
    with pytest.raises(TimestampError, match="certificate is not in the time-stamp token"):
        verify_token(token_der, DIGEST)


@pytest.mark.parametrize("ess", [None, "other-cert"])
def test_the_ess_signing_certificate_binding_is_checked(python_ca, ess):
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _tsa_cert(python_ca, key)
    # Same key, different certificate: the signature would verify, the binding must not.
    other = _tsa_cert(python_ca, key, eku=(ExtendedKeyUsageOID.CODE_SIGNING,))
    token_der = _make_token(
        key, cert, algorithm={"algorithm": "sha256_ecdsa"},
        ess=None if ess is None else "v2", ess_cert=other if ess else None,
    )  # fmt: skip
    with pytest.raises(TimestampError, match="ESS signing-certificate"):
        verify_token(token_der, DIGEST)


@pytest.mark.parametrize(
    ("eku", "critical"),
    [
        ((), True),
        ((ExtendedKeyUsageOID.TIME_STAMPING,), False),
        ((ExtendedKeyUsageOID.TIME_STAMPING, ExtendedKeyUsageOID.CODE_SIGNING), True),
        ((ExtendedKeyUsageOID.CODE_SIGNING,), True),
    ],
)
def test_a_certificate_not_for_time_stamping_is_rejected_under_a_ca(python_ca, eku, critical):
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _tsa_cert(python_ca, key, eku=eku, eku_critical=critical)
    token_der = _make_token(key, cert, algorithm={"algorithm": "sha256_ecdsa"})
    verify_token(token_der, DIGEST)  # intact; without a CA, who signed is not judged
    with pytest.raises(TimestampError, match="extendedKeyUsage"):
        verify_token(token_der, DIGEST, ca_certs_pem=_pem(python_ca[1]))


def test_a_certificate_not_valid_at_gen_time_is_rejected(python_ca):
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _tsa_cert(python_ca, key, valid_from=datetime.now(UTC) - timedelta(days=10))
    token_der = _make_token(key, cert, algorithm={"algorithm": "sha256_ecdsa"})
    with pytest.raises(TimestampError, match="not valid at the token's genTime"):
        verify_token(token_der, DIGEST, ca_certs_pem=_pem(python_ca[1]))


def test_a_weak_digest_algorithm_is_refused(python_ca, rsa_key):
    cert = _tsa_cert(python_ca, rsa_key)
    token_der = _make_token(
        rsa_key, cert, algorithm={"algorithm": "sha1_rsa"}, digest_algorithm="sha1"
    )
    with pytest.raises(TimestampError, match="broken hash sha1"):
        verify_token(token_der, DIGEST)


def test_a_signature_algorithm_that_contradicts_the_digest_algorithm_is_refused(python_ca, rsa_key):
    cert = _tsa_cert(python_ca, rsa_key)
    token_der = _make_token(
        rsa_key, cert, algorithm={"algorithm": "sha384_rsa"}, digest_algorithm="sha256"
    )
    with pytest.raises(TimestampError, match="disagrees with digest algorithm"):
        verify_token(token_der, DIGEST)


def test_a_key_of_the_wrong_type_for_the_algorithm_is_refused(python_ca):
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _tsa_cert(python_ca, key)
    token_der = _make_token(key, cert, algorithm={"algorithm": "sha256_rsa"})
    with pytest.raises(TimestampError, match="does not fit"):
        verify_token(token_der, DIGEST)


@pytest.mark.parametrize("data", [b"", b"\x30\x00", b"junk" * 10, build_request(DIGEST, nonce=1)])
def test_a_malformed_token_is_a_timestamp_error(data):
    with pytest.raises(TimestampError, match="malformed"):
        verify_token(data, DIGEST)


def test_algorithm_identifiers_used_here_are_known_to_asn1crypto():
    # Guards the builder above: a typo would silently produce an OID-less token.
    for _, algorithm, _ in _ALGORITHMS.values():
        assert algos.SignedDigestAlgorithm(algorithm)["algorithm"].dotted
