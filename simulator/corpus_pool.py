"""A corpus held in worker processes: each transcript is read and parsed once, then replayed under any
number of profiles, batch after batch (the tune search sends several batches).

This is shell code for the command line: it reads files and starts processes; what it runs is the pure
:mod:`simulator.evaluate`. Files are spread over the workers by size (largest first to the least loaded
worker), each worker keeps its share parsed for its whole life, and only profiles go in and metrics come
out. One worker means no process at all. The parsed corpus is built with the cyclic collector paused and
then frozen (:mod:`simulator.long_lived`): it lives as long as the process.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from types import TracebackType

from simulator.errors import SimulatorError
from simulator.estimates import load_tokenizer
from simulator.evaluate import PreparedTranscript, SessionMetrics, evaluate_session
from simulator.importers import parse_transcript
from simulator.long_lived import building_long_lived
from simulator.profiles import Profile

TRANSCRIPT_SUFFIXES = (".json", ".jsonl", ".ndjson")


@dataclass(frozen=True, slots=True)
class Failure:
    file: str
    error: str


def corpus_files(paths: Iterable[str]) -> list[Path]:
    """Files named, and transcript files (``*.json``, ``*.jsonl``, ``*.ndjson``) under folders, recursively.

    Raises:
        FileNotFoundError: naming the first path that is neither.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(
                sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in TRANSCRIPT_SUFFIXES)
            )
        elif path.is_file():
            found.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {raw}")
    return list(dict.fromkeys(found))


def load(files: Sequence[Path], *, priced: bool = True) -> tuple[list[PreparedTranscript], list[Failure]]:
    """Read and parse ``files``; a file that cannot be read or parsed becomes a :class:`Failure`.

    ``priced=False`` skips what only the cost model needs (o200k counts of every message).
    """
    prepared: list[PreparedTranscript] = []
    failed: list[Failure] = []
    counted: dict[str, int] = {}  # o200k counts by text, over the whole corpus
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
            transcript = parse_transcript(text, source=str(path))
        except (OSError, UnicodeDecodeError) as exc:
            failed.append(Failure(str(path), f"cannot read: {exc}"))
            continue
        except SimulatorError as exc:
            failed.append(Failure(str(path), exc.message))
            continue
        prepared.append(PreparedTranscript.of(transcript, source=str(path), priced=priced, counted=counted))
    return prepared, failed


def _run(prepared: Sequence[PreparedTranscript], profiles: Sequence[Profile]) -> list[list[SessionMetrics]]:
    return [[evaluate_session(p, profile) for p in prepared] for profile in profiles]


def _serve(conn: Connection, files: list[Path], priced: bool) -> None:
    with building_long_lived():
        prepared, failed = load(files, priced=priced)
    conn.send((len(prepared), failed))
    while True:
        profiles = conn.recv()
        if profiles is None:
            break
        conn.send(_run(prepared, profiles))
    conn.close()


def _shards(files: Sequence[Path], n: int) -> list[list[Path]]:
    sizes = {f: (f.stat().st_size if f.exists() else 0) for f in files}
    shards: list[list[Path]] = [[] for _ in range(n)]
    load_of = [0] * n
    for f in sorted(files, key=lambda f: -sizes[f]):
        i = load_of.index(min(load_of))
        shards[i].append(f)
        load_of[i] += sizes[f]
    return [s for s in shards if s]


class CorpusPool:
    """The corpus parsed once in ``workers`` processes (or in this process when ``workers`` is 1)."""

    def __init__(self, files: Sequence[Path], *, workers: int = 1, priced: bool = True) -> None:
        self.sessions = 0
        self.failed: list[Failure] = []
        self._local: list[PreparedTranscript] | None = None
        self._conns: list[Connection] = []
        self._procs: list[multiprocessing.process.BaseProcess] = []
        if workers <= 1 or len(files) <= 1:
            with building_long_lived():
                self._local, self.failed = load(files, priced=priced)
            self.sessions = len(self._local)
            return
        # fork: the children inherit the imported simulator instead of importing it again, and the
        # tokenizer the cost model counts with instead of each loading its own.
        if priced:
            load_tokenizer()
        ctx = multiprocessing.get_context("fork")
        for shard in _shards(files, workers):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_serve, args=(child, shard, priced), daemon=True)
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)
        for conn in self._conns:
            count, failed = conn.recv()
            self.sessions += count
            self.failed.extend(failed)
        self.failed.sort(key=lambda f: f.file)

    def evaluate(self, profiles: Sequence[Profile]) -> list[list[SessionMetrics]]:
        """Per profile, every session's metrics (sessions in a stable order)."""
        if self._local is not None:
            return _run(self._local, profiles)
        for conn in self._conns:
            conn.send(list(profiles))
        per_profile: list[list[SessionMetrics]] = [[] for _ in profiles]
        for conn in self._conns:
            for i, rows in enumerate(conn.recv()):
                per_profile[i].extend(rows)
        for rows in per_profile:
            rows.sort(key=lambda m: m.source)
        return per_profile

    def close(self) -> None:
        for conn in self._conns:
            with contextlib.suppress(OSError):
                conn.send(None)
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
        self._conns, self._procs = [], []

    def __enter__(self) -> CorpusPool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


__all__ = ["TRANSCRIPT_SUFFIXES", "CorpusPool", "Failure", "corpus_files", "load"]
