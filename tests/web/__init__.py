"""Web front end tests (a package, so that its conftest is web.conftest, not a second
``conftest`` module shadowing the suite's)."""
