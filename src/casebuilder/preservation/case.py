"""An open case: its home, database, object store, custody log and signing key, put together.

Every stage above preservation works on a :class:`Case` that the caller (CLI, tests, later the
web server) opened and passed in; nothing here is global. Opening a case brings the database
schema up to date; creating one writes the configuration, the signing key and the first
custody entry.
"""

from __future__ import annotations

import getpass
import os
import uuid
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from casebuilder import tool_id
from casebuilder.errors import CasebuilderError, CaseHomeError, ConfigurationError
from casebuilder.model.clock import Clock, format_utc, system_clock
from casebuilder.preservation.checkpoint import (
    SignedCheckpoint,
    Timestamper,
    append_checkpoint_line,
    sign_checkpoint,
)
from casebuilder.preservation.custody import CaseTransaction, case_lock, custody_transaction
from casebuilder.preservation.keys import CaseSigner, create_signing_key, load_signing_key
from casebuilder.preservation.merkle import MerkleTree
from casebuilder.preservation.objects import ObjectStore
from casebuilder.store.database import ensure_schema, make_engine, session_factory, sqlite_url
from casebuilder.store.home import CaseConfig, CasePaths, read_config, write_config
from casebuilder.store.schema import CaseInfo, Checkpoint, CustodyEvent, LogState

ACTOR_ENV = "CASEBUILDER_ACTOR"
DATABASE_ENV = "CASEBUILDER_DATABASE_URL"
TSA_ENV = "CASEBUILDER_TSA_URL"


@dataclass
class CheckpointOutcome:
    checkpoint: SignedCheckpoint | None  # None when the last checkpoint already covers the log
    timestamp_problem: str | None = None


@dataclass
class Case:
    paths: CasePaths
    config: CaseConfig
    engine: Engine
    sessions: sessionmaker[Session]
    objects: ObjectStore
    signer: CaseSigner
    clock: Clock
    actor: str
    timestamper: Timestamper | None = None
    tool: str = field(default_factory=tool_id)
    # Entries a previous command left without a checkpoint are noted once, by the first
    # unit of work of this opening of the case.
    _checked_uncovered: bool = False

    @property
    def case_id(self) -> str:
        return self.config.case_id

    def transaction(self) -> AbstractContextManager[CaseTransaction]:
        """A unit of work whose rows and custody entries land together or not at all."""
        check = not self._checked_uncovered
        self._checked_uncovered = True
        return custody_transaction(
            self.sessions,
            self.paths.log,
            self.paths.lock,
            case_id=self.case_id,
            actor=self.actor,
            tool=self.tool,
            clock=self.clock,
            check_uncovered=check,
        )

    def checkpoint(self) -> CheckpointOutcome:
        """Sign the log's current head unless the latest checkpoint already covers it."""
        with case_lock(self.paths.lock), self.sessions() as session:
            state = session.get(LogState, 1)
            if state is None:
                raise CaseHomeError("the case database has no log state")
            leaves = [
                bytes.fromhex(h)
                for h in session.execute(
                    select(CustodyEvent.leaf_hash).order_by(CustodyEvent.seq)
                ).scalars()
            ]
            tree = MerkleTree(leaves)
            self._reconcile_checkpoints(session, tree)
            last = session.execute(
                select(Checkpoint).order_by(Checkpoint.id.desc()).limit(1)
            ).scalar_one_or_none()
            if last is not None and last.tree_size == state.tree_size:
                session.commit()  # keeps a checkpoint adopted just above
                return CheckpointOutcome(None)
            root = tree.root(state.tree_size)
            time = format_utc(self.clock())
            if last is not None and time < last.time:
                time = last.time
            signed, problem = sign_checkpoint(
                self.signer,
                case_id=self.case_id,
                tree_size=state.tree_size,
                root=root,
                time=time,
                timestamper=self.timestamper,
            )
            line = signed.as_line()
            before = append_checkpoint_line(self.paths.checkpoints, line)
            session.add(
                Checkpoint(
                    tree_size=signed.tree_size,
                    root=signed.root,
                    time=signed.time,
                    public_key_sha256=signed.public_key_sha256,
                    signature=signed.signature,
                    timestamp_token=signed.timestamp_token,
                    record=line,
                )
            )
            try:
                session.commit()
            except BaseException:
                os.truncate(self.paths.checkpoints, before)
                raise
            return CheckpointOutcome(signed, problem)

    def _reconcile_checkpoints(self, session: Session, tree: MerkleTree) -> None:
        """A checkpoint written to the file by a command that stopped before its database
        commit is adopted if it is genuine (our key, a root of this log); anything else past
        the recorded checkpoints is moved aside, never silently dropped."""
        import base64

        from casebuilder.preservation.checkpoint import read_checkpoint_lines
        from casebuilder.preservation.keys import verify_signature

        lines = read_checkpoint_lines(self.paths.checkpoints)
        recorded = session.execute(select(Checkpoint.record).order_by(Checkpoint.id)).scalars()
        count = len(list(recorded))
        extra = lines[count:]
        if not extra:
            return
        keep: list[str] = []
        for text in extra:
            try:
                cp = SignedCheckpoint.from_line(text)
                genuine = (
                    cp.case_id == self.case_id
                    and cp.tree_size <= tree.size
                    and tree.root(cp.tree_size).hex() == cp.root
                    and verify_signature(self.signer.public_key,
                                         base64.b64decode(cp.signature), cp.signed_message())
                )
            except (CasebuilderError, ValueError):
                genuine = False
            if not genuine:
                break
            keep.append(text)
            session.add(Checkpoint(tree_size=cp.tree_size, root=cp.root, time=cp.time,
                                   public_key_sha256=cp.public_key_sha256,
                                   signature=cp.signature, timestamp_token=cp.timestamp_token,
                                   record=text))
        rest = extra[len(keep):]
        if rest:
            stamp = format_utc(self.clock()).replace(":", "").replace(".", "")
            aside = self.paths.checkpoints.with_name(f"checkpoints-interrupted-{stamp}.jsonl")
            aside.write_text("".join(line + "\n" for line in rest), encoding="utf-8")
            kept = "".join(line + "\n" for line in lines[: count + len(keep)])
            self.paths.checkpoints.write_text(kept, encoding="utf-8")
        session.flush()

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A read-only look at the case (no custody entry is written for it)."""
        with self.sessions() as session:
            yield session

    def close(self) -> None:
        self.engine.dispose()


def _actor(config: CaseConfig, environ: Mapping[str, str]) -> str:
    if environ.get(ACTOR_ENV):
        return environ[ACTOR_ENV]
    if config.investigator:
        return config.investigator
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry in some containers
        return f"uid:{os.getuid()}"


def _database_url(paths: CasePaths, config: CaseConfig, environ: Mapping[str, str]) -> str:
    return environ.get(DATABASE_ENV) or config.database_url or sqlite_url(paths.database)


def _timestamper(config: CaseConfig, environ: Mapping[str, str]) -> Timestamper | None:
    url = environ.get(TSA_ENV) or config.tsa_url
    if not url:
        return None
    from casebuilder.preservation.timestamp import TimestampAuthority

    ca_pem: bytes | None = None
    if config.tsa_ca_file:
        try:
            with open(config.tsa_ca_file, "rb") as fh:
                ca_pem = fh.read()
        except OSError as exc:
            raise ConfigurationError(
                f"cannot read the time-stamping CA file {config.tsa_ca_file}: {exc}"
            ) from exc
    authority = TimestampAuthority(url, ca_certs_pem=ca_pem)

    def timestamper(digest: bytes) -> bytes:
        return authority.timestamp(digest).token_der

    return timestamper


def _assemble(
    paths: CasePaths,
    config: CaseConfig,
    signer: CaseSigner,
    clock: Clock,
    environ: Mapping[str, str],
) -> Case:
    engine = make_engine(_database_url(paths, config, environ))
    ensure_schema(engine)
    return Case(
        paths=paths,
        config=config,
        engine=engine,
        sessions=session_factory(engine),
        objects=ObjectStore(paths.objects, paths.tmp),
        signer=signer,
        clock=clock,
        actor=_actor(config, environ),
        timestamper=_timestamper(config, environ),
    )


def init_case(
    home: Path,
    *,
    name: str = "",
    investigator: str = "",
    clock: Clock = system_clock,
    environ: Mapping[str, str] | None = None,
) -> Case:
    """Create a new case home (refusing to overwrite one) and return it open."""
    environ = os.environ if environ is None else environ
    paths = CasePaths(home)
    if paths.config.exists():
        raise CaseHomeError(f"{home} already holds a case")
    try:
        for directory in (paths.root, paths.objects, paths.custody, paths.keys, paths.tmp):
            directory.mkdir(parents=True, exist_ok=True)
        os.chmod(paths.keys, 0o700)
    except OSError as exc:
        raise CaseHomeError(f"cannot create the case home {home}: {exc}") from exc
    with case_lock(paths.lock):
        if paths.config.exists():
            raise CaseHomeError(f"{home} already holds a case")
        config = CaseConfig(
            case_id=str(uuid.uuid4()), name=name or home.resolve().name, investigator=investigator
        )
        signer = create_signing_key(paths.signing_key, paths.public_key)
        paths.log.touch()
        case = _assemble(paths, config, signer, clock, environ)
        with case.sessions.begin() as session:
            session.add(
                CaseInfo(
                    id=config.case_id,
                    name=config.name,
                    created_at=format_utc(clock()),
                    public_key_sha256=signer.key_id,
                )
            )
            session.add(LogState(id=1, tree_size=0, byte_length=0))
        # config.toml is written last: its presence is what marks a finished case home.
        write_config(paths, config)
    with case.transaction() as tx:
        tx.record(
            "init",
            details={
                "case_name": config.name,
                "public_key_sha256": signer.key_id,
                "home": str(paths.root.resolve()),
            },
        )
    case.checkpoint()
    return case


def open_case(
    home: Path,
    *,
    create: bool = False,
    clock: Clock = system_clock,
    environ: Mapping[str, str] | None = None,
) -> Case:
    """Open the case in ``home``; with ``create``, make it first if it does not exist yet."""
    environ = os.environ if environ is None else environ
    paths = CasePaths(home)
    if not paths.config.exists():
        if create:
            return init_case(home, clock=clock, environ=environ)
        raise CaseHomeError(
            f"{home} is not a case home; run 'casebuilder init' or choose one with --home"
        )
    config = read_config(paths)
    signer = load_signing_key(paths.signing_key)
    case = _assemble(paths, config, signer, clock, environ)
    with case.sessions() as session:
        info = session.get(CaseInfo, config.case_id)
        if info is None:
            raise ConfigurationError(
                f"{paths.config} names case {config.case_id} but the database holds another case"
            )
    return case
