"""Extraction on a Dask distributed cluster (``casebuilder extract --workers N`` or
``--scheduler ADDRESS``; docs/decisions/0027-extraction-on-dask.md).

Its place in the flow: run.extract_with plans every item and stores every result, in item
order, in this process, the case's one writer (decision 0026); this module only changes who
reads the texts. Each planned job's text and facts (a SourceText) and its item's digest go to
a worker; the worker extracts with tools it built once, when it started (``worker_tools``: the
gazetteer and vocabulary never travel with a task), and sends back the results as JSON lines
(run._Results) or the reason the extractor failed. The workers never open the case.

A worker that dies while reading a text is restarted by its nanny and the text is tried once
more elsewhere; when that worker dies too, the text is recorded as one the extractor failed
on, as a raised error is, and the batch goes on. At most ``JOBS_PER_WORKER`` texts per worker
are out at a time, so a large case costs the parent the memory of a few texts, not all.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import dask
from dask.typing import Key
from distributed import Client, Future, KilledWorker, LocalCluster, as_completed

from casebuilder.errors import CasebuilderError
from casebuilder.extraction.mentions import SourceText
from casebuilder.extraction.run import (
    ExtractionTools,
    ExtractOutcome,
    ExtractReport,
    Failure,
    Job,
    Reader,
    ToolIds,
    _Results,
    cache_dir,
    extract_with,
    read_text,
)
from casebuilder.preservation.case import Case

#: Texts sent ahead to each worker (they queue on the scheduler, not on the worker).
JOBS_PER_WORKER = 4
#: Seconds to wait for the first worker of an existing cluster.
WAIT_FOR_WORKERS_S = 60
#: Of a worker that died reading a text, "the text killed it" after this many more deaths.
RETRIES_AFTER_A_DEATH = 1

_tools: ExtractionTools | None = None


def worker_tools() -> ExtractionTools:
    """This worker process's tools, built on its first call (from the same cache folder as
    the command's, CASEBUILDER_CACHE or the user's cache) and kept while the process lives."""
    global _tools  # one set of tools per worker process, by design
    if _tools is None:
        _tools = ExtractionTools.build(cache_dir(dict(os.environ)))
    return _tools


def worker_ids() -> ToolIds:
    return worker_tools().ids


def read_on_worker(source: SourceText, sha256: str, ids: ToolIds) -> _Results | Failure:
    """A task: extract one text with this worker's tools, which must be those planned with."""
    tools = worker_tools()
    if tools.ids != ids:
        raise CasebuilderError(f"a worker's extraction tools are {tools.ids}, not {ids}: "
                               "every worker must run the same casebuilder")
    return read_text(tools, source, sha256)


@contextmanager
def cluster(workers: int | None, scheduler: str | None) -> Iterator[Client]:
    """A client of the cluster at ``scheduler``, or of ``workers`` worker processes started
    on this machine for the command (listening on localhost only, no dashboard)."""
    if scheduler is not None:
        try:
            client = Client(scheduler)
        except OSError as exc:
            raise CasebuilderError(f"cannot reach the Dask scheduler at {scheduler}: {exc}"
                                   ) from exc
        with client:
            try:
                client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS_S)
            except TimeoutError as exc:
                raise CasebuilderError(f"the Dask cluster at {scheduler} has no worker (none "
                                       f"joined in {WAIT_FOR_WORKERS_S} s)") from exc
            yield client
        return
    # one task at a time on each worker, so that a worker's death is laid on its own text
    with dask.config.set({"distributed.scheduler.worker-saturation": 1.0,
                          "distributed.scheduler.allowed-failures": RETRIES_AFTER_A_DEATH}), \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                         host="127.0.0.1", dashboard_address=None) as local, \
            Client(local) as client:
        yield client


def tools_on(client: Client) -> ToolIds:
    """Build the tools on every worker at once, and the ids they all share."""
    addresses = list(client.scheduler_info()["workers"])
    found: set[ToolIds] = set(client.gather([client.submit(worker_ids, workers=[a], pure=False)
                               for a in addresses]))
    if len(found) != 1:
        raise CasebuilderError(f"the cluster's workers run different extraction tools: {found}")
    return found.pop()


def read_on(client: Client, ids: ToolIds) -> Reader:
    """A reader (see run.Reader) reading the jobs on the cluster, at most ``ahead`` at a time
    out (sent, or back and waiting for their turn), and giving them back in plan order."""
    ahead = JOBS_PER_WORKER * max(1, len(client.scheduler_info()["workers"]))

    def read(planned: Iterator[ExtractOutcome | Job]
             ) -> Iterator[ExtractOutcome | tuple[Job, _Results | Failure]]:
        steps = _InOrder(client, ids)
        for step in planned:
            steps.add(step)
            yield from steps.take(ahead - 1)
        yield from steps.take(0)

    return read


class _InOrder:
    """Planned steps, each job sent to the cluster as it comes, given back in their order.
    A result is fetched as soon as it is ready (the death of the worker holding it would lose
    it) and waits here for its turn."""

    def __init__(self, client: Client, ids: ToolIds) -> None:
        self.client, self.ids = client, ids
        self.order: deque[tuple[ExtractOutcome | Job, Key | None]] = deque()  # step, task key
        self.arrived: dict[Key, _Results | Failure] = {}
        self.running = as_completed(loop=client.loop, with_results=True, raise_errors=False)
        self.out = 0  # jobs in ``order``

    def add(self, step: ExtractOutcome | Job) -> None:
        key = None
        if isinstance(step, Job):
            future = self.client.submit(read_on_worker, step.source, step.item.sha256,
                                        self.ids, pure=False)
            self.running.add(future)
            key, self.out = future.key, self.out + 1
        self.order.append((step, key))

    def take(self, most_out: int) -> Iterator[ExtractOutcome | tuple[Job, _Results | Failure]]:
        """The steps at the head of the order, until no more than ``most_out`` jobs are out."""
        while self.order and (self.order[0][1] is None or self.out > most_out):
            step, key = self.order[0]
            if key is not None and key not in self.arrived:
                finished, result = next(self.running)
                self.arrived[finished.key] = what_came(finished, result)
                continue
            self.order.popleft()
            if isinstance(step, ExtractOutcome):
                yield step
            else:
                assert key is not None
                self.out -= 1
                yield step, self.arrived.pop(key)


def what_came(future: Future[Any], result: Any) -> _Results | Failure:
    """What a finished task gave. The death of every worker that read the text is the text's
    failure; any other error (the cluster's, not the text's) stops the batch."""
    if future.status == "finished":
        assert isinstance(result, _Results | Failure)
        return result
    error = future.exception() if future.status == "error" else None
    if isinstance(error, KilledWorker):
        return Failure("the extractor failed: the worker process reading this text died, "
                       "each time it was tried (KilledWorker)")
    raise error or CasebuilderError(f"the cluster dropped the task of a text ({future.status})")


def extract_on_cluster(case: Case, item_ids: Sequence[int] | None = None, *,
                       workers: int | None = None, scheduler: str | None = None,
                       force: bool = False) -> ExtractReport:
    """run.extract_items, with the texts read by the workers of a cluster (see the module)."""
    with cluster(workers, scheduler) as client:
        ids = tools_on(client)
        return extract_with(case, ids, read_on(client, ids), item_ids, force=force)
