"""Store tests (a package, so that its conftest is store.conftest, not a second
``conftest`` module shadowing the suite's)."""
