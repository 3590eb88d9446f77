"""An open case: its home, database, object store, custody log and signing key, put together.

Every stage above preservation works on a :class:`Case` that the caller (CLI, tests, later the
web server) opened and passed in; nothing here is global. Opening a case brings the database
schema up to date; creating one writes the configuration, the signing key and the first
custody entry.
"""

from __future__ import annotations

import base64
import dataclasses
import getpass
import hashlib
import json
import os
import uuid
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sqlalchemy import Engine, delete, func, select
from sqlalchemy.orm import Session, sessionmaker

from casebuilder import tool_id
from casebuilder.errors import (
    CasebuilderError,
    CaseHomeError,
    CaseWriteError,
    ConfigurationError,
    CustodyLogError,
    IntegrityError,
    SigningError,
)
from casebuilder.model.clock import Clock, format_utc, system_clock
from casebuilder.preservation.checkpoint import (
    SignedCheckpoint,
    Timestamper,
    append_checkpoint_line,
    later_than,
    read_checkpoint_lines,
    rewrite_checkpoint_lines,
    sign_checkpoint,
)
from casebuilder.preservation.custody import (
    CaseTransaction,
    LogSealer,
    RunningLock,
    case_lock,
    custody_transaction,
    database_writes,
    last_entry_time,
    lock_log_state,
    move_tail_aside,
    read_raw_tail,
    read_tail,
    refuse_signed_tail,
    tail_sealed,
    uncovered,
    unit_of_work,
    unsigned_head,
    write_aside,
)
from casebuilder.preservation.keys import (
    CaseSigner,
    create_signing_key,
    load_public_key,
    load_signing_key,
    public_key_digest,
    verify_signature,
)
from casebuilder.preservation.merkle import MerkleTree
from casebuilder.preservation.objects import ObjectStorage, ObjectStore
from casebuilder.preservation.rotation import finish_interrupted_rotation, last_rotation_digest
from casebuilder.store.database import ensure_schema, make_engine, session_factory, sqlite_url
from casebuilder.store.home import (
    SECOND_DIGEST_MODES,
    CaseConfig,
    CasePaths,
    read_config,
    write_config,
)
from casebuilder.store.schema import CaseInfo, Checkpoint, CustodyEvent, Item, LogState

ACTOR_ENV = "CASEBUILDER_ACTOR"
DATABASE_ENV = "CASEBUILDER_DATABASE_URL"
TSA_ENV = "CASEBUILDER_TSA_URL"
#: Overrides ``[intake] second_digest`` for one process ("background" or "inline").
SECOND_DIGEST_ENV = "CASEBUILDER_SECOND_DIGEST"


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
    public_key: Ed25519PublicKey
    clock: Clock
    actor: str
    timestamper: Timestamper | None = None
    tool: str = field(default_factory=tool_id)
    # Loaded when a command first writes: reading and verifying need only the public key, so
    # the private key can be kept offline by an auditor's copy of the case.
    _signer: CaseSigner | None = None
    # Entries a previous command left without a checkpoint are noted once, by the first
    # unit of work of this opening of the case.
    _checked_uncovered: bool = False
    # Held from this opening's first unit of work until the checkpoint that signs it.
    running: RunningLock | None = None

    @property
    def case_id(self) -> str:
        return self.config.case_id

    @property
    def storage(self) -> ObjectStorage:
        """The object store as every stage but intake and verification uses it: by digest,
        never by path (so another kind of store can take the file system's place)."""
        return self.objects

    @property
    def key_id(self) -> str:
        return public_key_digest(self.public_key)

    @property
    def signer(self) -> CaseSigner:
        """The case's private key; only commands that write need it."""
        if self._signer is None:
            signer = load_signing_key(self.paths.signing_key)
            if signer.key_id != self.key_id:
                raise SigningError(
                    f"{self.paths.signing_key} is not the private half of the case's public key "
                    f"{self.paths.public_key}"
                )
            self._signer = signer
        return self._signer

    @signer.setter
    def signer(self, signer: CaseSigner) -> None:
        """A key rotation hands the case a new key (rotation.py)."""
        self._signer = signer
        self.public_key = signer.public_key

    @property
    def sealer(self) -> LogSealer:
        return LogSealer(self.paths.seal, self.case_id, self.public_key, lambda: self.signer,
                         self._rotated_keys)

    def _rotated_keys(self) -> tuple[Ed25519PublicKey, ...]:
        """Every key a logged key rotation names, old or new; their approval is verify's to
        check (rotation.py)."""
        from casebuilder.preservation.rotation import ROTATION_ACTION

        keys: list[Ed25519PublicKey] = []
        with self.sessions() as session:
            for text in session.execute(select(CustodyEvent.entry).where(
                    CustodyEvent.action == ROTATION_ACTION)).scalars():
                details = json.loads(text).get("details", {})
                for field_name in ("old_public_key", "new_public_key"):
                    try:
                        raw = base64.b64decode(str(details.get(field_name, "")), validate=True)
                        keys.append(Ed25519PublicKey.from_public_bytes(raw))
                    except ValueError:
                        continue
        return tuple(keys)

    def transaction(self) -> AbstractContextManager[CaseTransaction]:
        """A unit of work whose rows and custody entries land together or not at all.

        Before it, under the same lock, the case recovers from an interrupted command (see
        :meth:`_recover`) in a unit of work of its own, so a command that then fails cannot
        undo what recovery moved aside and logged."""
        check = not self._checked_uncovered
        self._checked_uncovered = True
        self.running_lock().hold()

        def prepare() -> None:
            logged = bool(self._recover(check_uncovered=check))
            if check:  # once per opening: what commands that died left in tmp/
                logged = self._account_for_leftovers(settle_own=False) or logged
            if logged:
                self._sign()

        return custody_transaction(
            self.sessions,
            self.paths.log,
            self.paths.lock,
            case_id=self.case_id,
            actor=self.actor,
            tool=self.tool,
            clock=self.clock,
            sealer=self.sealer,
            prepare=prepare,
        )

    def checkpoint(self) -> CheckpointOutcome:
        """Sign the log's current head unless the latest checkpoint already covers it."""
        with case_lock(self.paths.lock), database_writes():
            self._recover(check_uncovered=False)
            # This command's own stored objects are committed or never will be: account for
            # those without an item, and for what gone writers left, before signing.
            self._account_for_leftovers(settle_own=True)
            outcome = self._sign()
        self.running_lock().release()  # whatever this opening wrote is signed now
        return outcome

    def _account_for_leftovers(self, *, settle_own: bool) -> bool:
        """Log and clear what interrupted commands left in tmp/ (leftovers.py); the caller
        holds the case lock."""
        from casebuilder.preservation.leftovers import account_for_leftovers

        return account_for_leftovers(self, settle_own=settle_own)

    def running_lock(self) -> RunningLock:
        """The lock that tells verify a command of this case is still running (custody.py)."""
        if self.running is None:
            self.running = RunningLock(running_lock_path(self.paths))
        return self.running

    def _sign(self) -> CheckpointOutcome:
        """Sign the head of the log; the caller holds the case lock."""
        with self.sessions() as session:
            state = session.get(LogState, 1)
            if state is None:
                raise CaseHomeError("the case database has no log state")
            last = session.execute(
                select(Checkpoint).order_by(Checkpoint.id.desc()).limit(1)
            ).scalar_one_or_none()
            if last is not None and last.tree_size == state.tree_size:
                return CheckpointOutcome(None)
            if last is not None and last.tree_size > state.tree_size:
                raise IntegrityError(
                    f"the case database holds {state.tree_size} custody entries but its latest "
                    f"checkpoint signed {last.tree_size}: signed entries are missing. Nothing "
                    "was signed; the case needs an investigator's attention. Run "
                    "'casebuilder verify'"
                )
            problem = unsigned_head(session, state, self.sealer)
            if problem is not None:
                raise IntegrityError(
                    f"{problem}. Nothing was signed; run 'casebuilder verify', and "
                    "'casebuilder recover --reason ...' once an investigator has looked"
                )
            self._take_key_in_force(session)
            tree = MerkleTree(self._leaves(session))
            root = tree.root(state.tree_size)
            # A checkpoint is never dated before the entries it signs nor before the
            # checkpoint before it, even if the clock stepped back: verify holds every entry's
            # time to be no later than the first checkpoint that covers it.
            time = max(
                format_utc(self.clock()),
                last.time if last is not None else "",
                # a checkpoint only dates itself after what it signs; refusing a forward-dated
                # entry is the next writer's job (custody.last_entry_time)
                last_entry_time(session, self.clock, refuse_future=False),
            )
            signed, problem = sign_checkpoint(
                self.signer,
                case_id=self.case_id,
                tree_size=state.tree_size,
                root=root,
                time=time,
                timestamper=self.timestamper,
            )
            line = signed.as_line()
            try:
                before = append_checkpoint_line(self.paths.checkpoints, line)
            except OSError as exc:
                raise CaseWriteError(f"cannot write the signed checkpoint: {exc}") from exc
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

    def _take_key_in_force(self, session: Session) -> None:
        """Sign with the key the log's last rotation names (the caller holds the case lock):
        another process may have rotated the key since this one loaded it, or a rotation may
        have stopped before putting its key in place (rotation.py)."""
        named = last_rotation_digest(session)
        if named is None or named == self.signer.key_id:
            return
        finish_interrupted_rotation(self.paths, named)
        self.signer = load_signing_key(self.paths.signing_key)
        if self.signer.key_id != named:
            raise IntegrityError(
                f"the custody log's last key rotation hands the case to key {named[:16]}…, but "
                f"the case key is {self.signer.key_id[:16]}…: nothing was signed; the case "
                "needs an investigator's attention. Run 'casebuilder verify'"
            )

    @staticmethod
    def _leaves(session: Session) -> list[bytes]:
        return [
            bytes.fromhex(h)
            for h in session.execute(
                select(CustodyEvent.leaf_hash).order_by(CustodyEvent.seq)
            ).scalars()
        ]

    def _recover(
        self, *, check_uncovered: bool, reason: str | None = None
    ) -> list[dict[str, Any]]:
        """Put right what an interrupted command left, under the case lock, in a unit of work
        of its own; returns the details of the entries it logged (the caller then signs them).

        What a crash of this case's own commands can leave is handled by every command:

        - entries after the recorded end of the log that the seal on disk covers (a command
          died between appending and committing) are moved aside and noted;
        - checkpoint lines after the recorded ones that are genuine and later than the last
          recorded checkpoint (a command died before committing its checkpoint) are adopted;
        - entries an earlier command committed but did not sign are noted (``check_uncovered``)
          if its seal covers them.

        Anything else (unsealed entries, forged or replayed checkpoint lines, unsealed
        committed entries) is refused with nothing touched, until an investigator runs
        :meth:`recover`, which passes ``reason`` and moves or adopts them in ``recover``
        entries. Signed entries missing from the database are refused even then.
        """
        with self.sessions() as session:
            state = lock_log_state(session)
            lines = read_checkpoint_lines(self.paths.checkpoints)
            recorded = list(
                session.execute(select(Checkpoint).order_by(Checkpoint.id)).scalars()
            )
            sizes = [_line_size(text) for text in lines] + [row.tree_size for row in recorded]
            notes: list[dict[str, Any]] = []
            if reason is None:
                tail = read_tail(self.paths.log, state)
                if tail is not None:
                    refuse_signed_tail(self.paths.log, state, tail[1], sizes)
                    if not tail_sealed(session, state, tail[0], self.sealer):
                        raise CustodyLogError(unsealed_tail_message(self.paths.log, state,
                                                                    tail[1]))
                    notes.append(move_tail_aside(self.paths.log, state, tail[0], tail[1],
                                                 self.clock))
            else:
                notes.extend(self._move_any_tail_aside(session, state, sizes, reason))
            signed = max((row.tree_size for row in recorded), default=0)
            if signed > state.tree_size:
                raise IntegrityError(
                    f"the case database holds {state.tree_size} custody entries but a "
                    f"checkpoint it records signed {signed}: signed entries are missing from "
                    "the database. Nothing was written; the case needs an investigator's "
                    "attention. Run 'casebuilder verify'"
                )
            rejected = self._reconcile_checkpoints(session, lines, recorded, state.tree_size)
            if rejected and reason is None:
                raise CustodyLogError(
                    f"{self.paths.checkpoints} holds {len(rejected)} line(s) after the "
                    f"recorded checkpoints that no command of this case left ({rejected[0][1]})."
                    " Nothing was written; run 'casebuilder verify' to see them, and "
                    "'casebuilder recover --reason ...' to set them aside once an investigator "
                    "has looked"
                )
            if rejected:
                notes.append({**self._move_checkpoints_aside(rejected), "reason": reason})
            session.flush()
            if reason is not None:
                problem = unsigned_head(session, state, self.sealer)
                if problem is not None:
                    notes.append({
                        "note": "committed entries that neither a seal nor a checkpoint signed "
                                "were adopted by an investigator's explicit recovery",
                        "problem": problem, "reason": reason,
                    })
            elif check_uncovered:
                late = uncovered(session, state.tree_size)
                if late is not None:
                    notes.append(late)
            if not notes:
                session.commit()  # keeps a checkpoint adopted above
                return []
            with unit_of_work(
                session,
                state,
                self.paths.log,
                case_id=self.case_id,
                actor=self.actor,
                tool=self.tool,
                clock=self.clock,
                sealer=self.sealer,
                unsealed_base=reason is not None,
            ) as tx:
                for details in notes:
                    tx.record("checkpoint-note" if reason is None else "recover",
                              details=details)
        if rejected:
            rewrite_checkpoint_lines(self.paths.checkpoints, lines[: len(lines) - len(rejected)])
        return notes

    def _move_any_tail_aside(
        self, session: Session, state: LogState, sizes: list[int | None], reason: str
    ) -> list[dict[str, Any]]:
        """For :meth:`recover`: whatever follows the recorded end of the log, whole lines or
        not, sealed or not, goes to a file of its own (never dropped)."""
        raw = read_raw_tail(self.paths.log, state)
        if not raw:
            return []
        refuse_signed_tail(self.paths.log, state, raw.count(b"\n"), sizes)
        whole = raw.endswith(b"\n")
        sealed = whole and tail_sealed(session, state, raw, self.sealer)
        entries = raw.count(b"\n") + (0 if whole else 1)
        details = move_tail_aside(self.paths.log, state, raw, entries, self.clock,
                                  sealed=sealed)
        return [{**details, "reason": reason}]

    def recover(self, reason: str) -> list[dict[str, Any]]:
        """An investigator's explicit recovery of what no command may touch on its own (see
        :meth:`_recover`), logged as ``recover`` entries with the reason and signed at once.
        Returns the details of those entries (none when there was nothing to recover)."""
        if not reason.strip():
            raise ConfigurationError("recovery needs a reason (--reason)")
        self.running_lock().hold()
        with case_lock(self.paths.lock):
            done = self._recover(check_uncovered=False, reason=reason)
        self.checkpoint()
        return done

    def _reconcile_checkpoints(
        self, session: Session, lines: list[str], recorded: list[Checkpoint], tree_size: int
    ) -> list[tuple[str, str]]:
        """Checkpoint lines past the recorded ones: a genuine one (our key, this case, a root of
        this log, later than the checkpoint before it) was written by a command that stopped
        before its database commit and is adopted (added to ``session``); from the first one
        that is not, the rest are returned with the reason, to be moved aside.

        A line signed with the case key that covers entries the database does not hold, or
        gives another root for them, is not a crash's leftover but a sign that signed entries
        were removed or altered: that is refused (IntegrityError) before anything changes."""
        extra = lines[len(recorded):]
        if not extra:
            return []
        tree = MerkleTree(self._leaves(session))
        if tree.size != tree_size:
            raise IntegrityError(
                f"the case database records {tree_size} custody entries but holds "
                f"{tree.size}; run 'casebuilder verify'"
            )
        parsed: list[tuple[str, SignedCheckpoint | None]] = []
        for text in extra:
            cp = self._signed_by_us(text)
            if cp is not None and (
                cp.tree_size > tree.size or tree.root(cp.tree_size).hex() != cp.root
            ):
                raise IntegrityError(
                    f"{self.paths.checkpoints.name} holds a checkpoint signed with the case key "
                    f"over {cp.tree_size} entries that the case database does not hold as "
                    "signed: signed entries were removed or altered. Nothing was written; the "
                    "case needs an investigator's attention. Run 'casebuilder verify'"
                )
            parsed.append((text, cp))
        last_size = recorded[-1].tree_size if recorded else -1
        last_time = recorded[-1].time if recorded else ""
        for index, (text, cp) in enumerate(parsed):
            if cp is None:
                reason = "not a checkpoint of this case signed with its key"
            elif not later_than(cp, last_size, last_time):
                reason = (
                    f"signed with the case key but not later than the checkpoint before it "
                    f"({cp.tree_size} entries at {cp.time}, after {last_size} at "
                    f"{last_time}): a copy of an earlier checkpoint, not one left by a command"
                )
            else:
                session.add(
                    Checkpoint(
                        tree_size=cp.tree_size,
                        root=cp.root,
                        time=cp.time,
                        public_key_sha256=cp.public_key_sha256,
                        signature=cp.signature,
                        timestamp_token=cp.timestamp_token,
                        record=text,
                    )
                )
                last_size, last_time = cp.tree_size, cp.time
                continue
            return [(line, reason if i == 0 else "follows a line that was not adopted")
                    for i, (line, _) in enumerate(parsed[index:])]
        return []

    def _signed_by_us(self, text: str) -> SignedCheckpoint | None:
        try:
            cp = SignedCheckpoint.from_line(text)
            genuine = cp.case_id == self.case_id and verify_signature(
                self.public_key, base64.b64decode(cp.signature), cp.signed_message()
            )
        except (CasebuilderError, ValueError):
            return None
        return cp if genuine else None

    def _move_checkpoints_aside(self, rejected: list[tuple[str, str]]) -> dict[str, Any]:
        data = "".join(line + "\n" for line, _ in rejected).encode("utf-8")
        aside = write_aside(self.paths.custody, "checkpoints-interrupted", data, self.clock)
        return {
            "note": "checkpoint lines after the recorded checkpoints were moved aside, not "
                    "adopted",
            "moved_to": aside.name,
            "lines": len(rejected),
            "reasons": [reason for _, reason in rejected][:20],
            "sha256": hashlib.sha256(data).hexdigest(),
        }

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A read-only look at the case (no custody entry is written for it)."""
        with self.sessions() as session:
            yield session

    def close(self) -> None:
        if self.running is not None:
            self.running.release()
        self.objects.staging.close()
        self.engine.dispose()


def unsealed_tail_message(log: Path, state: LogState, entries: int) -> str:
    return (
        f"the custody log {log} holds {entries} entries after the end the database records "
        f"({state.tree_size} entries) that the case key did not seal: they were added outside "
        "casebuilder, not left by an interrupted command. Nothing was written; run "
        "'casebuilder verify' to see them, and 'casebuilder recover --reason ...' to set them "
        "aside once an investigator has looked"
    )


def running_lock_path(paths: CasePaths) -> Path:
    """Beside the case lock: held shared by every command between its first custody entry
    and the checkpoint that signs it."""
    return paths.lock.with_name("running.lock")


def _line_size(text: str) -> int | None:
    """The entry count a checkpoint line claims, or None when it cannot be read."""
    try:
        size = json.loads(text).get("tree_size")
    except (ValueError, AttributeError):
        return None
    return size if isinstance(size, int) and not isinstance(size, bool) else None


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


def _open_database(url: str, paths: CasePaths, config: CaseConfig,
                   environ: Mapping[str, str], *, new: bool) -> Engine:
    """The case's database, brought up to date; a missing SQLite file of an existing case, or a
    URL nobody can connect to, is named as such (an empty database is never made in its place)."""
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    where = (f"the environment variable {DATABASE_ENV}" if environ.get(DATABASE_ENV)
             else f"{paths.config}" if config.database_url else None)
    if where is None and not new and not paths.database.exists():
        raise CaseHomeError(
            f"the case database {paths.database} is missing: the case home {paths.root} holds "
            "a configuration but no database. Nothing was created; restore case.db from a "
            "copy, or check with 'casebuilder verify --against BUNDLE' what a bundle holds"
        )
    try:
        engine = make_engine(url)
        ensure_schema(engine)
    except (ArgumentError, NoSuchModuleError, SQLAlchemyError) as exc:
        shown = url
        try:
            from sqlalchemy.engine import make_url

            shown = make_url(url).render_as_string(hide_password=True)
        except ArgumentError:
            pass
        origin = where or "the default SQLite database"
        raise ConfigurationError(
            f"cannot open the case database {shown} (from {origin}): "
            f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
        ) from exc
    return engine


def _assemble(
    paths: CasePaths,
    config: CaseConfig,
    public_key: Ed25519PublicKey,
    clock: Clock,
    environ: Mapping[str, str],
    signer: CaseSigner | None = None,
) -> Case:
    engine = _open_database(_database_url(paths, config, environ), paths, config, environ,
                            new=signer is not None)
    mode = environ.get(SECOND_DIGEST_ENV)
    if mode:
        if mode not in SECOND_DIGEST_MODES:
            raise ConfigurationError(f"{SECOND_DIGEST_ENV} must be one of "
                                     f"{', '.join(SECOND_DIGEST_MODES)}, not {mode!r}")
        config = dataclasses.replace(config, second_digest=mode)
    return Case(
        paths=paths,
        config=config,
        engine=engine,
        sessions=session_factory(engine),
        objects=ObjectStore(paths.objects, paths.tmp),
        public_key=public_key,
        clock=clock,
        actor=_actor(config, environ),
        timestamper=_timestamper(config, environ),
        _signer=signer,
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
        unfinished = _clear_unfinished_init(paths, environ)
        signer = create_signing_key(paths.signing_key, paths.public_key)
        paths.log.touch()
        case = _assemble(paths, config, signer.public_key, clock, environ, signer)
        with case.sessions.begin() as session:
            _clear_unfinished_rows(session, paths)
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
                **({"unfinished_init_cleared": unfinished} if unfinished else {}),
            },
        )
    case.checkpoint()
    return case


def _clear_unfinished_init(paths: CasePaths, environ: Mapping[str, str]) -> list[str]:
    """What an init stopped before its config.toml (killed, a full disk) left: a key pair that
    signed nothing and an empty log. They are removed so that init can start again, and the
    new case's ``init`` entry names them. Anything signed (a log line, a seal, a checkpoint) is
    not an unfinished init: init refuses and leaves it for an investigator."""
    signed = [p for p in (paths.seal, paths.checkpoints)
              if p.exists() and p.stat().st_size > 0]
    if paths.log.exists() and paths.log.stat().st_size > 0:
        signed.insert(0, paths.log)
    if signed:
        raise CaseHomeError(
            f"{paths.root} holds no config.toml but holds {', '.join(map(str, signed))}: not "
            "a case home casebuilder left unfinished; nothing was changed"
        )
    left = [p for p in (paths.signing_key, paths.public_key) if p.exists()]
    database = _unfinished_database(paths, environ)
    for path in [*left, *database]:
        path.unlink()
    return [str(p.relative_to(paths.root)) for p in [*left, *database]]


def _unfinished_database(paths: CasePaths, environ: Mapping[str, str]) -> list[Path]:
    """The default SQLite files an init stopped part-way through its schema may have left (the
    tables made, the schema's version not yet recorded). Cleared only when they hold no item
    and no custody entry; otherwise init refuses, naming the file."""
    if environ.get(DATABASE_ENV) or not paths.database.exists():
        return []
    import sqlite3

    held = 0
    try:
        db = sqlite3.connect(f"file:{paths.database}?mode=ro", uri=True)
        try:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
            for table in ("items", "custody_events", "checkpoints"):
                if table in tables:
                    held += db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise CaseHomeError(f"{paths.database} exists but cannot be read ({exc}); "
                            "nothing was changed") from exc
    if held:
        raise CaseHomeError(f"{paths.root} holds no config.toml but {paths.database} holds "
                            f"{held} rows of items, entries or checkpoints: not a case home "
                            "casebuilder left unfinished; nothing was changed")
    sidecars = [paths.database.with_name(paths.database.name + s) for s in ("-wal", "-shm",
                                                                              "-journal")]
    return [paths.database, *(p for p in sidecars if p.exists())]


def _clear_unfinished_rows(session: Session, paths: CasePaths) -> None:
    """The case row and empty log state an unfinished init may have committed."""
    state = session.get(LogState, 1)
    if state is not None and state.tree_size:
        raise CaseHomeError(f"{paths.root} holds no config.toml but its database holds a log "
                            f"of {state.tree_size} entries; nothing was changed")
    session.execute(delete(LogState))
    session.execute(delete(CaseInfo))


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
    try:
        public_key = load_public_key(paths.public_key.read_bytes())
    except OSError as exc:
        raise SigningError(f"cannot read the case public key {paths.public_key}: {exc}") from exc
    case = _assemble(paths, config, public_key, clock, environ)
    with case.sessions() as session:
        info = session.get(CaseInfo, config.case_id)
        if info is None:
            raise ConfigurationError(
                f"{paths.config} names case {config.case_id} but the database holds another case"
            )
    _finish_unfinished_init(case)
    return case


def _rows_held(session: Session) -> int:
    return sum(session.scalar(select(func.count()).select_from(table)) or 0
               for table in (CustodyEvent, Checkpoint, Item))


def _finish_unfinished_init(case: Case) -> None:
    """An init stopped after writing config.toml but before its ``init`` entry (killed, a
    full disk) leaves a finished-looking home with an empty log that verify rightly fails.
    The next command writes that entry and the first checkpoint, saying so. Only a case with
    nothing in it qualifies: no log line, no seal or checkpoint, and in the database no
    entry, checkpoint or item; anything else is left for verify to judge."""
    paths = case.paths
    if any(p.exists() and p.stat().st_size > 0 for p in (paths.log, paths.checkpoints,
                                                          paths.seal)):
        return  # the usual case: two stats and nothing more
    with case.sessions() as session:
        if _rows_held(session):
            return  # an emptied log in a case that holds entries: verify names it
    with case.transaction() as tx:  # under the case lock: another command may finish it first
        if _rows_held(tx.session) or paths.log.stat().st_size > 0:
            return
        info = tx.session.get(CaseInfo, case.case_id)
        tx.record(
            "init",
            details={
                "case_name": case.config.name,
                "public_key_sha256": info.public_key_sha256 if info else None,
                "home": str(paths.root.resolve()),
                "created_at": info.created_at if info else None,
                "finished_by_a_later_command": "the init that made this case stopped after "
                "writing config.toml, before its init entry; this entry completes it",
            },
        )
    case.checkpoint()
