"""Progress of long work on stderr: tqdm's bar on a terminal; lines in a log.

A bar redraws itself with carriage returns, which a log file or a CI console keeps as one ever-growing line.
When stderr is not a terminal, ``progress_bar`` gives a ``LineProgress`` instead: the same calls, whole lines,
and only for work that lasts: nothing in the first ``LINE_AFTER`` seconds (a quick command's log holds its
result, not its progress), then a line per further ``LINE_EVERY`` of the work or ``LINE_SECONDS`` seconds, and
one at the end.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

LINE_AFTER = 5.0
"""No line before the work has lasted this long."""
LINE_EVERY = 0.1
"""Then a line at each further tenth of the work (at most about 11 lines)."""
LINE_SECONDS = 30.0
"""And at least one line every this many seconds while the work goes on."""


class LineProgress:
    """The part of tqdm's interface the commands use (``n``, ``update``, ``set_postfix_str``, ``close``), writing
    whole lines: ``desc: n/total unit (postfix)``."""

    def __init__(self, total: int, desc: str, unit: str, file: TextIO,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.desc, self.unit, self.file = total, desc, unit, file
        self.n = 0
        self._postfix = ""
        self._shown = -1  # the count of the last line; -1: no line yet
        self._clock = clock
        self._start = self._last = clock()
        self._closed = False

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:  # noqa: ARG002 - tqdm's signature
        self._postfix = text

    def update(self, k: int = 1) -> None:
        self.n += k
        now = self._clock()
        if now - self._start < LINE_AFTER:
            return
        step = max(1, int(self.total * LINE_EVERY))
        if self.n >= self.total or self.n - max(self._shown, 0) >= step or now - self._last >= LINE_SECONDS:
            self._line()

    def close(self) -> None:
        """The end: a last line when the work was shown at all (it lasted), none for quick work."""
        if not self._closed and self._shown >= 0 and self._shown != self.n:
            self._line()
        self._closed = True

    def _line(self) -> None:
        if self._shown == self.n:
            return
        self._shown, self._last = self.n, self._clock()
        extra = f" ({self._postfix})" if self._postfix else ""
        print(f"{self.desc}: {self.n}/{self.total} {self.unit}{extra}", file=self.file, flush=True)


def progress_bar(total: int, desc: str, unit: str, file: TextIO | None = None, **tqdm_kwargs: Any) -> Any:
    """A tqdm bar on ``file`` (stderr) when it is a terminal, else a ``LineProgress``."""
    stream = sys.stderr if file is None else file
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, unit=unit, file=stream, dynamic_ncols=True, **tqdm_kwargs)
    return LineProgress(total, desc, unit, stream)
