"""A shard's progress on a terminal, and the one line every shard leaves in its log.

Snakemake sends a job's stderr to its log file, where a line rewritten with carriage returns
would pile up as hundreds of fragments; so the live line is drawn only when the stream is a
terminal. The closing line is written in every case: it is how a log records a shard's speed."""

from __future__ import annotations

import math
import time
from typing import Callable, Sequence, TextIO

# Redraws closer together than this are skipped: faster is unreadable, and a short replication
# would otherwise spend more time writing to the terminal than simulating.
MIN_REDRAW_S = 0.25


def _duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s`` or ``2 h 07 min``: precise enough for a time left."""
    if not math.isfinite(seconds):
        return "?"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def status(done: int, total: int, steps: int, elapsed: float) -> str:
    """``37/100 replications, 12.3 rep/s, 18,450 steps/s, 5 s left`` after ``elapsed`` > 0
    seconds; the time left assumes the remaining replications run at the rate so far."""
    reps_per_s = done / elapsed
    left = (total - done) / reps_per_s if reps_per_s > 0 else math.inf
    return (
        f"{done:,}/{total:,} replications, {reps_per_s:,.1f} rep/s, "
        f"{steps / elapsed:,.0f} steps/s, {_duration(left)} left"
    )


def curves(settings: Sequence[str], algorithms: Sequence[str]) -> str:
    """What a shard runs, for its label: ``thetaL/d-ucb``, ``thetaL (4 algorithms)`` or
    ``3 settings (4 algorithms)``."""
    where = settings[0] if len(settings) == 1 else f"{len(settings)} settings"
    if len(settings) == 1 and len(algorithms) == 1:
        return f"{where}/{algorithms[0]}"
    return f"{where} ({len(algorithms)} algorithm{'s' if len(algorithms) > 1 else ''})"


def summary(label: str, replications: int, steps: int, wall_time_s: float) -> str:
    """The closing line of a shard, e.g. ``shard vernade2017/fig2/thetaL/d-ucb rep0-99: 100
    replications, 1,000,000 agent-steps in 12.3 s (81,301 steps/s)``."""
    return (
        f"{label}: {replications:,} replications, {steps:,} agent-steps in "
        f"{wall_time_s:.1f} s ({steps / wall_time_s:,.0f} steps/s)"
    )


class Progress:
    """The progress callback of ``simulate.run_shard``: ``progress(done, total, steps)`` after
    each replication, with ``steps`` the agent-steps done so far.

    It keeps the latest counts (``done``, ``steps``) and, when ``stream`` is a terminal, redraws
    ``<label>: <status>`` in place, at most every ``MIN_REDRAW_S`` seconds and always at the
    last replication."""

    def __init__(
        self, label: str, stream: TextIO, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.label = label
        self.done = 0
        self.steps = 0
        self._stream = stream
        self._clock = clock
        self._live = stream.isatty()
        self._start = clock()
        self._drawn_at = -math.inf
        self._width = 0

    def __call__(self, done: int, total: int, steps: int) -> None:
        self.done, self.steps = done, steps
        if not self._live:
            return
        now = self._clock()
        if done < total and now - self._drawn_at < MIN_REDRAW_S:
            return
        self._drawn_at = now
        self._draw(f"{self.label}: {status(done, total, steps, now - self._start)}")

    def finish(self, line: str) -> None:
        """Write the closing ``line``, over the live line on a terminal."""
        if self._live:
            self._draw(line)
            self._stream.write("\n")
        else:
            self._stream.write(line + "\n")
        self._stream.flush()

    def _draw(self, text: str) -> None:
        # Padding to the previous width erases what a longer earlier line leaves behind.
        self._stream.write("\r" + text.ljust(self._width))
        self._stream.flush()
        self._width = len(text)
