"""Corpora: named sets of transcripts, filled from uploaded files, archives, a folder, or a fleet runtime.

A file that cannot be read or parsed is recorded as a :class:`CorpusFailure` with its error and the rest
go on. An identical text already stored is reused instead of stored twice. Archives (zip, tar.gz) are read
in memory member by member -- nothing is extracted to disk -- with limits on the number of members and
their total size, and members whose names are absolute or climb out with ``..`` are refused (listed
as failures), so an archive cannot write anywhere or exhaust memory.
"""

from __future__ import annotations

import io
import tarfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import IntegrityError, transaction

from dashboard.errors import ApplicationError
from dashboard.models import Corpus, CorpusFailure, Transcript, TrimEvent
from dashboard.selectors.transcripts import text_sha256
from dashboard.services.transcripts import transcript_import
from simulator import TRANSCRIPT_SUFFIXES, SimulatorError


class CorpusError(SimulatorError, ApplicationError):
    """A corpus request that cannot be met (name taken, archive unreadable or over its limits): 422."""

    status = 422


@dataclass(frozen=True, slots=True)
class Added:
    added: int
    failed: int


def _user(user: User | AnonymousUser | None) -> User | None:
    return user if isinstance(user, User) else None


def corpus_create(*, name: str, description: str = "", user: User | AnonymousUser | None = None) -> Corpus:
    clean = name.strip()
    if not clean:
        raise CorpusError("a corpus needs a name", {"field": "name"})
    if len(clean) > 200:
        raise CorpusError("a corpus name has at most 200 characters", {"field": "name"})
    try:
        with transaction.atomic():
            return Corpus.objects.create(
                name=clean, description=description.strip()[:400], created_by=_user(user)
            )
    except IntegrityError:
        raise CorpusError(f"a corpus named {clean!r} already exists", {"field": "name"}) from None


def corpus_delete(*, corpus: Corpus) -> None:
    corpus.delete()


def _add_one(corpus: Corpus, name: str, data: bytes, user: User | None) -> str | None:
    """Add one file; the error in words when it cannot be added."""
    limit: int = settings.TRIMSCOPE_MAX_UPLOAD_BYTES
    if len(data) > limit:
        return f"{len(data):,} bytes, over the {limit:,}-byte limit for one transcript"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text: {exc}"
    existing = Transcript.objects.filter(sha256=text_sha256(text)).first()
    if existing is not None:
        corpus.transcripts.add(existing)
        return None
    try:
        transcript = transcript_import(text=text, name=PurePosixPath(name).name, source=name, user=user)
    except SimulatorError as exc:
        return exc.message
    corpus.transcripts.add(transcript)
    return None


def corpus_add_files(
    *, corpus: Corpus, files: Iterable[tuple[str, bytes]], user: User | AnonymousUser | None = None
) -> Added:
    """Add ``(name, bytes)`` files; each that cannot be added is recorded with its error."""
    added = failed = 0
    for name, data in files:
        error = _add_one(corpus, name, data, _user(user))
        if error is None:
            added += 1
        else:
            CorpusFailure.objects.create(corpus=corpus, file=name[:500], error=error)
            failed += 1
    return Added(added, failed)


def _safe_member(name: str) -> bool:
    path = PurePosixPath(name.replace("\\", "/"))
    return not path.is_absolute() and ".." not in path.parts and not name.startswith("/")


def _archive_members(data: bytes, filename: str) -> Iterator[tuple[str, bytes | str]]:
    """``(name, bytes)`` per transcript member, or ``(name, reason)`` for a refused member.

    Raises:
        CorpusError: the archive cannot be opened, or is over the member-count or total-size limit.
    """
    max_files: int = settings.TRIMSCOPE_CORPUS_ARCHIVE_MAX_FILES
    max_total: int = settings.TRIMSCOPE_CORPUS_ARCHIVE_MAX_BYTES
    per_file: int = settings.TRIMSCOPE_MAX_UPLOAD_BYTES
    lower = filename.lower()
    total = 0
    count = 0

    def check(name: str, size: int) -> str | None:
        nonlocal total, count
        if not _safe_member(name):
            return "refused: the member's path is absolute or leaves the archive (..)"
        if size > per_file:
            return f"{size:,} bytes, over the {per_file:,}-byte limit for one transcript"
        count += 1
        total += size
        if count > max_files:
            raise CorpusError(f"{filename}: more than {max_files:,} files in the archive", {"file": filename})
        if total > max_total:
            raise CorpusError(
                f"{filename}: more than {max_total:,} bytes once unpacked",
                {"file": filename, "limit": max_total},
            )
        return None

    if lower.endswith(".zip"):
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile as exc:
            raise CorpusError(f"{filename}: not a zip archive ({exc})", {"file": filename}) from None
        with archive:
            for info in archive.infolist():
                if info.is_dir() or PurePosixPath(info.filename).suffix not in TRANSCRIPT_SUFFIXES:
                    continue
                refused = check(info.filename, info.file_size)
                if refused is not None:
                    yield info.filename, refused
                    continue
                with archive.open(info) as member:
                    # Read one byte past the declared size: a member that lies about its size is caught.
                    body = member.read(per_file + 1)
                if len(body) > per_file:
                    yield info.filename, f"over the {per_file:,}-byte limit for one transcript"
                    continue
                yield info.filename, body
        return
    if lower.endswith((".tar.gz", ".tgz", ".tar")):
        try:
            archive_t = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115  # closed below
        except (tarfile.TarError, OSError) as exc:
            raise CorpusError(f"{filename}: not a tar archive ({exc})", {"file": filename}) from None
        with archive_t:
            for tinfo in archive_t:
                if not tinfo.isfile():
                    # Links, devices and folders are never followed or created.
                    continue
                if PurePosixPath(tinfo.name).suffix not in TRANSCRIPT_SUFFIXES:
                    continue
                refused = check(tinfo.name, tinfo.size)
                if refused is not None:
                    yield tinfo.name, refused
                    continue
                handle = archive_t.extractfile(tinfo)
                if handle is None:
                    continue
                yield tinfo.name, handle.read(per_file + 1)
        return
    raise CorpusError(f"{filename}: an archive must be .zip, .tar.gz, .tgz or .tar", {"file": filename})


def corpus_add_archive(
    *, corpus: Corpus, filename: str, data: bytes, user: User | AnonymousUser | None = None
) -> Added:
    """Add every transcript file in a zip or tar(.gz) archive; refused members are listed as failures."""
    added = failed = 0
    for name, body in _archive_members(data, filename):
        error = body if isinstance(body, str) else _add_one(corpus, name, body, _user(user))
        if error is None:
            added += 1
        else:
            CorpusFailure.objects.create(corpus=corpus, file=f"{filename}/{name}"[:500], error=error)
            failed += 1
    return Added(added, failed)


def corpus_add_runtime_sessions(*, corpus: Corpus, runtime_name: str) -> Added:
    """Add every uploaded transcript whose session id a fleet runtime reported trims for."""
    sessions = (
        TrimEvent.objects.filter(runtime__name=runtime_name)
        .exclude(session_id="")
        .values("session_id")
        .distinct()
    )
    found = list(Transcript.objects.filter(session_id__in=sessions).values_list("pk", flat=True))
    corpus.transcripts.add(*found)
    return Added(len(found), 0)


__all__ = [
    "Added",
    "CorpusError",
    "corpus_add_archive",
    "corpus_add_files",
    "corpus_add_runtime_sessions",
    "corpus_create",
    "corpus_delete",
]
