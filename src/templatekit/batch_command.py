"""``templatekit batch``: one file per CSV row, in parallel, resumable.

A file already in the output folder is not rendered again, so a batch that stopped (a
crash, Ctrl-C, a full disk) goes on where it stopped when run again; files are written
beside their place and renamed, so a file that exists is whole. Rows that fail are
listed at the end, and the command exits 1. Warnings (text cut to fit, a column naming a
field the layer does not have) are counted, listed and kept in ``WARNINGS_FILE`` beside
the files, row by row across runs; with ``strict`` they make the command exit 1 too.
"""

from __future__ import annotations

import contextlib
import csv
import difflib
import re
import signal
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import BrokenExecutor
from pathlib import Path

from templatekit.batch import CsvRow, csv_rows, render_many
from templatekit.errors import ModificationError, StorageError
from templatekit.folders import folder_problem
from templatekit.loading import load_template
from templatekit.model.layers import walk_layers
from templatekit.model.template import Template
from templatekit.outputs.result import whole_file

EXTENSIONS = {"png": "png", "jpeg": "jpg", "webp": "webp", "pdf": "pdf"}
_UNSAFE = re.compile(r"[^\w.\-]+")
#: ``{column}`` in a --name pattern, or ``{{`` and ``}}`` for the braces themselves.
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
SHOWN_LINES = 20  # of failures and of warnings, each; the rest counted
#: The warnings of every row rendered, beside the files: row, file, warning.
WARNINGS_FILE = "batch-warnings.csv"
#: Bytes of a file name before its extension: file systems take 255 in all, and the
#: file is written first as ``.name.partial``.
MAX_NAME_BYTES = 200


def file_name(pattern: str, row: CsvRow, extension: str) -> str:
    """The pattern with ``{row}`` and ``{column}`` filled in, made safe as one file name.
    A placeholder is a column's name as it is (``{price.text}``), never a format
    expression: nothing of the row but its cells can be written into a name."""
    values = {**row.cells, "row": str(row.number)}

    def filled(match: re.Match[str]) -> str:
        token, column = match.group(0), match.group(1)
        if column is None:  # {{ or }}
            return token[0]
        if column not in values:
            columns = ", ".join(sorted(row.cells))
            raise ModificationError(f"--name {pattern!r}: {column!r} is not a column (columns: {columns})")
        return str(values[column])

    name = _PLACEHOLDER.sub(filled, pattern)
    safe = _UNSAFE.sub("_", name)
    cut = safe.encode()[:MAX_NAME_BYTES].decode(errors="ignore").strip("._")  # whole characters
    return f"{cut or f'row-{row.number}'}.{extension}"


def run_batch(
    template_path: Path,
    csv_path: Path,
    output: Path,
    pattern: str,
    format: str,
    workers: int | None,
    progress: Callable[[int, int], None],
    strict: bool = False,
) -> int:
    """The batch, its summary and lists printed; the exit status (130 when stopped by
    Ctrl-C, 143 by SIGTERM, after the files written and their warnings are kept)."""
    template = load_template(template_path)
    rows, unmatched = csv_rows(template, csv_path)
    _check_pattern(pattern)
    _check_columns(template, unmatched, pattern, strict)
    unmade = folder_problem(output)
    if unmade is not None:
        raise StorageError(f"-o {output}: {unmade}")
    earlier = _earlier_warnings(output / WARNINGS_FILE)
    names = [file_name(pattern, row, EXTENSIONS[format]) for row in rows]
    seen: dict[str, int] = {}
    for row, name in zip(rows, names, strict=True):
        if name in seen:
            raise ModificationError(f"--name {pattern!r}: rows {seen[name]} and {row.number} both make {name}")
        seen[name] = row.number
    todo = [(row, name) for row, name in zip(rows, names, strict=True) if not (output / name).is_file()]
    skipped = len(rows) - len(todo)
    if skipped:
        print(f"{skipped} of {len(rows)} files exist already; rendering the other {len(todo)}", file=sys.stderr)
    failures = [(row.number, row.error) for row, _ in todo if row.error is not None]
    renderable = [(row, name) for row, name in todo if row.error is None]
    warnings: list[tuple[int, str, str]] = []
    written: set[str] = set()
    problem: str | None = None
    items = render_many(
        template,
        [row.modifications for row, _ in renderable],
        format=format,
        workers=workers,
        on_progress=lambda done, total: progress(done, total or len(renderable)),
    )
    with _stopped_by_signals() as stopped:
        try:
            for item in items:
                row, name = renderable[item.index]
                if item.result is None:
                    failures.append((row.number, str(item.error)))
                    continue
                with stopped.held():  # a file in place is counted, with its warnings
                    try:
                        with whole_file(output / name) as partial:
                            partial.write_bytes(item.result.data)
                    except OSError as exc:  # the next files would fail alike (a full disk, no right to write)
                        problem = f"{output / name}: cannot write ({exc.strerror or exc})"
                        break
                    written.add(name)
                    warnings.extend((row.number, name, warning) for warning in item.result.warnings)
        except BrokenExecutor:  # a worker was killed (for its memory?): the pool cannot go on
            problem = "a worker process ended abruptly (killed? out of memory?); run again for the rows left"
    items.close()  # the pool's workers end, the rows not begun are dropped
    # kept whatever stopped the batch: a second run skips the files written, and their warnings with them
    kept = _keep_warnings(output / WARNINGS_FILE, earlier, written, warnings)
    problem = problem or kept
    _summarise(output, len(written), skipped, sorted(failures), warnings, stopped.by)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
    if stopped.by:
        return 128 + stopped.by
    return 1 if problem or failures or (strict and warnings) else 0


def _summarise(
    output: Path,
    written: int,
    skipped: int,
    failures: list[tuple[int, str]],
    warnings: list[tuple[int, str, str]],
    stopped_by: int | None,
) -> None:
    warned = len({number for number, _, _ in warnings})
    print(
        ("stopped: " if stopped_by else "")
        + f"{output}: {written} written, {skipped} there already, {len(failures)} failed, "
        + f"{warned} with warnings"
        + (f" (listed in {output / WARNINGS_FILE})" if warned else "")
    )
    _list("failed", [f"row {number}: {error}" for number, error in failures])
    _list("warnings", [f"row {number} ({name}): {warning}" for number, name, warning in warnings])


class _Stop:
    """The signal that stopped the work, if one did; ``held`` puts a stop off to the end
    of a step that must not be cut in two."""

    def __init__(self) -> None:
        self.by: int | None = None
        self._holding = False
        self._held = False

    def signalled(self, signum: int, _frame: object) -> None:
        self.by = self.by or signum
        if self._holding:
            self._held = True
            return
        raise KeyboardInterrupt

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """A stop signalled in the block ends the work when the block is over: a file
        renamed into place and then left out of the count, its warnings lost, is what a
        stop between the two steps did."""
        self._holding = True
        try:
            yield
        finally:
            self._holding = False
        if self._held:
            raise KeyboardInterrupt


@contextlib.contextmanager
def _stopped_by_signals() -> Iterator[_Stop]:
    """Ctrl-C or SIGTERM end the block, which then ends as if it was done: what was
    written is kept and said."""
    stop = _Stop()
    previous = {signum: signal.signal(signum, stop.signalled) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    except KeyboardInterrupt:
        stop.by = stop.by or signal.SIGINT
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _check_columns(template: Template, unmatched: list[str], pattern: str, strict: bool) -> None:
    """A note for each column that names no layer and no ``--name`` placeholder, which
    nothing uses (a misspelt layer?); with ``strict``, a ``ModificationError`` before
    anything is rendered."""
    placeholders = {match.group(1) for match in _PLACEHOLDER.finditer(pattern)}
    layers = [layer.name for layer in walk_layers(template.layers)]
    used = placeholders - {"row"}  # {row} is the row's number, never a column named row
    lines = [_unused(template, column, layers) for column in unmatched if column not in used]
    if strict and lines:
        raise ModificationError("; ".join(lines))
    for line in lines:
        print(f"note: {line}", file=sys.stderr)


def _unused(template: Template, column: str, layers: list[str]) -> str:
    """Why ``column`` sets nothing."""
    if column == "row":
        return "column 'row' is hidden by the {row} placeholder (the row's number): it is not used; rename it"
    named = template.layer(column)
    if named is not None:  # a frame, whose layers hold the values
        return f"column {column!r} names a {named.kind} layer, which has no main field: name one ({column}.FIELD)"
    return f"column {column!r} names no layer and is not in --name: it is not used{_guess(column, layers)}"


def _guess(column: str, layers: list[str]) -> str:
    """ " (did you mean 'title'?)" for a column close to a layer's name (or ``layer.field``)."""
    layer, dot, field = column.rpartition(".") if "." in column else (column, "", "")
    close = difflib.get_close_matches(layer, layers, n=1)
    return f" (did you mean {close[0] + dot + field!r}?)" if close else ""


def _list(title: str, lines: list[str]) -> None:
    if not lines:
        return
    print(f"{title}:", file=sys.stderr)
    for line in lines[:SHOWN_LINES]:
        print(f"  {line}", file=sys.stderr)
    if len(lines) > SHOWN_LINES:
        print(f"  … and {len(lines) - SHOWN_LINES} more", file=sys.stderr)


def _earlier_warnings(path: Path) -> list[tuple[int, str, str]]:
    """What earlier runs kept in the warnings file; read before anything is rendered, so
    that a file that cannot be read stops the batch before it starts, not after."""
    if not path.exists():
        return []
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            return [(int(entry["row"]), entry["file"], entry["warning"]) for entry in csv.DictReader(handle)]
    except (OSError, UnicodeDecodeError, csv.Error, KeyError, TypeError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else f"not a row,file,warning CSV file: {exc}"
        raise StorageError(
            f"{path}: the warnings of earlier runs cannot be read ({reason}); move it away to begin a new one"
        ) from None


def _keep_warnings(
    path: Path, earlier: list[tuple[int, str, str]], rendered: set[str], warnings: list[tuple[int, str, str]]
) -> str | None:
    """The warnings file written with the files written this run in place of what earlier
    runs said of them (a resumed batch keeps the warnings of the rows it did not render
    again); what went wrong writing it, if anything did."""
    entries = sorted([entry for entry in earlier if entry[1] not in rendered] + warnings, key=lambda entry: entry[0])
    if not entries and not path.exists():
        return None
    try:
        with whole_file(path) as partial, partial.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["row", "file", "warning"])
            writer.writerows(entries)
    except OSError as exc:
        return f"{path}: cannot write ({exc.strerror or exc})"
    return None


def _check_pattern(pattern: str) -> None:
    """ModificationError for a brace that opens or closes no placeholder."""
    stray = next((char for char in _PLACEHOLDER.sub("", pattern) if char in "{}"), None)
    if stray is not None:
        raise ModificationError(
            f"--name {pattern!r}: a {stray} with no placeholder; write {stray * 2} for the brace itself"
        )
