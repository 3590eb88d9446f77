"""E-mail messages (.eml, RFC 5322): headers, the readable body, and attachments as children.

Intake stage. The ingest orchestrator calls this handler after the original has been stored,
when the file starts with mail header lines (From:, Received:, Message-ID:, ...). The standard
library's ``email`` package parses it with ``policy.default`` (RFC 2047 words decoded, dates
parsed). Attachments, inline files and forwarded messages (message/rfc822 parts) become
children: new originals that intake preserves and reads in turn.

A forwarded message is handed on re-serialised from the parsed tree (headers unfolded as
received, ``\\n`` line ends), since the parser keeps no byte offsets; the original .eml, which
holds it byte for byte, is preserved either way.
"""

from __future__ import annotations

import functools
import io
import platform
import re
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser

from casebuilder.errors import UnreadableContent
from casebuilder.intake.handlers.base import (
    BID_NONE,
    BID_SIGNATURE,
    BID_WEAK,
    Child,
    JSONValue,
    ParseResult,
    ParseSource,
    Sniff,
)
from casebuilder.intake.handlers.html import html_to_text
from casebuilder.intake.handlers.text import decode_text, extension, looks_like_text, read_capped

EMAIL_EXTENSIONS = frozenset({".eml"})  # not .mbox: many messages, not one
BID_EMAIL_HEADERS = BID_WEAK + 30  # mail headers at the start: above any text guess

_FIELD = re.compile(rb"([!-9;-~]+):")
# Headers that mark mail rather than any "Name: value" list (an HTTP dump, a YAML file).
_MAIL_MARKERS = frozenset(
    {b"from", b"received", b"return-path", b"message-id", b"mime-version", b"delivered-to",
     b"dkim-signature", b"x-received", b"authentication-results"}
)  # fmt: skip
_MAIL_HEADERS = _MAIL_MARKERS | frozenset(
    {b"to", b"cc", b"subject", b"date", b"reply-to", b"in-reply-to", b"references", b"sender",
     b"content-type", b"x-mailer", b"user-agent", b"envelope-to", b"x-original-to"}
)  # fmt: skip
_MAX_DEFECT_WARNINGS = 10
_MAX_PART_DEPTH = 64


@dataclass(frozen=True)
class EmailLimits:
    """What an e-mail may be before it is refused as unreasonable."""

    max_bytes: int = 256 * 1024 * 1024
    max_attachments: int = 10_000
    max_depth: int = 8  # containers (e-mails, archives) this e-mail may sit inside


def mail_headers(head: bytes) -> tuple[int, int]:
    """(header lines recognised as mail headers, of which mail markers) at the file's start.

    (0, 0) unless the very first line (after an mbox "From " line) is a header line.
    """
    lines = head[:16384].splitlines()
    if lines and lines[0].startswith(b"From "):
        lines = lines[1:]
    known: set[bytes] = set()
    for index, line in enumerate(lines[:200]):
        if not line.strip():
            break  # end of the header block
        if line[:1] in (b" ", b"\t") and index:
            continue  # a folded continuation
        match = _FIELD.match(line)
        if not match:
            if index == 0:
                return 0, 0
            break
        name = match.group(1).lower()
        if name in _MAIL_HEADERS:
            known.add(name)
    return len(known), len(known & _MAIL_MARKERS)


def _header(message: Message, name: str, warnings: list[str]) -> str | None:
    try:
        value = message.get(name)
        if value is None:
            return None
        text = str(value).strip()
    except Exception as exc:  # noqa: BLE001 - policy.default's header parsers fail on odd input
        warnings.append(f"header {name} could not be decoded: {exc}")
        raw = [v for k, v in message.raw_items() if k.lower() == name.lower()]
        text = " ".join(str(raw[0]).split()) if raw else ""
    return text or None


def _addresses(message: Message, name: str, warnings: list[str]) -> list[JSONValue]:
    out: list[JSONValue] = []
    try:
        headers = message.get_all(name) or []
        for header in headers:
            addresses = getattr(header, "addresses", None)
            if addresses:
                out.extend(str(address) for address in addresses)
            elif str(header).strip():
                out.append(str(header).strip())
    except Exception as exc:  # noqa: BLE001 - as in _header
        warnings.append(f"header {name} could not be decoded: {exc}")
        out = [" ".join(str(v).split()) for k, v in message.raw_items() if k.lower() == name]
    return out


def _part_text(part: EmailMessage, warnings: list[str]) -> str:
    try:
        content = part.get_content()
        if isinstance(content, str):
            return content
    except Exception as exc:  # noqa: BLE001 - unknown charsets, broken transfer encodings
        warnings.append(f"body could not be decoded as declared ({exc}); charset guessed")
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    decoded = decode_text(payload)
    if decoded.warning:
        warnings.append(f"body: {decoded.warning}")
    return decoded.text


def _is_body_like(part: Message) -> bool:
    """A text/plain or text/html part that is a rendering of the body, not a file."""
    if part.get_content_type() not in ("text/plain", "text/html"):
        return False
    if part.get_content_disposition() == "attachment":
        return False
    try:
        return part.get_filename() is None
    except Exception:  # noqa: BLE001 - a malformed filename parameter: treat it as a file
        return False


class EmailHandler:
    """Reads RFC 5322 e-mail messages."""

    name = "email"
    media_type = "message/rfc822"

    def __init__(self, limits: EmailLimits | None = None) -> None:
        self.limits = limits or EmailLimits()

    def bid(self, sniff: Sniff) -> int:
        if sniff.size == 0:
            return BID_NONE
        known, markers = mail_headers(sniff.head)
        named = extension(sniff.name) in EMAIL_EXTENSIONS
        if known >= 2 and markers >= 1:
            return BID_SIGNATURE if named else BID_EMAIL_HEADERS
        if named and known >= 1:
            return BID_EMAIL_HEADERS
        if named and looks_like_text(sniff.head, complete=len(sniff.head) >= sniff.size):
            return BID_WEAK + 10
        return BID_NONE

    def parse(self, source: ParseSource) -> ParseResult:
        limits = self.limits
        if source.depth > limits.max_depth:
            raise UnreadableContent(
                f"e-mail nested {source.depth} containers deep; the limit is {limits.max_depth}"
            )
        data = read_capped(source, limits.max_bytes, "e-mail")
        try:
            message = BytesParser(policy=policy.default).parsebytes(data)
        except Exception as exc:  # the parser is lenient but not free of bugs
            raise UnreadableContent(f"e-mail could not be parsed: {exc}") from exc
        assert isinstance(message, EmailMessage)  # policy.default always makes these

        result = ParseResult(
            format="email",
            media_type="message/rfc822",
            tool=f"python-email {platform.python_version()}",
        )
        warnings = result.warnings
        metadata: dict[str, JSONValue] = {}
        sender = _header(message, "from", warnings)
        if sender is not None:
            metadata["from"] = sender
        for key in ("to", "cc"):
            addresses = _addresses(message, key, warnings)
            if addresses:
                metadata[key] = addresses
        for key, name in (
            ("subject", "subject"),
            ("message_id", "message-id"),
            ("in_reply_to", "in-reply-to"),
        ):
            value = _header(message, name, warnings)
            if value is not None:
                metadata[key] = value
        self._date(message, metadata, warnings)

        body = None
        try:
            body = message.get_body(preferencelist=("plain",))
            if body is None:
                body = message.get_body(preferencelist=("html",))
        except Exception as exc:  # noqa: BLE001 - a malformed multipart tree
            warnings.append(f"body could not be located: {exc}")
        if isinstance(body, EmailMessage):
            text = _part_text(body, warnings)
            if body.get_content_type() == "text/html":
                text = html_to_text(text)
            result.text = text
            metadata["body_type"] = body.get_content_type()

        children: list[Child] = []
        self._collect(message, body, children, warnings, depth=0)
        result.children = children
        metadata["attachment_count"] = len(children)

        defects = {type(d).__name__ for part in message.walk() for d in part.defects}
        for defect in sorted(defects)[:_MAX_DEFECT_WARNINGS]:
            warnings.append(f"e-mail defect: {defect}")
        result.metadata = metadata
        return result

    @staticmethod
    def _date(message: Message, metadata: dict[str, JSONValue], warnings: list[str]) -> None:
        try:
            header = message.get("date")
        except Exception as exc:  # noqa: BLE001 - see _header
            warnings.append(f"Date header could not be read: {exc}")
            return
        if header is None:
            return
        when = getattr(header, "datetime", None)
        if when is not None:
            # "-0000" means "zone unknown": the parser gives a naive time, kept without offset.
            metadata["date"] = when.isoformat()
        else:
            metadata["date_raw"] = str(header).strip()
            warnings.append(f"Date header is not a date: {str(header)[:60]!r}")

    def _collect(
        self,
        part: EmailMessage,
        body: object,
        children: list[Child],
        warnings: list[str],
        *,
        depth: int,
    ) -> None:
        if depth > _MAX_PART_DEPTH:
            warnings.append(f"MIME parts nested deeper than {_MAX_PART_DEPTH}; the rest skipped")
            return
        content_type = part.get_content_type()
        if content_type == "message/rfc822":
            inner = part.get_payload()
            message = inner[0] if isinstance(inner, list) and inner else None
            if isinstance(message, Message):
                try:
                    data = message.as_bytes(policy=policy.default.clone(refold_source="none"))
                except Exception as exc:  # noqa: BLE001 - the generator chokes on some defects
                    warnings.append(f"a forwarded message could not be handed on: {exc}")
                    return
                self._add(children, part, data, ".eml", warnings)
            return
        if part.is_multipart():
            for sub in part.iter_parts():
                if isinstance(sub, EmailMessage):
                    self._collect(sub, body, children, warnings, depth=depth + 1)
            return
        if part is body or _is_body_like(part):
            return
        payload = part.get_payload(decode=True)
        self._add(children, part, payload if isinstance(payload, bytes) else b"", ".bin", warnings)

    def _add(
        self, children: list[Child], part: Message, data: bytes, suffix: str, warnings: list[str]
    ) -> None:
        if len(children) >= self.limits.max_attachments:
            raise UnreadableContent(
                f"e-mail has more than {self.limits.max_attachments:,} attachments"
            )
        try:
            filename = part.get_filename()
        except Exception as exc:  # noqa: BLE001 - malformed RFC 2231 parameters
            warnings.append(f"an attachment's file name could not be decoded: {exc}")
            filename = None
        name = filename.strip() if filename and filename.strip() else None
        children.append(
            Child(
                relation="attachment",
                name=name or f"attachment-{len(children) + 1}{suffix}",
                size=len(data),
                open=functools.partial(io.BytesIO, data),
            )
        )
