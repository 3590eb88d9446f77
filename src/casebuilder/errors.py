"""The one exception tree of casebuilder.

Every error the library raises on purpose derives from :class:`CasebuilderError`. Library code
raises the most specific subclass and never prints; the CLI (and later the web front end)
translates these into messages for people. Parsers of untrusted files raise
:class:`UnreadableContent` so intake can record the failure on the item and carry on.
"""

from __future__ import annotations


class CasebuilderError(Exception):
    """Base class for every error casebuilder raises on purpose."""


class ConfigurationError(CasebuilderError):
    """The case home or its configuration is missing, malformed or inconsistent."""


class CaseHomeError(ConfigurationError):
    """The case home cannot be created, opened or locked."""


class StoreError(CasebuilderError):
    """The database or the object store refused an operation."""


class CaseWriteError(StoreError):
    """The case home could not be written (no space left, a read-only file system, an I/O
    error): not the fault of any one input, so a batch stops here; what was committed before
    it is kept, and nothing is left half-written."""


class IntegrityError(StoreError):
    """Stored data does not match what was recorded (a hash, a size, a log root)."""


class ObjectMissing(IntegrityError):
    """A stored original that the records name is not in the object store."""


class IntakeError(CasebuilderError):
    """A file could not be taken into the case (unreadable, too large, not a regular file)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ClaimValueError(CasebuilderError):
    """A stored claim value has a key its kind does not have, lacks one, or holds a value of
    the wrong type (model/claim_values.py)."""


class UnreadableContent(CasebuilderError):
    """A format handler could not parse a file; the original is still preserved."""


class ArchiveRefused(UnreadableContent):
    """An archive was refused as hostile (path traversal, bomb, absurd size or depth)."""


class CustodyLogError(CasebuilderError):
    """The custody log could not be read or appended to."""


class SigningError(CasebuilderError):
    """A checkpoint could not be signed or a signature could not be checked."""


class TimestampError(CasebuilderError):
    """The time-stamping authority could not be reached or its token is not valid."""


class BundleError(CasebuilderError):
    """A court bundle could not be written."""


class NotFound(CasebuilderError):
    """A named item, incident or record does not exist in this case."""


class GazetteerError(CasebuilderError):
    """The place gazetteer could not be built: a data package or a shipped data file is missing
    or malformed, or a shipped entry points at a place the gazetteer does not hold."""


class DatasetError(CasebuilderError):
    """A dataset file cannot be imported at all: an unreadable header, the wrong column set
    for the format named, not the JSON shape the format has (extraction/datasets/)."""
