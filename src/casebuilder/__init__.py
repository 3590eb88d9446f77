"""casebuilder: preserve, extract, corroborate, analyse and report evidence of attacks on civilians.

The package is laid out in the order evidence flows through it:

    intake -> preservation (object store, custody log) -> extraction -> resolution
           -> analysis -> reporting

with ``cli`` (and later ``web``) as thin front ends and ``store``/``model`` as the shared layer
below every stage. Stages only import from stages below them.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("casebuilder")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

TOOL_NAME = "casebuilder"


def tool_id() -> str:
    """The name and version recorded in custody entries and derivation records."""
    return f"{TOOL_NAME} {__version__}"
