"""casebuilder: preserve, extract, corroborate, analyse and report evidence of attacks on civilians.

The package is laid out in the order evidence flows through it:

    intake -> preservation (object store, custody log) -> extraction -> resolution
           -> analysis -> reporting

with ``cli`` (and later ``web``) as thin front ends and ``store``/``model`` as the shared layer
below every stage. Stages only import from stages below them.
"""

from functools import cache

TOOL_NAME = "casebuilder"


@cache
def installed_version() -> str:
    """The installed version. importlib.metadata costs a short command a noticeable part of
    its start-up, so it is read only when a version is asked for."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("casebuilder")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+unknown"


def __getattr__(name: str) -> str:
    if name == "__version__":
        return installed_version()
    raise AttributeError(f"module 'casebuilder' has no attribute {name!r}")


def tool_id() -> str:
    """The name and version recorded in custody entries and derivation records."""
    return f"{TOOL_NAME} {installed_version()}"
