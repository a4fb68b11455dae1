"""Wall time per phase of one command (``synthdocqa generate --timings``): where the fixed cost of a small
run goes (imports, the Prefect API, workers, documents, tables, report).

Phases are marked in order by the code that enters them; each lasts until the next mark. The first phase
starts when the process started (``/proc/self/stat``), so the interpreter start and the imports before the
command ran are counted too.
"""

from __future__ import annotations

import os
import sys
import threading
import time


def process_start() -> float | None:
    """The process's start as a ``time.time()`` value (Linux; None elsewhere)."""
    try:
        fields = open("/proc/self/stat").read().rsplit(")", 1)[1].split()  # noqa: SIM115
        start_ticks = int(fields[19])
        btime = next(int(line.split()[1]) for line in open("/proc/stat") if line.startswith("btime"))  # noqa: SIM115
        return btime + start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


class Timings:
    """A process-wide, thread-safe list of (phase, start) marks; off unless enabled."""

    def __init__(self) -> None:
        self.enabled = False
        self._marks: list[tuple[str, float]] = []
        self._lock = threading.Lock()

    def enable(self, first_phase: str = "interpreter start and imports") -> None:
        self.enabled = True
        start = process_start()
        now = time.time()
        self._marks = [(first_phase, start if start is not None and start <= now else now)]

    def mark(self, phase: str) -> None:
        if self.enabled:
            with self._lock:
                self._marks.append((phase, time.time()))

    def phases(self) -> list[tuple[str, float]]:
        """(phase, seconds) in order, the last one up to now."""
        with self._lock:
            marks = [*self._marks, ("", time.time())]
        return [(name, t1 - t0) for (name, t0), (_, t1) in zip(marks, marks[1:], strict=False)]

    def print(self, file=None) -> None:  # noqa: ANN001
        rows = self.phases()
        total = sum(s for _, s in rows)
        out = file or sys.stderr
        print("timings (wall):", file=out)
        for name, s in rows:
            print(f"  {s:7.2f} s  {100 * s / total if total else 0:5.1f} %  {name}", file=out)
        print(f"  {total:7.2f} s  100.0 %  total", file=out, flush=True)


TIMINGS = Timings()
