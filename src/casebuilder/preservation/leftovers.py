"""What commands that stopped early left in the staging area, logged and then cleared.

A command killed while it copies a file leaves a partial copy in ``tmp/``; one killed between
renaming an object into the store and committing its item leaves an object no item names.
Neither was ever an item, so nothing of evidence is lost by clearing the first; the second is
kept as found (it is a whole, hashed copy) and becomes an item if the file arrives again. Both
are written into the custody log first, in a ``store-note`` entry, so that ``verify`` can tell
an object a logged interruption left (a note) from one that no entry accounts for (a failure:
what a database put back from an older copy looks like).

The first unit of work of each command accounts for what *gone* writers left (staging.py says
who is gone); the checkpoint that ends a command accounts for its own markers too, so an object
it stored but whose record failed (the unit of work was rolled back) is logged by the command
itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from casebuilder.preservation.custody import command_running, lock_log_state, unit_of_work
from casebuilder.preservation.staging import remove
from casebuilder.store.schema import Item

if TYPE_CHECKING:
    from casebuilder.preservation.case import Case

INTERRUPTED = ("objects renamed into the store by a command that stopped before committing "
               "their items: no item records them; kept as found, and adopted as items if the "
               "same files are ingested again")
UNRECORDED = ("objects this command stored whose records it could not commit (the unit of "
              "work was rolled back): no item records them; kept as found, and adopted as "
              "items if the same files are ingested again")
TEMPORARIES = ("partial copies left in tmp/ by commands that stopped while copying (never "
               "items, nothing of evidence): removed")


def account_for_leftovers(case: Case, *, settle_own: bool) -> bool:
    """Log and clear what gone writers (and with ``settle_own``, this process) left in
    ``tmp/``; the caller holds the case lock. Returns whether anything was logged."""
    from casebuilder.preservation.case import running_lock_path

    others_running = command_running(running_lock_path(case.paths), case.running)
    staging = case.objects.staging
    with staging.survey(settle_own=settle_own, legacy_stale=not others_running) as found:
        markers = found.settled_markers
        with case.sessions() as session:
            held = set(session.execute(
                select(Item.sha256).where(Item.sha256.in_(list(markers)))).scalars()) \
                if markers else set()
        mine = f"placed-{staging.token}-"
        orphans: dict[str, list[dict[str, Any]]] = {UNRECORDED: [], INTERRUPTED: []}
        for sha256 in sorted(set(markers) - held):
            path = case.objects.path_for(sha256)
            if path.is_file():  # else the command died before its rename: nothing to say
                own = all(p.name.startswith(mine) for p in markers[sha256])
                orphans[UNRECORDED if own else INTERRUPTED].append(
                    {"sha256": sha256, "size": path.stat().st_size})
        notes: list[dict[str, Any]] = [{"note": note, "objects_without_item": objects}
                                       for note, objects in orphans.items() if objects]
        if found.stale_temporaries:
            notes.append({"note": TEMPORARIES, "temporaries_removed": [
                {"name": f"tmp/{left.name}", "size": left.size}
                for left in found.stale_temporaries]})
        if notes:
            _log(case, notes)
        # Only once logged: a crash before this point leaves them to be logged again.
        remove([left.path for left in found.stale_temporaries])
        remove([path for paths in markers.values() for path in paths])
        remove(found.dead_locks)
    return bool(notes)


def _log(case: Case, notes: list[dict[str, Any]]) -> None:
    with case.sessions() as session:
        state = lock_log_state(session)
        with unit_of_work(session, state, case.paths.log, case_id=case.case_id,
                          actor=case.actor, tool=case.tool, clock=case.clock,
                          sealer=case.sealer) as tx:
            for details in notes:
                tx.record("store-note", details=details)
