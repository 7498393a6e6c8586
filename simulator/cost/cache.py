"""The prompt-cache model: per call, which input tokens are read from the cache, written to it, or neither.

What is cached is the longest prefix of an earlier request that is still within the cache lifetime, as
the provider computes it:

* Anthropic (``breakpoints``): a cache entry exists for the prefix ending at each ``cache_control``
  breakpoint a request carried (if at least the model's minimum cacheable tokens long). A request reads
  the longest live entry that it finds at one of its own breakpoints or up to 20 blocks before one
  (Anthropic's prompt-caching page: "checks for cache hits at ... up to approximately 20 blocks before"),
  writes everything from there up to its last eligible breakpoint, and pays plain input for the rest.
  Reading an entry refreshes its lifetime; writing creates or refreshes it.
* OpenAI (``automatic``): every request's prefix is cached; a request reads its longest common prefix
  with a live earlier request, from 1,024 tokens in 128-token steps (OpenAI's prompt-caching guide).
  Writes are free except on models that bill them (GPT-5.6 on), where what is newly cached is billed.
* Gemini (``implicit``): like OpenAI, without the 128-token steps, from the model's minimum; no write
  charge.

Segments are messages, so a changed message (a dropped turn, a trimmed tool result, an inserted
breadcrumb, a removed image) ends the cached prefix at its start: the cache never reads into a message
whose content differs. Blocks inside one message are not modelled, so the 20-block lookback counts
messages, and OpenAI's token-level match inside a changed message is not credited.

Pure: requests carry their own time in seconds; no clock is read.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, islice
from operator import attrgetter
from typing import Literal, overload

import msgspec

from simulator.cost.pricing import CacheTtl, Pricing
from simulator.cost.rope import Piece, SegmentRope, pieces_of

Role = Literal["system", "user", "assistant", "tool"]

ANTHROPIC_LOOKBACK_BLOCKS = 20
OPENAI_FIRST_STEP = 1024
OPENAI_STEP = 128
TOKENS_PER_MTOK = 1_000_000
_FEW = 4
"""Up to this many segments, appending one by one is cheaper than a C-level pass that must be set up."""


class Segment(msgspec.Struct, frozen=True, gc=False):
    """One message as sent: a fingerprint of its content as sent, and its size in tokens.

    A frozen msgspec struct rather than a dataclass: a priced replay builds one per message and compares
    them in bulk, and the struct is several times cheaper to build and compares in C. Untracked by the
    cyclic collector: it holds only strings, numbers and a flag.
    """

    fingerprint: str
    tokens: int
    role: Role = "user"
    cacheable_end: bool = True
    """Whether the message's last block can carry ``cache_control`` (text or a tool result)."""


class SegmentHistory:
    """An append-only list of segments with running token sums, shared by the requests that send its prefixes.

    A session's requests mostly send what the one before sent plus its growth; each holding its own
    tuple would hold the square of the session's length.
    """

    __slots__ = ("_cum", "_segments")

    def __init__(self, segments: Iterable[Segment] = ()) -> None:
        self._segments: list[Segment] = []
        self._cum: list[int] = [0]
        self.extend(segments)

    def __len__(self) -> int:
        return len(self._segments)

    def extend(self, segments: Iterable[Segment]) -> None:
        """Append ``segments``; what is there never changes, so every prefix handed out stays valid."""
        # A list (a slice the caller made) is read as it is: copied once, into the history.
        added = segments if type(segments) is list else list(segments)
        self._segments += added
        cum = self._cum
        if len(added) <= _FEW:
            # Most requests grow by a message or two: a plain loop beats building an accumulator.
            total = cum[-1]
            for segment in added:
                total += segment.tokens
                cum.append(total)
            return
        cum += accumulate(map(_TOKENS, added), initial=cum[-1])
        del cum[len(cum) - len(added) - 1]  # ``initial`` repeats the last sum, already in place

    def starts(self, segments: Sequence[Segment]) -> bool:
        """Whether ``segments`` begins with the whole history."""
        n = len(self._segments)
        return len(segments) >= n and common_length(self._segments, _listed(segments), n) == n

    def prefix(self, length: int) -> SharedPrefix:
        return SharedPrefix(self, length)


class SharedPrefix(Sequence[Segment]):
    """The first ``length`` segments of a :class:`SegmentHistory`, without a copy.

    Two prefixes of one history agree up to the shorter one's end by construction, so the cache model
    resumes from where the previous request ended without comparing what they share.
    """

    __slots__ = ("history", "length")

    def __init__(self, history: SegmentHistory, length: int) -> None:
        if not 0 <= length <= len(history):
            raise ValueError(f"prefix length {length} outside a history of {len(history)} segments")
        self.history = history
        self.length = length

    @property
    def tokens(self) -> int:
        return self.history._cum[self.length]

    def __len__(self) -> int:
        return self.length

    @overload
    def __getitem__(self, index: int) -> Segment: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Segment, ...]: ...
    def __getitem__(self, index: int | slice) -> Segment | tuple[Segment, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self.length)
            if step < 0:
                # Normalised, a stop of -1 means "before the start"; read on the history, "its last".
                return tuple(self.history._segments[: self.length][index])
            return tuple(self.history._segments[start:stop:step])
        at = index + self.length if index < 0 else index
        if not 0 <= at < self.length:
            raise IndexError("segment index out of range")
        return self.history._segments[at]

    def __iter__(self) -> Iterator[Segment]:
        return islice(self.history._segments, self.length)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SharedPrefix):
            if other.history is self.history:
                return other.length == self.length
            return other.length == self.length and tuple(self) == tuple(other)
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"SharedPrefix({tuple(self)!r})"


def extends(previous: SharedPrefix | None, segments: Sequence[Segment]) -> SharedPrefix:
    """``segments`` as a prefix of ``previous``'s history when they extend it to its end, else of a new."""
    if (
        previous is not None
        and previous.length == len(previous.history)
        and previous.history.starts(segments)
    ):
        previous.history.extend(segments[previous.length :])
        return previous.history.prefix(len(segments))
    return SegmentHistory(segments).prefix(len(segments))


def _listed(segments: Sequence[Segment]) -> list[Segment]:
    """A list holding ``segments`` at the same positions (a shared prefix's whole history, not a copy)."""
    if isinstance(segments, SharedPrefix):
        return segments.history._segments
    return segments if isinstance(segments, list) else list(segments)


def listed_segments(segments: Sequence[Segment]) -> tuple[Sequence[Segment], int]:
    """A sequence holding ``segments`` at the same positions (a shared prefix's whole history, no copy), and
    how many of them are ``segments``: indexing a shared prefix itself costs a Python call per item."""
    if isinstance(segments, SharedPrefix):
        return segments.history._segments, segments.length
    return segments, len(segments)


def common_length(a: list[Segment], b: list[Segment], n: int) -> int:
    """Length of the longest common prefix of ``a[:n]`` and ``b[:n]``, in time of that length, not ``n``."""
    return _agreeing(a, 0, b, 0, 0, n)


def _agreeing(a: Sequence[object], i: int, b: Sequence[object], j: int, done: int, n: int) -> int:
    """How far ``a[i:]`` and ``b[j:]`` agree, up to ``n``, knowing that their first ``done`` do.

    Compares slices of doubling length (C-level, identical items compare by identity), then bisects the
    one that differs: a request cut at its start costs a few comparisons, not a copy of it.
    """
    step = 8
    while done < n:
        upto = min(n, done + step)
        if a[i + done : i + upto] != b[j + done : j + upto]:
            lo, hi = done, upto - 1  # the first ``lo`` agree; they differ before ``upto``
            while lo < hi:
                mid = (lo + hi + 1) // 2
                # Only what is not known to agree is compared: the bisection copies the step once, not
                # once per halving (a pruned call parts from the one before half a session in).
                if a[i + lo : i + mid] == b[j + lo : j + mid]:
                    lo = mid
                else:
                    hi = mid - 1
            return lo
        done = upto
        step *= 2
    return n


def _same_history(a: Sequence[Segment], b: Sequence[Segment]) -> bool:
    return isinstance(a, SharedPrefix) and isinstance(b, SharedPrefix) and a.history is b.history


@dataclass(frozen=True, slots=True)
class Request:
    """One model call: what was sent, in order, when (seconds from any origin), and its output size."""

    segments: Sequence[Segment]
    """A tuple, or a :class:`SharedPrefix` when consecutive requests extend one history."""
    at_seconds: float
    output_tokens: int
    breakpoints: tuple[int, ...] = ()
    """Indices of segments whose end carries a ``cache_control`` breakpoint (Anthropic only)."""

    @property
    def input_tokens(self) -> int:
        if isinstance(self.segments, SharedPrefix):
            return self.segments.tokens
        return sum(s.tokens for s in self.segments)


class CallCost(msgspec.Struct, frozen=True, gc=False):
    """One call's tokens by how they are billed, and the price. ``input_tokens`` is uncached input.

    A frozen msgspec struct, as :class:`Segment`: one is built per priced call.
    """

    input_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    output_tokens: int
    usd: float

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens


@dataclass(frozen=True, slots=True)
class SessionCost:
    pricing: Pricing
    ttl: CacheTtl
    calls: tuple[CallCost, ...]

    @property
    def usd(self) -> float:
        return sum(c.usd for c in self.calls)

    @property
    def input_tokens(self) -> int:
        return sum(c.input_tokens for c in self.calls)

    @property
    def cache_write_tokens(self) -> int:
        return sum(c.cache_write_tokens for c in self.calls)

    @property
    def cache_read_tokens(self) -> int:
        return sum(c.cache_read_tokens for c in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(c.output_tokens for c in self.calls)


def call_usd(pricing: Pricing, ttl: CacheTtl, *, uncached: int, write: int, read: int, output: int) -> float:
    """The price of one call's token counts."""
    input_price = pricing.input_per_mtok
    total = (
        uncached * input_price
        + write * input_price * pricing.write_multiplier(ttl)
        + read * input_price * pricing.cache_read_multiplier
        + output * pricing.output_per_mtok
    )
    return total / TOKENS_PER_MTOK


def openai_cached(common_prefix_tokens: int, minimum: int = OPENAI_FIRST_STEP) -> int:
    """Tokens OpenAI reports as cached for a shared prefix: 0 below the minimum, then 128-token steps."""
    if common_prefix_tokens < minimum:
        return 0
    return minimum + (common_prefix_tokens - minimum) // OPENAI_STEP * OPENAI_STEP


_FINGERPRINT = attrgetter("fingerprint")
_TOKENS = attrgetter("tokens")


class _Trie:
    """Interns prefixes: the node id of a prefix is the same in every request that shares it (the
    breakpoint model keys its cache entries by node).

    A radix trie: a walk that leaves every known prefix adds its whole remainder as one *run* of
    consecutive node ids (a list of fingerprints, no entry per node), and branching off a run later adds
    one edge. A trimmed session's requests each start a new chain after the dropped turns, so numbering
    node by node cost a dict entry per message sent; now it costs one per request.

    Consecutive requests mostly extend the one before, so the walk reuses the previous request's node ids
    and running token sums for the part they share and only walks the rest: a session costs its growth,
    not the square of its length. Two prefixes of one :class:`SharedPrefix` history share the shorter
    one without a comparison; two :class:`~simulator.cost.rope.SegmentRope` requests skip what they read
    from the same lists alike; other requests find the shared part with C-level list comparisons.
    """

    __slots__ = ("_edges", "_lines", "_next", "_run_fps", "_runs", "growth_path", "kept")

    def __init__(self, *, growth_path: bool = True) -> None:
        self.growth_path = growth_path
        """Whether :meth:`walk` takes :meth:`_grown` for a request that grows the one before (the general
        walk, without it, is the reference the tests hold it to)."""
        self._edges: dict[tuple[int, str], int] = {}
        """Children that are not the next node of their parent's run (a run's first node), as the run's
        index."""
        self._runs: list[int] = []
        """The first node id of each run, ascending (ids are handed out in order)."""
        self._run_fps: list[list[str]] = []
        """Each run's fingerprints: node ``runs[r] + k`` is the prefix ending with ``run_fps[r][k]``."""
        self._next = 0
        self._lines: list[_Line] = []
        """The last few walks, newest first: a walk resumes the one it shares most with."""
        self.kept = 0
        """How many leading nodes of the last walk's chain were the previous chain's."""

    def _resumable(
        self, segments: Sequence[Segment], listed: Sequence[Segment], last: _Line, kept: int
    ) -> tuple[_Line, int]:
        """The kept walk whose request shares the longest prefix with ``segments``, and that length, given
        that the call before's shares ``kept``.

        A session pruned now and then alternates between its history as stored and as pruned: resuming
        the walk of the same kind (the history it extends, the pruned call before) walks what is new,
        where resuming the call just before walked back through every branch since it parted. An older
        walk is compared only when it agrees at the first message the call before does not (a trimmed
        session's older calls seldom do: one comparison, not a walk's).
        """
        best, shared = last, kept
        history = segments.history if isinstance(segments, SharedPrefix) else None
        n = len(segments)
        for k in range(1, len(self._lines)):
            line = self._lines[k]
            if history is not None and line.history is history:
                length = min(n, len(line.segments))
            elif len(line.segments) <= shared or n <= shared or line.listed[shared] != listed[shared]:
                continue
            else:
                length = _shared_length(segments, line.segments)
            if length > shared:
                best, shared = line, length
        return best, shared

    def walk(self, segments: Sequence[Segment]) -> tuple[list[int], list[int]]:
        """Node ids and running token sums of every prefix of ``segments``.

        The lists are the trie's own and change at later walks: read them before walking again.
        """
        lines = self._lines
        if self.growth_path and lines:
            grown = self._grown(segments, lines[0])
            if grown is not None:
                return grown
        last = lines[0] if lines else None
        best: _Line | None = None
        shared = kept = 0
        if last is not None and _same_history(segments, last.segments):
            # The call before's history (most calls): resumed without looking further.
            best, shared = last, min(len(segments), len(last.segments))
            kept = shared
        elif last is not None:
            kept = _shared_length(segments, last.segments)
            listed = segments.history._segments if isinstance(segments, SharedPrefix) else segments
            best, shared = self._resumable(segments, listed, last, kept)
        self.kept = kept
        if best is None:
            line = _Line(segments, [], [])
        elif _same_history(segments, best.segments) or (
            (best is last or isinstance(best.segments, SegmentRope)) and 2 * shared >= len(best.chain)
        ):
            # Cut back to the shared prefix in place: copying it would cost the session's square again. A
            # pruned call's walk is resumed by the next pruned call, which shares more with it than with
            # any older one: its line is taken over too.
            line = best
            del line.chain[shared:], line.cum[shared:]
        else:
            # Parted early from another history: that walk stays to be resumed (a pruned call parts from
            # the history as stored near its start, and the call after it grows that history again);
            # the copy is shorter than what it leaves.
            line = _Line(segments, best.chain[:shared], best.cum[:shared])
        chain, cum = line.chain, line.cum
        if shared < len(segments):
            if isinstance(segments, SegmentRope):
                rest = segments.listed(shared, len(segments))
            else:
                rest = _listed(segments)[shared : len(segments)]
            fps = list(map(_FINGERPRINT, rest))
            self._number(chain, fps)
            if isinstance(segments, SharedPrefix):
                cum += segments.history._cum[shared + 1 : len(segments) + 1]  # its running sums, kept
            else:
                cum += accumulate(map(_TOKENS, rest), initial=cum[-1] if cum else 0)
                del cum[shared]  # ``initial`` is the running sum before the rest, already in place
        line.hold(segments)
        if line is not last:
            if line in lines:
                lines.remove(line)
            lines.insert(0, line)
            del lines[_RESUMABLE:]
        return chain, cum

    def _grown(self, segments: Sequence[Segment], last: _Line) -> tuple[list[int], list[int]] | None:
        """:meth:`walk` for a request that is its history's prefix as the walk before's is, and no shorter
        (most calls of a long session: the request before plus its growth), else ``None``.

        The general walk resumes that line too, cut at its whole length: here it is only extended, without
        the comparisons and look-ups that find which walk to resume.
        """
        if type(segments) is not SharedPrefix or segments.history is not last.history:
            return None
        chain, cum = last.chain, last.cum
        shared, n = len(chain), segments.length
        if n < shared:
            return None
        self.kept = shared
        if shared < n:
            history = segments.history
            fps = list(map(_FINGERPRINT, history._segments[shared:n]))
            node = chain[-1] if chain else -1
            if node >= 0 and node == self._next - 1:
                # ``node`` ends the newest run and has no child yet (any child would have a later id): the
                # growth continues that run, as :meth:`_number` finds after its look-ups.
                self._run_fps[-1] += fps
                self._next += len(fps)
                chain += range(node + 1, self._next)
            else:
                self._number(chain, fps)
            cum += history._cum[shared + 1 : n + 1]
        last.segments = segments
        return chain, cum

    def _number(self, chain: list[int], fps: list[str]) -> None:
        """Append to ``chain`` the node ids of the prefixes that continue it with ``fps``."""
        runs, run_fps, edges = self._runs, self._run_fps, self._edges
        node = chain[-1] if chain else -1
        run, offset = -1, 0
        if node >= 0:
            # The shared prefix may end inside a run: its next node is the one implicit child there.
            run = bisect_right(runs, node) - 1
            offset = node - runs[run] + 1
            if offset >= len(run_fps[run]) or run_fps[run][offset] != fps[0]:
                run = -1
        at, total = 0, len(fps)
        while at < total:
            if run < 0:
                # A run's walk stopped where the run and the request part: only an edge can go on.
                found = edges.get((node, fps[at]))
                if found is None:
                    # Past every known prefix: the remainder is one new run.
                    base = self._next
                    remainder = fps[at:] if at else fps
                    self._next += len(remainder)
                    if node == base - 1 and node >= 0:
                        # ``node`` ends the newest run (a request growing the one before): the remainder
                        # continues that run, whose ids it continues anyway, instead of starting one.
                        run_fps[-1] += remainder
                        chain += range(base, base + len(remainder))
                        return
                    edges[(node, remainder[0])] = len(runs)
                    runs.append(base)
                    run_fps.append(remainder)
                    chain += range(base, base + len(remainder))
                    return
                run, offset = found, 0
            matched = _common_prefix(run_fps[run], offset, fps, at)
            first = runs[run] + offset
            chain += range(first, first + matched)
            at += matched
            node = first + matched - 1
            run = -1


_RESUMABLE = 3
"""Walks kept to resume from: the call before, the history it parted from, the pruned call before."""


class _Line:
    """A walk the trie can resume: the request, and the node ids and running sums of its prefixes."""

    __slots__ = ("chain", "cum", "history", "listed", "segments")

    def __init__(self, segments: Sequence[Segment], chain: list[int], cum: list[int]) -> None:
        self.chain = chain
        self.cum = cum
        self.hold(segments)

    def hold(self, segments: Sequence[Segment]) -> None:
        """Stand for ``segments``' walk (with the list behind them and their history, read at every walk)."""
        self.segments = segments
        # The list behind a shared prefix (indexing the prefix is a Python call), else the segments.
        self.listed: Sequence[Segment] = (
            segments.history._segments if isinstance(segments, SharedPrefix) else segments
        )
        self.history = segments.history if isinstance(segments, SharedPrefix) else None


def _shared_length(a: Sequence[Segment], b: Sequence[Segment]) -> int:
    n = min(len(a), len(b))
    if _same_history(a, b):
        return n
    if isinstance(a, SegmentRope) or isinstance(b, SegmentRope):
        return _common_pieces(_pieces(a, n), _pieces(b, n), n)
    return common_length(_listed(a), _listed(b), n)


def _pieces(segments: Sequence[Segment], length: int) -> Sequence[Piece]:
    if isinstance(segments, SharedPrefix):
        return ((segments.history._segments, 0, length),)
    return pieces_of(segments, length)


def _common_pieces(a: Sequence[Piece], b: Sequence[Piece], n: int) -> int:
    """Length of the longest common prefix, up to ``n``, of two sequences told as pieces.

    Where both read the same list at the same place they agree without a comparison (a pruned call and
    the pruned call before read the stored history and the run as sent alike up to where the run grew);
    elsewhere the items are compared, and the first difference ends it.
    """
    done = i = j = 0
    at_a = a[0][1] if a else 0
    at_b = b[0][1] if b else 0
    while done < n and i < len(a) and j < len(b):
        items_a, _, stop_a = a[i]
        items_b, _, stop_b = b[j]
        step = min(stop_a - at_a, stop_b - at_b, n - done)
        if items_a is items_b and at_a == at_b:
            agree = step
        else:
            agree = _agreeing(items_a, at_a, items_b, at_b, 0, step)
        done += agree
        if agree < step:
            return done
        at_a += step
        at_b += step
        if at_a == stop_a:
            i += 1
            at_a = a[i][1] if i < len(a) else 0
        if at_b == stop_b:
            j += 1
            at_b = b[j][1] if j < len(b) else 0
    return done


def _common_prefix(a: list[str], i: int, b: list[str], j: int) -> int:
    """Length of the longest common prefix of ``a[i:]`` and ``b[j:]`` (``a[i] == b[j]``).

    Requests that part from a run within a few nodes (a pruned message every few) are answered element by
    element; longer agreements by :func:`_agreeing`.
    """
    n = min(len(a) - i, len(b) - j)
    for k in range(1, min(n, 4)):
        if a[i + k] != b[j + k]:
            return k
    return n if n <= 4 else _agreeing(a, i, b, j, 4, n)


def _price_breakpoints(
    requests: Sequence[Request], pricing: Pricing, ttl: CacheTtl, *, walk_every: bool = False
) -> tuple[CallCost, ...]:
    """Anthropic's breakpoint model; ``walk_every`` walks the requests without a breakpoint too (the
    reference the tests hold the skip to: the trie names a prefix alike whichever others it was shown)."""
    trie = _Trie()
    expires: dict[int, float] = {}
    lifetime = pricing.ttl_seconds(ttl)
    minimum = pricing.min_cacheable_tokens
    price = _Prices(pricing, ttl)
    sums = _PrefixTokens()
    out: list[CallCost] = []
    for request in requests:
        now = request.at_seconds
        segments = request.segments
        n = len(segments)
        points = [b for b in request.breakpoints if 0 <= b < n]
        if not points and not walk_every:
            # Nothing is read or written without a breakpoint, so its prefixes need no node ids: a runtime
            # that places none (ai-profile) priced a walk per call for its total alone. The trie still
            # names every prefix it is asked about alike, so the walks left out change no other call.
            output = request.output_tokens
            total = sums.of(segments, n)
            out.append(CallCost(total, 0, 0, output, price.usd(total, 0, 0, output)))
            continue
        chain, cum = trie.walk(segments)
        total = cum[-1] if cum else 0
        if len(points) > 1:
            points = sorted(set(points))
        read_at = -1
        for point in points:
            # Looking back stops at the read already found: a shorter one is never taken over it.
            read_at = max(
                read_at,
                _latest_live(chain, max(read_at, point - ANTHROPIC_LOOKBACK_BLOCKS) + 1, point, expires, now),
            )
        read = cum[read_at] if read_at >= 0 else 0
        eligible = [b for b in points if cum[b] >= minimum]
        # ``points`` ascend and running sums never decrease: the last eligible point writes furthest.
        written_to = cum[eligible[-1]] if eligible else 0
        write = max(0, written_to - read)
        for b in eligible:
            expires[chain[b]] = now + lifetime
        if read_at >= 0:
            expires[chain[read_at]] = now + lifetime
        uncached = total - read - write
        output = request.output_tokens
        out.append(CallCost(uncached, write, read, output, price.usd(uncached, write, read, output)))
    return tuple(out)


def _latest_live(chain: list[int], lo: int, hi: int, expires: Mapping[int, float], now: float) -> int:
    """The last position from ``lo`` to ``hi`` whose node's entry outlives ``now``, else -1.

    Beyond the newest few positions, the nodes ever cached in the window are found by one set
    intersection rather than a lookup per position (twenty per breakpoint); a chain's nodes are distinct,
    so each has one position.
    """
    # The newest positions first, one look-up each: a growing session reads the entry its call before
    # wrote a message or two back, where the intersection listed every entry in the window.
    top = max(lo, hi - _NEAR_LOOKUPS + 1)
    for j in range(hi, top - 1, -1):
        expiry = expires.get(chain[j])
        if expiry is not None and expiry > now:
            return j
    window = chain[lo:top]
    found = -1
    for node in expires.keys() & window:
        if expires[node] > now:
            found = max(found, window.index(node))
    return found + lo if found >= 0 else -1


_NEAR_LOOKUPS = 4
"""How many of the lookback's newest positions are looked up one by one before the rest is intersected."""


class _Prices:
    """:func:`call_usd` with the pricing's rates read once per session rather than once per call."""

    __slots__ = ("input", "output", "read", "write")

    def __init__(self, pricing: Pricing, ttl: CacheTtl) -> None:
        self.input = pricing.input_per_mtok
        self.write = pricing.write_multiplier(ttl)
        self.read = pricing.cache_read_multiplier
        self.output = pricing.output_per_mtok

    def usd(self, uncached: int, write: int, read: int, output: int) -> float:
        # The same products in the same order as ``call_usd``: floating point must round alike.
        input_price = self.input
        total = (
            uncached * input_price
            + write * input_price * self.write
            + read * input_price * self.read
            + output * self.output
        )
        return total / TOKENS_PER_MTOK


def _price_prefix(requests: Sequence[Request], pricing: Pricing, ttl: CacheTtl) -> tuple[CallCost, ...]:
    """Every request caches all its prefixes, so the longest cached prefix of a request is the longest it
    shares with a request still cached: those are few (the newest prefix of each history, a pruned call
    or a trim's new history still within the lifetime), so a request costs a comparison with each, not a
    walk (a pruned call and the call after it part from each other near their start, and a walk listed
    what they leave: a long session pruned at every pause cost the square of its length)."""
    lifetime = pricing.ttl_seconds(ttl)
    stepped = pricing.caching == "automatic"
    minimum = pricing.min_cacheable_tokens
    writes = pricing.write_multiplier(ttl) > 0
    price = _Prices(pricing, ttl)
    sums = _PrefixTokens()

    def cacheable(tokens: int) -> int:
        if stepped:
            return openai_cached(tokens, minimum)
        return tokens if tokens >= minimum else 0

    cached: list[tuple[Sequence[Segment], float]] = []
    """The requests whose prefixes are still cached (by those requests alone), and when they expire."""
    out: list[CallCost] = []
    for request in requests:
        now = request.at_seconds
        segments = request.segments
        # Times never decrease: what has expired stays so.
        cached = [entry for entry in cached if entry[1] > now]
        shared = max((_shared_fingerprints(segments, held) for held, _ in cached), default=0)
        total = sums.of(segments, len(segments))
        read = cacheable(sums.of(segments, shared)) if shared else 0
        write = max(0, cacheable(total) - read) if writes else 0
        # A cached request that this one holds whole is refreshed by it: only this one is kept.
        cached = [entry for entry in cached if not _holds(segments, entry[0])]
        cached.append((segments, now + lifetime))
        uncached = total - read - write
        output = request.output_tokens
        out.append(CallCost(uncached, write, read, output, price.usd(uncached, write, read, output)))
    return tuple(out)


def _shared_fingerprints(a: Sequence[Segment], b: Sequence[Segment]) -> int:
    """How many leading segments of ``a`` and ``b`` agree in fingerprint (what the cache keys on): the
    segments agree whole up to :func:`_shared_length`, and a segment equal only in fingerprint (a size
    or role told apart) is compared on from there."""
    n = min(len(a), len(b))
    done = _shared_length(a, b)
    while done < n and a[done].fingerprint == b[done].fingerprint:
        done += 1
    return done


def _holds(segments: Sequence[Segment], held: Sequence[Segment]) -> bool:
    """Whether ``held`` is known to be a prefix of ``segments`` without a comparison."""
    return held is segments or (_same_history(segments, held) and len(held) <= len(segments))


class _PrefixTokens:
    """Tokens of a request's first segments: a shared prefix's running sums, a rope's from running sums of
    the lists it is cut from (each summed once, as far as a piece has read it), else summed."""

    __slots__ = ("_sums",)

    def __init__(self) -> None:
        self._sums: dict[int, tuple[Sequence[Segment], list[int]]] = {}

    def of(self, segments: Sequence[Segment], length: int) -> int:
        if isinstance(segments, SharedPrefix):
            return segments.history._cum[length]
        if isinstance(segments, SegmentRope):
            total = 0
            for items, lo, hi in pieces_of(segments, length):
                if hi - lo <= _FEW:
                    # A changed message or two, in a list of its own per call: summed, not kept.
                    total += sum(map(_TOKENS, items[lo:hi]))
                    continue
                cum = self._running(items, hi)
                total += cum[hi] - cum[lo]
            return total
        return sum(map(_TOKENS, islice(segments, length)))

    def _running(self, items: Sequence[Segment], upto: int) -> list[int]:
        """Running sums of ``items`` up to ``upto`` at least (a piece's items never change once read:
        what a sum was taken over stays)."""
        entry = self._sums.get(id(items))
        if entry is None or entry[0] is not items:
            # The entry holds the list, so its id is not reused while kept.
            entry = self._sums[id(items)] = (items, [0])
        cum = entry[1]
        have = len(cum) - 1
        if have < upto:
            cum += accumulate(map(_TOKENS, items[have:upto]), initial=cum[-1])
            del cum[have + 1]  # ``initial`` repeats the last sum, already in place
        return cum


def price_requests(requests: Sequence[Request], pricing: Pricing, ttl: CacheTtl = "5m") -> SessionCost:
    """Price a session's calls in order, carrying the provider's cache from call to call.

    Args:
        requests: The calls in the order they were made; ``at_seconds`` must not decrease.
        pricing: The model's prices and cache rules.
        ttl: ``"5m"`` or ``"1h"`` cache writes (1 hour only changes anything on Anthropic).

    Returns:
        Per-call costs and the session totals.
    """
    price: Callable[[Sequence[Request], Pricing, CacheTtl], tuple[CallCost, ...]]
    price = _price_breakpoints if pricing.caching == "breakpoints" else _price_prefix
    return SessionCost(pricing=pricing, ttl=ttl, calls=price(requests, pricing, ttl))


__all__ = [
    "CallCost",
    "Request",
    "Role",
    "Segment",
    "SegmentHistory",
    "SessionCost",
    "SharedPrefix",
    "call_usd",
    "extends",
    "listed_segments",
    "openai_cached",
    "price_requests",
]
