"""Tables of a case. Every stage reads and writes the case through these mapped classes.

Times are stored as ISO 8601 UTC strings ("2026-11-29T23:25:06.123456Z") rather than database
timestamp types: they sort as text, survive SQLite and PostgreSQL identically, and are exactly the
strings written into the custody log, so verification compares like with like.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Explicit constraint names keep Alembic migrations identical on SQLite and PostgreSQL.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, list[str]: JSON}


class CaseInfo(Base):
    """The one row describing this case (a case home holds exactly one case)."""

    __tablename__ = "case_info"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[str] = mapped_column(String(32))
    public_key_sha256: Mapped[str] = mapped_column(String(64))


class Item(Base):
    """One stored file, identified by its content: an original or a file derived from one."""

    __tablename__ = "items"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    # None until the stored copy is read back and its second digest recorded (a ``digest``
    # custody entry, preservation/sealing.py); set at once when it is computed while storing.
    sha512: Mapped[str | None] = mapped_column(String(128))
    size: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(16))  # "original" | "derived"
    media_type: Mapped[str | None] = mapped_column(String(120))
    format: Mapped[str | None] = mapped_column(String(40))
    parse_status: Mapped[str] = mapped_column(String(16), default="pending")
    parse_error: Mapped[str | None] = mapped_column(Text)
    parse_tool: Mapped[str | None] = mapped_column(String(120))
    item_metadata: Mapped[dict[str, Any] | None] = mapped_column("metadata", JSON)
    text_item_id: Mapped[int | None] = mapped_column(ForeignKey("items.id"))
    created_at: Mapped[str] = mapped_column(String(32))
    entry_seq: Mapped[int] = mapped_column(Integer)  # custody entry that recorded its hashes

    origins: Mapped[list[Origin]] = relationship(
        back_populates="item", foreign_keys="Origin.item_id", order_by="Origin.id"
    )


class Origin(Base):
    """Each time and place an item was received: a file path, an archive member, an attachment.

    The same content received twice is one item with two origins.
    """

    __tablename__ = "origins"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    relation: Mapped[str] = mapped_column(String(20))  # "file" | "archive-member" | "attachment"
    source_path: Mapped[str] = mapped_column(Text)
    name: Mapped[str] = mapped_column(Text)
    parent_item_id: Mapped[int | None] = mapped_column(ForeignKey("items.id"))
    source_mtime: Mapped[str | None] = mapped_column(String(32))
    received_at: Mapped[str] = mapped_column(String(32))
    actor: Mapped[str] = mapped_column(String(200))
    collection: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    sidecar_item_id: Mapped[int | None] = mapped_column(ForeignKey("items.id"))
    entry_seq: Mapped[int] = mapped_column(Integer)

    item: Mapped[Item] = relationship(back_populates="origins", foreign_keys=[item_id])


class Derivation(Base):
    """Which derived item was made from which original, by which tool and version."""

    __tablename__ = "derivations"
    __table_args__ = (UniqueConstraint("derived_item_id", "source_item_id", "kind"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    derived_item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    source_item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    kind: Mapped[str] = mapped_column(String(40))
    tool: Mapped[str] = mapped_column(String(120))
    tool_version: Mapped[str] = mapped_column(String(60))
    created_at: Mapped[str] = mapped_column(String(32))
    entry_seq: Mapped[int] = mapped_column(Integer)


class ItemRestriction(Base):
    """An item restricted to the roles cleared for it, or the restriction lifted: one row per
    decision, never changed; the latest row of an item says where it stands now."""

    __tablename__ = "item_restrictions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    restricted: Mapped[bool] = mapped_column()
    kind: Mapped[str | None] = mapped_column(String(60))  # access.toml [restricted.KIND]
    reason: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(200))
    at: Mapped[str] = mapped_column(String(32))
    entry_seq: Mapped[int] = mapped_column(Integer)


class IntakeFailure(Base):
    """A path that could not be taken in at all (unreadable, vanished, too large)."""

    __tablename__ = "intake_failures"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    source_path: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text)
    at: Mapped[str] = mapped_column(String(32))
    entry_seq: Mapped[int] = mapped_column(Integer)


class CustodyEvent(Base):
    """The database copy of one custody log entry; verification compares it with the log file."""

    __tablename__ = "custody_events"
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    leaf_hash: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(40), index=True)
    actor: Mapped[str] = mapped_column(String(200))
    time: Mapped[str] = mapped_column(String(32))
    entry: Mapped[str] = mapped_column(Text)  # the canonical JSON, exactly as in the log file


class LogState(Base):
    """The length of the log file as last written, so a writer notices an outside change."""

    __tablename__ = "log_state"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    tree_size: Mapped[int] = mapped_column(Integer)
    byte_length: Mapped[int] = mapped_column(BigInteger)
    # The roots of the log's complete subtrees ([size, hex] pairs, merkle.Frontier), so each
    # unit of work finds the new head without re-reading the log; None until first needed.
    frontier: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    # The seal (preservation/seal.py) of the last committed unit of work, as written to
    # custody/seal.json; None in a case whose last write came before seals existed.
    seal: Mapped[str | None] = mapped_column(Text, nullable=True)


class Checkpoint(Base):
    __tablename__ = "checkpoints"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tree_size: Mapped[int] = mapped_column(Integer)
    root: Mapped[str] = mapped_column(String(64))
    time: Mapped[str] = mapped_column(String(32))
    public_key_sha256: Mapped[str] = mapped_column(String(64))
    signature: Mapped[str] = mapped_column(Text)
    timestamp_token: Mapped[bytes | None] = mapped_column(LargeBinary)
    record: Mapped[str] = mapped_column(Text)  # the JSON line as written to checkpoints.jsonl


Index("ix_origins_parent", Origin.parent_item_id)


class ExtractionRun(Base):
    """One pass of the extractor over one item's text: which tool, vocabulary and gazetteer."""

    __tablename__ = "extraction_runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    text_item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    extractor: Mapped[str] = mapped_column(String(120))
    vocabulary_sha256: Mapped[str] = mapped_column(String(64))
    gazetteer: Mapped[str] = mapped_column(String(200))
    # The text and the collection facts read (publication date, title, outlet): a sidecar
    # that arrives later makes the same text a new source to extract from.
    source_sha256: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[str] = mapped_column(String(32))
    entry_seq: Mapped[int] = mapped_column(Integer)
    mention_count: Mapped[int] = mapped_column(Integer)
    claim_count: Mapped[int] = mapped_column(Integer)
    results_sha256: Mapped[str] = mapped_column(String(64))
    current: Mapped[bool] = mapped_column(default=True)  # superseded runs are kept, not used


class ExtractionFailure(Base):
    """The extractor failed on one item's text: which rules, and why. A later run with the same
    extractor, vocabulary, gazetteer and source facts does not try again unless forced."""

    __tablename__ = "extraction_failures"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    text_item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    extractor: Mapped[str] = mapped_column(String(120))
    vocabulary_sha256: Mapped[str] = mapped_column(String(64))
    gazetteer: Mapped[str] = mapped_column(String(200))
    source_sha256: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text)
    at: Mapped[str] = mapped_column(String(32))
    entry_seq: Mapped[int] = mapped_column(Integer)


class IncidentMention(Base):
    """One attack or situation at one place as one document reports it."""

    __tablename__ = "incident_mentions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("extraction_runs.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"), index=True)
    key: Mapped[str] = mapped_column(String(40), index=True)
    situation: Mapped[bool] = mapped_column()
    categories: Mapped[list[str]] = mapped_column(JSON)
    place_name: Mapped[str] = mapped_column(Text)
    place: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    lat: Mapped[float | None] = mapped_column()
    lon: Mapped[float | None] = mapped_column()
    date_start: Mapped[str | None] = mapped_column(String(10))
    date_end: Mapped[str | None] = mapped_column(String(10))
    date_precision: Mapped[str | None] = mapped_column(String(12))
    date_expression: Mapped[str | None] = mapped_column(Text)
    date_basis: Mapped[str | None] = mapped_column(String(20))  # event | report | situation
    char_start: Mapped[int] = mapped_column(Integer)
    char_end: Mapped[int] = mapped_column(Integer)


class Claim(Base):
    """One value a document states about a mention, with its words and its source."""

    __tablename__ = "claims"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    mention_id: Mapped[int] = mapped_column(ForeignKey("incident_mentions.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    kind: Mapped[str] = mapped_column(String(40), index=True)
    value: Mapped[dict[str, Any]] = mapped_column(JSON)
    rule: Mapped[str] = mapped_column(String(60))
    char_start: Mapped[int] = mapped_column(Integer)
    char_end: Mapped[int] = mapped_column(Integer)
    sentence_start: Mapped[int] = mapped_column(Integer)
    sentence_end: Mapped[int] = mapped_column(Integer)
    quote: Mapped[str] = mapped_column(Text)
    attributed_to: Mapped[str] = mapped_column(Text)
    speaker_role: Mapped[str] = mapped_column(Text)
    source_kind: Mapped[str] = mapped_column(String(40))
    party: Mapped[str | None] = mapped_column(String(40))
    verb: Mapped[str] = mapped_column(String(60))
    evidentiality: Mapped[str] = mapped_column(String(20))
    qualifiers: Mapped[list[str]] = mapped_column(JSON)
    also_attributed: Mapped[list[str]] = mapped_column(JSON)


class AnalystDecision(Base):
    """An analyst's merge, split, edit or grade of an incident, with the reason given.

    Decisions name mentions by their stable keys, so they survive re-extraction and re-merging;
    each is also a custody entry.
    """

    __tablename__ = "analyst_decisions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    action: Mapped[str] = mapped_column(String(20))  # merge | split | edit | grade
    incident_id: Mapped[str] = mapped_column(String(40), index=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    reason: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(200))
    at: Mapped[str] = mapped_column(String(32))
    entry_seq: Mapped[int] = mapped_column(Integer)


class DatasetRow(Base):
    """One row (or feature) of an imported dataset, and what became of it.

    ``status`` is ``incident`` (it became the incident mention ``mention_key``), ``context``
    (recorded, not harm to civilians: troop movements, military losses; ``rule`` names the
    mapping rule that said so) or ``rejected`` (``reason`` says why: bad coordinates, an
    unreadable date, broken quoting ...). ``byte_start``/``byte_end`` are offsets in the stored
    original's bytes; ``line`` and ``line_end`` its first and last line (1-based); ``cells``
    maps each column to the byte span of its cell. See docs/decisions/0018.
    """

    __tablename__ = "dataset_rows"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("extraction_runs.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id"))
    number: Mapped[int] = mapped_column(Integer)  # the row's place among the data rows, from 1
    line: Mapped[int] = mapped_column(Integer)
    line_end: Mapped[int] = mapped_column(Integer)
    byte_start: Mapped[int] = mapped_column(BigInteger)
    byte_end: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(12))  # incident | context | rejected
    rule: Mapped[str] = mapped_column(String(120))
    reason: Mapped[str | None] = mapped_column(Text)
    mention_key: Mapped[str | None] = mapped_column(String(40))
    facts: Mapped[dict[str, Any]] = mapped_column(JSON)  # entry id, date, place, title as given
    cells: Mapped[dict[str, Any]] = mapped_column(JSON)  # column -> [byte_start, byte_end]


class MergeEntry(Base):
    """A current mention as merging sees it (resolution/stored.py): its merge candidate, kept so
    that a part of the case can be merged again without reading its claims, and the part of the
    case it belongs to (mentions of different parts never meet in a merge)."""

    __tablename__ = "merge_entries"
    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    mention_id: Mapped[int | None] = mapped_column(Integer, index=True)
    part: Mapped[str] = mapped_column(String(40), index=True)
    candidate: Mapped[dict[str, Any]] = mapped_column(JSON)


class MergeBlock(Base):
    """Where one place of a mention is filed and looks in the merge's index (its kind, coarse
    cells, region and span of buckets: resolution.merge.Block), once for each area of the map
    (a square of cells, or its region) and each chunk of buckets it covers: finding the stored
    mentions a new one could meet is then an exact lookup of a few areas and chunks."""

    __tablename__ = "merge_blocks"
    __table_args__ = (
        Index("ix_merge_blocks_situation_area_chunk", "situation", "area", "chunk"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(40), index=True)
    area: Mapped[str] = mapped_column(String(220))  # "row:col" of a square, or "region:NAME"
    chunk: Mapped[int] = mapped_column(Integer)
    situation: Mapped[bool] = mapped_column(Boolean)
    broad: Mapped[bool] = mapped_column(Boolean)
    admin1: Mapped[str] = mapped_column(String(200))
    row_lo: Mapped[int | None] = mapped_column(Integer)
    row_hi: Mapped[int | None] = mapped_column(Integer)
    col_lo: Mapped[int | None] = mapped_column(Integer)
    col_hi: Mapped[int | None] = mapped_column(Integer)
    bucket_lo: Mapped[int] = mapped_column(Integer)
    bucket_hi: Mapped[int] = mapped_column(Integer)


class StoredIncident(Base):
    """An incident as merging and analysts' decisions settle it, kept between commands: its
    reasons, decisions and edits, and its listing record (resolution.listing), with the fields
    the incident list filters on as columns."""

    __tablename__ = "stored_incidents"
    id: Mapped[str] = mapped_column(String(60), primary_key=True)
    part: Mapped[str] = mapped_column(String(40), index=True)
    first_report: Mapped[str] = mapped_column(String(80), index=True)
    date_from: Mapped[str | None] = mapped_column(String(10), index=True)
    date_to: Mapped[str | None] = mapped_column(String(10))
    place: Mapped[str] = mapped_column(Text)  # place and region, lower case, for --place
    categories: Mapped[str] = mapped_column(Text)  # " explosive_attack killing "
    grade: Mapped[str] = mapped_column(String(20), index=True)
    # the point a map draws it at, for "within km of" (resolution/spatial.py)
    lat: Mapped[float | None] = mapped_column(index=True)
    lon: Mapped[float | None] = mapped_column()
    reasons: Mapped[list[str]] = mapped_column(JSON)
    decisions: Mapped[list[Any]] = mapped_column(JSON)
    overrides: Mapped[dict[str, Any]] = mapped_column(JSON)
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    line: Mapped[dict[str, Any]] = mapped_column(JSON)  # what a list shows of the record


class IncidentMember(Base):
    """Which incident a mention is in, at which place among its members, and why it joined."""

    __tablename__ = "incident_members"
    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    incident_id: Mapped[str] = mapped_column(String(60), index=True)
    position: Mapped[int] = mapped_column(Integer)


class IncidentState(Base):
    """What the stored incidents were built from: the current extraction runs and analysts'
    decisions (their count and highest id) and the rules (a digest), so a reader knows whether
    they are up to date, or only need the newest mentions or decisions added."""

    __tablename__ = "incident_state"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    runs: Mapped[int] = mapped_column(Integer)
    last_run: Mapped[int] = mapped_column(Integer)
    decisions: Mapped[int] = mapped_column(Integer)
    last_decision: Mapped[int] = mapped_column(Integer)
    rules: Mapped[str] = mapped_column(String(64))
    exact_anchors: Mapped[bool] = mapped_column(Boolean)  # no decision was re-anchored or lost


class UserAccount(Base):
    """A person who may use the case through the web interface, with one role (access.toml).
    Only the Argon2 hash of the password is kept."""

    __tablename__ = "user_accounts"
    name: Mapped[str] = mapped_column(String(80), primary_key=True)
    role: Mapped[str] = mapped_column(String(40))
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[str] = mapped_column(String(40))
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)


class WebSession(Base):
    """A signed-in browser: the SHA-256 of its cookie's token (never the token itself), its
    user, the token its forms must send back (CSRF) and when it ends."""

    __tablename__ = "web_sessions"
    token_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_name: Mapped[str] = mapped_column(String(80), index=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[str] = mapped_column(String(40))
    expires_at: Mapped[str] = mapped_column(String(40))
