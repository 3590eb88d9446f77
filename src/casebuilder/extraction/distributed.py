"""Extraction on a Dask distributed cluster (``casebuilder extract --workers N`` or
``--scheduler ADDRESS``; docs/decisions/0027-extraction-on-dask.md).

Its place in the flow: run.extract_with plans every item and stores every result, in item
order, in this process, the case's one writer (decision 0026); this module only changes who
reads the texts. The planned jobs go to the workers in parcels of up to ``TEXTS_PER_TASK``
texts (one task each: a task costs the command and the worker some milliseconds, a text some
tens): each job's text and facts (a SourceText) and its item's digest. A worker extracts with
tools it built once, when it started (``worker_tools``: the gazetteer and vocabulary never
travel with a task), and sends back each text's results as JSON lines (run._Results) or the
reason the extractor failed. The workers never open the case.

A worker that dies while reading a parcel is restarted by its nanny, and each text of the
parcel is sent again alone; a text whose worker dies when it is alone too is recorded as one
the extractor failed on, as a raised error is, and the batch goes on. At most
``PARCELS_PER_WORKER`` parcels per worker are out at a time, so a large case costs the command
the memory of a few parcels of texts, not of all.
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

#: Texts read by one task, and the characters that close a parcel before it is full.
TEXTS_PER_TASK = 8
PARCEL_CHARS = 1_000_000
#: Parcels out for each worker (one read, the next queued on the scheduler, one coming back).
PARCELS_PER_WORKER = 3
#: Seconds to wait for the first worker of an existing cluster.
WAIT_FOR_WORKERS_S = 60
#: A text is recorded as one the extractor failed on when this many workers died reading it.
DEATHS = 2
#: Times a text's result may be lost with a worker that died after reading it (a neighbour's
#: death, not the text's doing) before the batch stops as the cluster's failure.
LOSSES = 3

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


def read_on_worker(parcel: list[tuple[SourceText, str]], ids: ToolIds
                   ) -> list[_Results | Failure]:
    """A task: extract each text (with its item's digest) with this worker's tools, which
    must be those the jobs were planned with."""
    tools = worker_tools()
    if tools.ids != ids:
        raise CasebuilderError(f"a worker's extraction tools are {tools.ids}, not {ids}: "
                               "every worker must run the same casebuilder")
    return [read_text(tools, source, sha256) for source, sha256 in parcel]


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
    # One task at a time on each worker, so that a worker's death is laid on its own parcel,
    # which _InOrder sends again text by text (no retry by the scheduler); no profiling of
    # the workers' threads, which nobody would look at.
    with dask.config.set({"distributed.scheduler.worker-saturation": 1.0,
                          "distributed.scheduler.allowed-failures": 0,
                          "distributed.worker.profile.enabled": False}), \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                         host="127.0.0.1", dashboard_address=None) as local, \
            Client(local) as client:
        yield client


def tools_on(client: Client) -> ToolIds:
    """Build the tools on every worker at once, and the ids they all share."""
    addresses = list(client.scheduler_info()["workers"])
    try:
        found: set[ToolIds] = set(client.gather([
            client.submit(worker_ids, workers=[a], pure=False) for a in addresses]))
    except KilledWorker as exc:
        raise CasebuilderError(f"a worker died loading the extraction tools ({exc})") from exc
    if len(found) != 1:
        raise CasebuilderError(f"the cluster's workers run different extraction tools: {found}")
    return found.pop()


def read_on(client: Client, ids: ToolIds) -> Reader:
    """A reader (see run.Reader) reading the jobs on the cluster in parcels, at most ``ahead``
    jobs at a time out (waiting for a parcel, sent, or back and waiting for their turn), and
    giving them back in plan order."""
    ahead = TEXTS_PER_TASK * PARCELS_PER_WORKER * max(1, len(client.scheduler_info()["workers"]))

    def read(planned: Iterator[ExtractOutcome | Job]
             ) -> Iterator[ExtractOutcome | tuple[Job, _Results | Failure]]:
        steps = _InOrder(client, ids)
        for step in planned:
            steps.add(step)
            yield from steps.take(ahead - 1)
        yield from steps.take(0)

    return read


class _InOrder:
    """Planned steps, their jobs sent to the cluster in parcels, given back in plan order.
    A parcel's results are fetched as soon as they are ready (the death of the worker holding
    them would lose them) and wait here for their turn."""

    def __init__(self, client: Client, ids: ToolIds) -> None:
        self.client, self.ids = client, ids
        self.order: deque[ExtractOutcome | Job] = deque()
        self.parcel: list[Job] = []  # jobs not sent yet
        self.sent: dict[Key, list[Job]] = {}
        self.read: dict[int, _Results | Failure] = {}  # by item id
        self.deaths: dict[int, int] = {}  # by item id: workers that died reading its text
        self.losses: dict[int, int] = {}  # by item id: results lost with a dead worker
        self.running = as_completed(loop=client.loop, with_results=True, raise_errors=False)
        self.out = 0  # jobs in ``order``

    def add(self, step: ExtractOutcome | Job) -> None:
        self.order.append(step)
        if isinstance(step, Job):
            self.out += 1
            self.parcel.append(step)
            if len(self.parcel) == TEXTS_PER_TASK or \
                    sum(len(j.source.text) for j in self.parcel) >= PARCEL_CHARS:
                self.send(self.parcel)
                self.parcel = []

    def send(self, jobs: list[Job]) -> None:
        future = self.client.submit(read_on_worker, [(j.source, j.item.sha256) for j in jobs],
                                    self.ids, pure=False)
        self.sent[future.key] = jobs
        self.running.add(future)

    def take(self, most_out: int) -> Iterator[ExtractOutcome | tuple[Job, _Results | Failure]]:
        """The steps at the head of the order, until no more than ``most_out`` jobs are out."""
        while self.order and (isinstance(self.order[0], ExtractOutcome) or
                              self.out > most_out):
            step = self.order[0]
            if isinstance(step, ExtractOutcome):
                self.order.popleft()
                yield step
            elif step.item.id in self.read:
                self.order.popleft()
                self.out -= 1
                yield step, self.read.pop(step.item.id)
            elif self.parcel and self.parcel[0] is step:  # its turn: send the parcel as it is
                self.send(self.parcel)
                self.parcel = []
            else:
                finished, result = next(self.running)
                self.came(self.sent.pop(finished.key), finished, result)

    def came(self, jobs: list[Job], future: Future[Any], result: Any) -> None:
        """Keep what a finished task gave. When its worker died, each text is sent again
        alone, and is the extractor's failure when it has killed ``DEATHS`` workers; any other
        error (the cluster's, not a text's) stops the batch."""
        if future.status == "finished":
            assert isinstance(result, list) and len(result) == len(jobs)
            self.read.update((j.item.id, r) for j, r in zip(jobs, result, strict=True))
            return
        if future.status == "lost":
            # Computed, then its worker died before the result was fetched: the text did no
            # harm (a death while reading it comes as KilledWorker), so it is read again.
            # Bounded, so that a cluster that keeps losing results stops the batch.
            future.cancel()
            for job in jobs:
                self.losses[job.item.id] = self.losses.get(job.item.id, 0) + 1
                if self.losses[job.item.id] > LOSSES:
                    raise CasebuilderError(
                        f"the cluster lost the results of {job.item.id} {LOSSES + 1} times")
            self.send(jobs)
            return
        error = future.exception() if future.status == "error" else None
        if not isinstance(error, KilledWorker):
            raise error or CasebuilderError(f"the cluster dropped a task ({future.status})")
        for job in jobs:
            self.deaths[job.item.id] = self.deaths.get(job.item.id, 0) + 1
            if self.deaths[job.item.id] < DEATHS:
                self.send([job])
            else:
                self.read[job.item.id] = Failure(
                    "the extractor failed: the worker process reading this text died, "
                    f"{DEATHS} times (KilledWorker)")


def extract_on_cluster(case: Case, item_ids: Sequence[int] | None = None, *,
                       workers: int | None = None, scheduler: str | None = None,
                       force: bool = False) -> ExtractReport:
    """run.extract_items, with the texts read by the workers of a cluster (see the module)."""
    with cluster(workers, scheduler) as client:
        ids = tools_on(client)
        return extract_with(case, ids, read_on(client, ids), item_ids, force=force)
