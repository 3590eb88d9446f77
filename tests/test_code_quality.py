"""ruff and mypy (strict) are part of the suite, so a red lint is a red build."""

from __future__ import annotations

import subprocess

from conftest import REPO, venv_script


def run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [venv_script(tool), *args], cwd=REPO, capture_output=True, text=True, check=False
    )


def test_ruff_is_clean():
    result = run("ruff", "check", "src", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean():
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_module_starts_with_a_docstring():
    import ast

    missing = []
    for path in sorted((REPO / "src" / "casebuilder").rglob("*.py")):
        if path.name == "__init__.py" and not path.read_text().strip():
            continue
        tree = ast.parse(path.read_text())
        if ast.get_docstring(tree) is None:
            missing.append(str(path.relative_to(REPO)))
    assert not missing, f"modules without a docstring: {missing}"


def test_stages_only_import_downwards():
    import ast

    order = [
        "model",
        "store",
        "gazetteer",
        "preservation",
        "intake",
        "extraction",
        "resolution",
        "analysis",
        "reporting",
        ("cli", "web"),  # the two front ends, side by side (see below)
    ]
    rank = {name: i for i, layer in enumerate(order)
            for name in (layer if isinstance(layer, tuple) else (layer,))}
    wrong = []
    for path in sorted((REPO / "src" / "casebuilder").rglob("*.py")):
        parts = path.relative_to(REPO / "src" / "casebuilder").parts
        if len(parts) < 2 or parts[0] not in rank:
            continue
        here = parts[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("casebuilder.")
            ):
                there = node.module.split(".")[1]
                if there in rank and rank[there] > rank[here]:
                    wrong.append(f"{path.relative_to(REPO)} imports {node.module}")
    assert not wrong, "a stage imports from a stage above it:\n" + "\n".join(wrong)


#: The one place a front end reaches the other: ``casebuilder serve`` starts the web app.
FRONT_END_CROSSINGS = {"cli/serving.py imports casebuilder.web.app"}


def test_the_front_ends_stay_apart():
    """The web front end never uses the command line's code, and the command line reaches the
    web only to serve it: what both need lives in the stages below them."""
    import ast

    package = REPO / "src" / "casebuilder"
    crossing = set()
    for here in ("cli", "web"):
        other = {"cli": "web", "web": "cli"}[here]
        for path in sorted((package / here).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([node.module] if isinstance(node, ast.ImportFrom) and node.module
                         else [a.name for a in node.names] if isinstance(node, ast.Import)
                         else [])
                crossing |= {f"{path.relative_to(package)} imports {n}" for n in names
                             if n.startswith(f"casebuilder.{other}")}
    assert crossing <= FRONT_END_CROSSINGS, crossing - FRONT_END_CROSSINGS


#: The modules that may reach the file system object store itself (paths, staging, early
#: copies); every other module reads and keeps files through ``case.storage`` (ObjectStorage),
#: so that another kind of store can take its place (decision 0029).
FILE_SYSTEM_STORE_USERS = {
    "intake/ingest.py", "preservation/case.py", "preservation/verify.py",
    "preservation/leftovers.py", "reporting/bundle.py", "cli/locker.py",
}


def test_only_intake_and_verification_reach_the_file_system_store():
    package = REPO / "src" / "casebuilder"
    reaching = {str(p.relative_to(package)) for p in package.rglob("*.py")
                if ".objects." in p.read_text(encoding="utf-8")
                and p.name != "objects.py"}
    assert reaching <= FILE_SYSTEM_STORE_USERS, reaching - FILE_SYSTEM_STORE_USERS
