"""RFC 3161 time-stamps for custody-log checkpoints.

Part of the preservation stage. When a case has a time-stamping authority (TSA) URL configured,
every checkpoint that is signed also gets an RFC 3161 time-stamp token over the SHA-256 digest of
the checkpoint's signed message (see ``docs/specs/bundle-format.md``). Our own Ed25519 signature
says *who* vouches for the log; the token adds an independent third party's word on *when* the
log had that root, which is what a court weighs against a claim that the log was back-dated.

This module builds the request (:func:`build_request`), sends it through an injected transport
(:class:`TimestampAuthority`, default :func:`urllib_transport`), checks the reply
(:func:`parse_response`) and, later and independently, re-verifies a stored token
(:func:`verify_token`): the CMS signature, the message digest, the signing-certificate binding
and, given CA certificates, that the TSA certificate is trusted for time-stamping.

Every failure raises :class:`~casebuilder.errors.TimestampError`.
"""

from __future__ import annotations

import hashlib
import http.client
import secrets
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, TypeAlias

from asn1crypto import cms, core, tsp
from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID

from casebuilder.errors import TimestampError

__all__ = [
    "QUERY_MEDIA_TYPE",
    "REPLY_MEDIA_TYPE",
    "NonceSource",
    "TimestampAuthority",
    "TimestampToken",
    "Transport",
    "build_request",
    "default_nonce",
    "parse_response",
    "urllib_transport",
    "verify_token",
]

QUERY_MEDIA_TYPE: Final = "application/timestamp-query"
REPLY_MEDIA_TYPE: Final = "application/timestamp-reply"

# A time-stamp reply is a few kilobytes (a token plus a certificate or two); the cap stops a
# broken or hostile server from making us buffer an arbitrary amount.
MAX_RESPONSE_BYTES: Final = 1 << 20

_SHA256_SIZE: Final = 32

Transport: TypeAlias = Callable[[str, bytes, float], bytes]
"""Posts ``body`` to ``url`` within ``timeout`` seconds and returns the response body.

A transport must send ``Content-Type: application/timestamp-query`` (RFC 3161 section 3.4) and
signal failure by raising :class:`OSError` (or :class:`TimestampError`).
"""

NonceSource: TypeAlias = Callable[[], int]

# Hashes we accept for the signature and the message digest. SHA-1 and MD5 are refused: a
# collision there would let someone transplant a TSA's signature onto other content.
_HASHES: Final[dict[str, Callable[[], hashes.HashAlgorithm]]] = {
    "sha224": hashes.SHA224,
    "sha256": hashes.SHA256,
    "sha384": hashes.SHA384,
    "sha512": hashes.SHA512,
}
_WEAK_HASHES: Final = frozenset({"md2", "md5", "sha1"})

# Some CMS producers name the key type rather than a signature algorithm for ECDSA.
_ID_EC_PUBLIC_KEY: Final = "1.2.840.10045.2.1"


class _TimeStampResp(core.Sequence):  # type: ignore[misc]
    """RFC 3161 ``TimeStampResp`` with its token OPTIONAL, as the RFC has it.

    asn1crypto's ``tsp.TimeStampResp`` makes the token mandatory, so it cannot even read a
    rejection, which by definition carries none.
    """

    _fields = [  # noqa: RUF012 - asn1crypto's declaration style
        ("status", tsp.PKIStatusInfo),
        ("time_stamp_token", cms.ContentInfo, {"optional": True}),
    ]


def default_nonce() -> int:
    """A fresh 64-bit random nonce, enough that a replayed old reply cannot match."""
    return secrets.randbits(64)


@dataclass(frozen=True, slots=True)
class TimestampToken:
    """A time-stamp token and the facts read from its TSTInfo.

    ``token_der`` is the DER ``TimeStampToken`` (a CMS ``ContentInfo`` holding ``SignedData``),
    exactly as the TSA sent it; it is what gets stored next to the checkpoint.
    """

    token_der: bytes = field(repr=False)
    gen_time: datetime
    serial_number: int
    tsa_name: str | None
    policy: str


def build_request(digest: bytes, *, nonce: int, cert_req: bool = True) -> bytes:
    """DER ``TimeStampReq`` (version 1) for a SHA-256 ``digest``.

    ``cert_req`` asks the TSA to put its certificate into the token, which keeps the token
    verifiable on its own years later, when the TSA's certificate may no longer be published.
    """
    _check_digest(digest)
    if nonce < 0:
        raise TimestampError(f"nonce must be a non-negative integer, got {nonce}")
    request = tsp.TimeStampReq(
        {
            "version": 1,
            "message_imprint": {
                "hash_algorithm": {"algorithm": "sha256"},
                "hashed_message": digest,
            },
            "nonce": nonce,
            "cert_req": cert_req,
        }
    )
    der: bytes = request.dump()
    return der


def urllib_transport(url: str, body: bytes, timeout: float) -> bytes:
    """Default :data:`Transport`: an HTTP(S) POST with the standard library.

    Proxies configured in the environment are honoured, since investigators often work behind
    one. HTTP errors, time-outs and protocol errors are raised as :class:`OSError`.
    """
    _check_url(url)
    request = urllib.request.Request(  # noqa: S310 - the scheme was checked by _check_url
        url,
        data=body,
        method="POST",
        headers={"Content-Type": QUERY_MEDIA_TYPE, "Accept": REPLY_MEDIA_TYPE},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            data: bytes = response.read(MAX_RESPONSE_BYTES + 1)
    except http.client.HTTPException as exc:
        # These (a truncated body, a garbled status line) are not OSErrors, but to the caller
        # they are the same thing: the authority could not be talked to.
        raise OSError(f"HTTP protocol error: {exc!r}") from exc
    if len(data) > MAX_RESPONSE_BYTES:
        raise OSError(f"response is larger than {MAX_RESPONSE_BYTES} bytes")
    return data


class TimestampAuthority:
    """A configured time-stamping authority, reached through an injected transport.

    :meth:`timestamp` does the whole exchange: a fresh nonce, the request, the POST, the reply
    checks of :func:`parse_response`, and then :func:`verify_token` on the token, so that a TSA
    which returns a badly signed token is noticed when the checkpoint is made rather than when
    the bundle is examined. ``ca_certs_pem``, if given, is passed on to :func:`verify_token`.
    """

    def __init__(
        self,
        url: str,
        *,
        transport: Transport = urllib_transport,
        timeout: float = 30.0,
        nonce_source: NonceSource = default_nonce,
        ca_certs_pem: bytes | None = None,
    ) -> None:
        _check_url(url)
        if timeout <= 0:
            raise TimestampError(f"timeout must be positive, got {timeout}")
        self.url = url
        self.timeout = timeout
        self._transport = transport
        self._nonce_source = nonce_source
        self._ca_certs_pem = ca_certs_pem

    def timestamp(self, digest: bytes) -> TimestampToken:
        """Obtain and check a token whose messageImprint is the SHA-256 ``digest``."""
        _check_digest(digest)
        nonce = self._nonce_source()
        # The certificate is always requested: verify_token needs it, here and in the bundle.
        request = build_request(digest, nonce=nonce, cert_req=True)
        try:
            response = self._transport(self.url, request, self.timeout)
        except OSError as exc:
            raise TimestampError(
                f"time-stamping authority {self.url} could not be reached: {exc}"
            ) from exc
        token = parse_response(response, digest=digest, nonce=nonce)
        verify_token(token.token_der, digest, ca_certs_pem=self._ca_certs_pem)
        return token


def parse_response(response_der: bytes, *, digest: bytes, nonce: int) -> TimestampToken:
    """Check a DER ``TimeStampResp`` against the request it answers and return its token.

    Checks that the status is granted (or granted with modifications), that the token's
    messageImprint is the SHA-256 ``digest`` and that its nonce is ``nonce``. The token's
    signature is *not* checked here; that is :func:`verify_token`'s job.
    """
    _check_digest(digest)
    try:
        response = _TimeStampResp.load(response_der, strict=True)
        status = response["status"]
        status_name = status["status"].native
        if status_name not in ("granted", "granted_with_mods"):
            detail = _status_detail(status)
            raise TimestampError(f"time-stamping authority refused the request: {detail}")
        if _absent(response["time_stamp_token"]):
            raise TimestampError("time-stamp response is granted but carries no token")
        token_der: bytes = response["time_stamp_token"].dump()
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
        raise TimestampError(f"time-stamp response is not a valid TimeStampResp: {exc}") from exc
    parsed = _parse_token(token_der)
    _check_imprint(parsed, digest)
    if parsed.nonce is None:
        raise TimestampError("time-stamp token carries no nonce, but one was sent")
    if parsed.nonce != nonce:
        raise TimestampError(
            f"time-stamp token nonce {parsed.nonce} does not match the request's {nonce}"
            " (a stale or replayed reply?)"
        )
    return parsed.token()


def verify_token(
    token_der: bytes, digest: bytes, *, ca_certs_pem: bytes | None = None
) -> TimestampToken:
    """Verify a stored ``TimeStampToken`` over the SHA-256 ``digest`` and return its facts.

    Always checked: the token is CMS ``SignedData`` over a ``TSTInfo``; its messageImprint is
    SHA-256 of ``digest``; the single SignerInfo's signed attributes carry the ``TSTInfo``
    content type and a messageDigest equal to the hash of the encapsulated ``TSTInfo``; the
    signer certificate is in the token (found by issuer and serial number or by subject key
    identifier) and is the one named by the ESS signing-certificate attribute; and the
    signature over the DER of the signed attributes verifies under that certificate's key
    (RSA PKCS#1 v1.5, RSA-PSS, ECDSA or Ed25519, as the signature algorithm says).

    Without ``ca_certs_pem`` that proves only that the token is intact and self-consistent;
    anyone can mint such a token with a certificate of their own. With ``ca_certs_pem`` (one or
    more PEM certificates) it is also checked that the signer certificate was issued directly by
    one of them, i.e. its signature verifies under that CA's key; only a one-level chain is
    supported (no intermediates), and neither revocation nor the CA's own trust is looked at.
    Then the signer certificate must also be valid at the token's genTime and carry a critical
    extendedKeyUsage of exactly id-kp-timeStamping, as RFC 3161 section 2.3 requires.
    """
    _check_digest(digest)
    parsed = _parse_token(token_der)
    _check_imprint(parsed, digest)
    if parsed.signer_cert_der is None:
        raise TimestampError(
            "the signer's certificate is not in the time-stamp token"
            " (was the request made without certReq?)"
        )
    try:
        signer_cert = x509.load_der_x509_certificate(parsed.signer_cert_der)
    except ValueError as exc:
        raise TimestampError(f"the TSA certificate in the token is malformed: {exc}") from exc

    _check_message_digest(parsed)
    _check_signing_certificate(parsed, parsed.signer_cert_der)
    _check_signature(parsed, signer_cert)
    if ca_certs_pem is not None:
        _check_trust(signer_cert, ca_certs_pem, parsed.gen_time)
    return parsed.token()


# --- parsing ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _EssCertId:
    hash_algorithm: str
    cert_hash: bytes


@dataclass(frozen=True, slots=True)
class _ParsedToken:
    """Everything verification needs, pulled out of asn1crypto's lazily parsed objects.

    asn1crypto decodes on access, so a malformed token can fail anywhere; extracting it all in
    one guarded place keeps the verification code free of parser exceptions.
    """

    token_der: bytes
    tst_info_der: bytes
    imprint_algorithm: str
    imprint: bytes
    nonce: int | None
    gen_time: datetime
    serial_number: int
    tsa_name: str | None
    policy: str
    digest_algorithm: str
    signature_algorithm: str
    signature_algorithm_oid: str
    pss_params: Any
    signature: bytes
    signed_attrs_der: bytes
    content_type_attr: str | None
    message_digest_attr: bytes | None
    ess_cert_ids: tuple[_EssCertId, ...] | None
    signer_cert_der: bytes | None

    def token(self) -> TimestampToken:
        return TimestampToken(
            token_der=self.token_der,
            gen_time=self.gen_time,
            serial_number=self.serial_number,
            tsa_name=self.tsa_name,
            policy=self.policy,
        )


def _parse_token(token_der: bytes) -> _ParsedToken:
    try:
        return _parse_token_unguarded(token_der)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
        raise TimestampError(f"time-stamp token is malformed: {exc}") from exc


def _parse_token_unguarded(token_der: bytes) -> _ParsedToken:
    content_info = cms.ContentInfo.load(token_der, strict=True)
    if content_info["content_type"].native != "signed_data":
        raise TimestampError(
            f"time-stamp token is a {content_info['content_type'].native}, not SignedData"
        )
    signed_data = content_info["content"]
    encap = signed_data["encap_content_info"]
    if encap["content_type"].native != "tst_info":
        raise TimestampError(
            f"time-stamp token encapsulates {encap['content_type'].native}, not TSTInfo"
        )
    if _absent(encap["content"]):
        raise TimestampError("time-stamp token has no encapsulated TSTInfo")
    # The messageDigest attribute covers the octets as they were sent, so keep those, not a
    # re-encoding.
    tst_info_der = bytes(encap["content"])
    tst_info = tsp.TSTInfo.load(tst_info_der, strict=True)
    if int(tst_info["version"]) != 1:
        raise TimestampError(f"TSTInfo version {int(tst_info['version'])} is not 1")

    imprint = tst_info["message_imprint"]
    gen_time = tst_info["gen_time"].native
    if not isinstance(gen_time, datetime) or gen_time.tzinfo is None:
        raise TimestampError(f"TSTInfo genTime {gen_time!r} is not a UTC date and time")
    nonce_value = tst_info["nonce"].native

    signer_infos = signed_data["signer_infos"]
    if len(signer_infos) != 1:
        # RFC 3161 tokens have one signer; with several it would be unclear whose word it is.
        raise TimestampError(f"time-stamp token has {len(signer_infos)} signers, expected 1")
    signer_info = signer_infos[0]
    signed_attrs = signer_info["signed_attrs"]
    if _absent(signed_attrs):
        # RFC 5652 section 5.3: mandatory whenever the content is not id-data.
        raise TimestampError("time-stamp token's SignerInfo has no signed attributes")
    # The signature covers the attributes encoded as a SET OF (tag 0x31), not with the
    # [0] IMPLICIT tag they carry inside SignerInfo (RFC 5652 section 5.4); the original
    # octets are kept so that a verifier never "fixes" what the signer actually signed.
    signed_attrs_der = b"\x31" + signed_attrs.dump()[1:]

    attributes: dict[str, Any] = {}
    for attribute in signed_attrs:
        name = attribute["type"].native
        if name in attributes:
            raise TimestampError(f"signed attribute {name} appears more than once")
        values = attribute["values"]
        if len(values) != 1:
            raise TimestampError(f"signed attribute {name} has {len(values)} values, expected 1")
        attributes[name] = values[0]

    content_type_attr = (
        str(attributes["content_type"].native) if "content_type" in attributes else None
    )
    message_digest_attr = (
        bytes(attributes["message_digest"].native) if "message_digest" in attributes else None
    )
    ess_cert_ids: tuple[_EssCertId, ...] | None = None
    if "signing_certificate_v2" in attributes:
        ess_cert_ids = tuple(
            _EssCertId(str(c["hash_algorithm"]["algorithm"].native), bytes(c["cert_hash"].native))
            for c in attributes["signing_certificate_v2"]["certs"]
        )
    elif "signing_certificate" in attributes:
        ess_cert_ids = tuple(
            _EssCertId("sha1", bytes(c["cert_hash"].native))
            for c in attributes["signing_certificate"]["certs"]
        )

    signature_algorithm = signer_info["signature_algorithm"]
    algorithm_oid = str(signature_algorithm["algorithm"].dotted)
    pss_params = None
    if algorithm_oid == _ID_EC_PUBLIC_KEY:
        algorithm_name = "ecdsa"
    else:
        algorithm_name = str(signature_algorithm["algorithm"].native)
        if algorithm_name == "rsassa_pss":
            pss_params = signature_algorithm["parameters"]

    return _ParsedToken(
        token_der=token_der,
        tst_info_der=tst_info_der,
        imprint_algorithm=str(imprint["hash_algorithm"]["algorithm"].native),
        imprint=bytes(imprint["hashed_message"].native),
        nonce=None if nonce_value is None else int(nonce_value),
        gen_time=gen_time.astimezone(UTC),
        serial_number=int(tst_info["serial_number"].native),
        tsa_name=_general_name_text(tst_info["tsa"]),
        policy=str(tst_info["policy"].dotted),
        digest_algorithm=str(signer_info["digest_algorithm"]["algorithm"].native),
        signature_algorithm=algorithm_name,
        signature_algorithm_oid=algorithm_oid,
        pss_params=pss_params,
        signature=bytes(signer_info["signature"].native),
        signed_attrs_der=signed_attrs_der,
        content_type_attr=content_type_attr,
        message_digest_attr=message_digest_attr,
        ess_cert_ids=ess_cert_ids,
        signer_cert_der=_find_signer_cert(signed_data, signer_info["sid"]),
    )


def _find_signer_cert(signed_data: Any, sid: Any) -> bytes | None:
    certificates = signed_data["certificates"]
    if _absent(certificates):
        return None
    by_issuer = sid.name == "issuer_and_serial_number"
    for choice in certificates:
        if choice.name != "certificate":
            continue
        cert = choice.chosen
        if by_issuer:
            wanted = sid.chosen
            if (
                cert.serial_number == wanted["serial_number"].native
                and cert.issuer == wanted["issuer"]
            ):
                der: bytes = cert.dump()
                return der
        elif cert.key_identifier is not None and cert.key_identifier == sid.chosen.native:
            der = cert.dump()
            return der
    return None


def _absent(value: Any) -> bool:
    # asn1crypto stands a Void in for an OPTIONAL field that is not there.
    return isinstance(value, core.Void)


def _general_name_text(general_name: Any) -> str | None:
    if _absent(general_name):
        return None
    if general_name.name == "directory_name":
        return str(general_name.chosen.human_friendly)
    return f"{general_name.name}: {general_name.native}"


def _status_detail(status: Any) -> str:
    parts = [str(status["status"].native)]
    if not _absent(status["status_string"]):
        texts = [str(text) for text in status["status_string"].native]
        parts.append("; ".join(texts))
    if not _absent(status["fail_info"]):
        failures = sorted(str(name) for name in status["fail_info"].native)
        parts.append("failure: " + ", ".join(failures))
    return " - ".join(parts)


# --- checks -------------------------------------------------------------------------------------


def _check_digest(digest: bytes) -> None:
    if not isinstance(digest, bytes) or len(digest) != _SHA256_SIZE:
        raise TimestampError("the digest to time-stamp must be 32 bytes of SHA-256")


def _check_url(url: str) -> None:
    # Plain http is allowed: RFC 3161 tokens are signed, so the channel adds nothing to their
    # integrity, and many public TSAs only speak http. Anything but http(s) is a configuration
    # mistake (and file: would read local files).
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise TimestampError(f"time-stamping authority URL must be http(s)://host/..., got {url!r}")


def _check_imprint(parsed: _ParsedToken, digest: bytes) -> None:
    if parsed.imprint_algorithm != "sha256":
        raise TimestampError(
            f"time-stamp token's messageImprint uses {parsed.imprint_algorithm}, not sha256"
        )
    if parsed.imprint != digest:
        raise TimestampError(
            "time-stamp token's messageImprint does not match the digest"
            f" (token: {parsed.imprint.hex()}, expected: {digest.hex()})"
        )


def _hash_for(name: str, what: str) -> hashes.HashAlgorithm:
    if name in _WEAK_HASHES:
        raise TimestampError(f"{what} uses the broken hash {name}")
    factory = _HASHES.get(name)
    if factory is None:
        raise TimestampError(f"{what} uses the unsupported hash {name}")
    return factory()


def _check_message_digest(parsed: _ParsedToken) -> None:
    algorithm = _hash_for(parsed.digest_algorithm, "the SignerInfo digest algorithm")
    if parsed.content_type_attr != "tst_info":
        raise TimestampError(
            "signed contentType attribute is missing or is not id-ct-TSTInfo"
            f" (got {parsed.content_type_attr})"
        )
    if parsed.message_digest_attr is None:
        raise TimestampError("signed messageDigest attribute is missing")
    actual = hashlib.new(algorithm.name, parsed.tst_info_der).digest()
    if actual != parsed.message_digest_attr:
        raise TimestampError(
            "signed messageDigest does not match the encapsulated TSTInfo (content altered)"
        )


def _check_signing_certificate(parsed: _ParsedToken, signer_cert_der: bytes) -> None:
    # RFC 3161 section 2.4.2 (and RFC 5816 for v2): the signer certificate is bound into the
    # signed attributes, so a certificate swapped in afterwards, even one for the same key, is
    # caught.
    if not parsed.ess_cert_ids:
        raise TimestampError("signed ESS signing-certificate attribute is missing or empty")
    first = parsed.ess_cert_ids[0]
    if first.hash_algorithm == "sha1":
        # Used as an identifier here, not for security: the signature check below does that.
        actual = hashlib.sha1(signer_cert_der, usedforsecurity=False).digest()
    else:
        actual = hashlib.new(
            _hash_for(first.hash_algorithm, "the ESS certificate identifier").name,
            signer_cert_der,
        ).digest()
    if actual != first.cert_hash:
        raise TimestampError(
            "the signer certificate does not match the ESS signing-certificate attribute"
        )


def _check_signature(parsed: _ParsedToken, signer_cert: x509.Certificate) -> None:
    try:
        public_key = signer_cert.public_key()
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise TimestampError(f"cannot read the TSA certificate's public key: {exc}") from exc
    algorithm = parsed.signature_algorithm
    data = parsed.signed_attrs_der
    signature = parsed.signature
    try:
        if algorithm == "ed25519":
            # Ed25519 signs the attributes themselves (RFC 8419); there is no separate hash.
            if not isinstance(public_key, ed25519.Ed25519PublicKey):
                raise _key_mismatch(algorithm, public_key)
            public_key.verify(signature, data)
            return
        digest_hash = _hash_for(parsed.digest_algorithm, "the SignerInfo digest algorithm")
        _check_implied_hash(parsed)
        if algorithm == "rsassa_pss":
            if not isinstance(public_key, rsa.RSAPublicKey):
                raise _key_mismatch(algorithm, public_key)
            public_key.verify(signature, data, _pss_padding(parsed), digest_hash)
        elif algorithm.endswith("_rsa") or algorithm == "rsassa_pkcs1v15":
            if not isinstance(public_key, rsa.RSAPublicKey):
                raise _key_mismatch(algorithm, public_key)
            public_key.verify(signature, data, padding.PKCS1v15(), digest_hash)
        elif algorithm.endswith("_ecdsa") or algorithm == "ecdsa":
            if not isinstance(public_key, ec.EllipticCurvePublicKey):
                raise _key_mismatch(algorithm, public_key)
            public_key.verify(signature, data, ec.ECDSA(digest_hash))
        else:
            raise TimestampError(
                f"unsupported signature algorithm {algorithm} ({parsed.signature_algorithm_oid})"
            )
    except InvalidSignature as exc:
        raise TimestampError(
            "the TSA's signature over the time-stamp token does not verify"
        ) from exc


def _check_implied_hash(parsed: _ParsedToken) -> None:
    # An algorithm such as sha384_rsa names its own hash; if it disagrees with digestAlgorithm
    # the token is inconsistent and we refuse to guess which one the signer meant.
    prefix, _, family = parsed.signature_algorithm.rpartition("_")
    implied = prefix if family in ("rsa", "ecdsa") else None
    if implied is not None and implied != parsed.digest_algorithm:
        raise TimestampError(
            f"signature algorithm {parsed.signature_algorithm} disagrees with digest"
            f" algorithm {parsed.digest_algorithm}"
        )


def _pss_padding(parsed: _ParsedToken) -> padding.PSS:
    try:
        params = parsed.pss_params
        hash_name = str(params["hash_algorithm"]["algorithm"].native)
        mgf = params["mask_gen_algorithm"]
        mgf_name = str(mgf["algorithm"].native)
        mgf_hash_name = str(mgf["parameters"]["algorithm"].native)
        salt_length = int(params["salt_length"].native)
        trailer = params["trailer_field"].native
    except (ValueError, TypeError, KeyError) as exc:
        raise TimestampError(f"RSA-PSS parameters are malformed: {exc}") from exc
    if hash_name != parsed.digest_algorithm:
        raise TimestampError(
            f"RSA-PSS hash {hash_name} disagrees with digest algorithm {parsed.digest_algorithm}"
        )
    if mgf_name != "mgf1":
        raise TimestampError(f"unsupported RSA-PSS mask generation function {mgf_name}")
    if trailer != "trailer_field_bc":
        raise TimestampError(f"unsupported RSA-PSS trailer field {trailer}")
    if salt_length < 0:
        raise TimestampError(f"RSA-PSS salt length {salt_length} is negative")
    mgf_hash = _hash_for(mgf_hash_name, "the RSA-PSS mask generation function")
    return padding.PSS(mgf=padding.MGF1(mgf_hash), salt_length=salt_length)


def _key_mismatch(algorithm: str, public_key: object) -> TimestampError:
    return TimestampError(
        f"signature algorithm {algorithm} does not fit the TSA certificate's"
        f" {type(public_key).__name__}"
    )


def _check_trust(signer_cert: x509.Certificate, ca_certs_pem: bytes, gen_time: datetime) -> None:
    try:
        cas = x509.load_pem_x509_certificates(ca_certs_pem)
    except ValueError as exc:
        raise TimestampError(f"the CA certificates are not valid PEM: {exc}") from exc
    subject = signer_cert.subject.rfc4514_string()
    issuer = next((ca for ca in cas if _issued_by(signer_cert, ca)), None)
    if issuer is None:
        raise TimestampError(
            f"the TSA certificate ({subject}, issued by {signer_cert.issuer.rfc4514_string()})"
            " was not issued by any of the given CA certificates"
        )
    for cert, what in ((signer_cert, "TSA certificate"), (issuer, "CA certificate")):
        if not cert.not_valid_before_utc <= gen_time <= cert.not_valid_after_utc:
            raise TimestampError(
                f"the {what} ({cert.subject.rfc4514_string()}) was not valid at the token's"
                f" genTime {gen_time.isoformat()}"
            )
    try:
        eku = signer_cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage)
    except x509.ExtensionNotFound as exc:
        raise TimestampError(
            f"the TSA certificate ({subject}) has no extendedKeyUsage; timeStamping is required"
        ) from exc
    if not eku.critical or list(eku.value) != [ExtendedKeyUsageOID.TIME_STAMPING]:
        raise TimestampError(
            f"the TSA certificate ({subject}) must have a critical extendedKeyUsage of only"
            " timeStamping (RFC 3161 section 2.3)"
        )


def _issued_by(cert: x509.Certificate, ca: x509.Certificate) -> bool:
    try:
        cert.verify_directly_issued_by(ca)
    except (ValueError, TypeError, InvalidSignature, UnsupportedAlgorithm):
        return False
    return True
