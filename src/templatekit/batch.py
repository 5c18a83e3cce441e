"""Many renders of one template: ``render_many`` on any ``concurrent.futures.Executor``.

The template is loaded once. The default process pool receives it once per worker, when
the worker starts, and its tasks carry only rows; any other executor that runs picklable
functions (a Dask or Ray cluster through their ``Executor`` adapters) gets it with each
task (it pickles to a few kilobytes), and each worker keeps the first copy it unpickles,
so the engine's caches, which know a template by identity, serve every row. Only the
encoded bytes come back, in the order of the rows, with a few tasks per worker in flight,
so memory stays flat however many rows there are.
"""

from __future__ import annotations

import csv
import os
import signal
import uuid
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from attrs import frozen

from templatekit import jsontext
from templatekit.apply import Modifications, holds_text_only
from templatekit.errors import ModificationError, TemplatekitError
from templatekit.loading import TemplateSource, load_template
from templatekit.model.schema import FIXED_FIELDS
from templatekit.model.template import Template
from templatekit.outputs.result import RenderResult
from templatekit.render import image_options, pdf_options, render_image, render_pdf

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

#: Rows sent to a worker at once: fewer tasks for the executor to pass around (a Dask
#: task costs about a millisecond), while the first results still come back soon.
ROWS_PER_TASK = 4
#: Tasks in flight per worker: one rendering, the next one queued behind it.
TASKS_PER_WORKER = 2
#: Templates a worker of another executor keeps, for the batches it serves in turn.
WORKER_TEMPLATES_KEPT = 8
#: The most processes a batch starts per core (``workers``): past that they only share
#: the cores and each holds its own memory.
WORKERS_PER_CORE = 4
#: The longest CSV cell read, in characters: a table's rows as JSON, a long text.
MAX_CELL = 16 * 1024 * 1024


@frozen
class BatchItem:
    """One row's outcome: its result, or the error that stopped it (a message naming the
    field and value, as the library's errors do)."""

    index: int
    modifications: Modifications
    result: RenderResult | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def render_many(
    template: TemplateSource,
    rows: Iterable[Modifications],
    *,
    format: str = "png",
    executor: Executor | None = None,
    workers: int | None = None,
    on_progress: Callable[[int, int | None], None] | None = None,
    **options: Any,
) -> Generator[BatchItem, None, None]:
    """Render ``template`` once per row of modifications, in parallel.

    ``format`` is png, jpeg, webp or pdf; ``options`` go to ``render_image`` (e.g.
    ``scale``, ``thumbnail``) or ``render_pdf``. ``executor`` is any
    ``concurrent.futures.Executor``; without one, a process pool of ``workers``
    processes (default: one per core) is made for the batch and closed at the end. A
    row that fails is an item with ``error`` set, and the batch goes on.
    ``on_progress(done, total)`` is called after each row (``total`` is None when
    ``rows`` has no length).

    The template and the arguments are checked when it is called, before any process
    starts: a ``TemplateError``, or a ``ValueError``/``TypeError`` naming the argument.
    """
    loaded = load_template(template)
    _check_arguments(format, workers, executor, on_progress, options)
    return _rendered(loaded, rows, format, executor, workers, on_progress, options)


def _check_arguments(
    format: str,
    workers: int | None,
    executor: Executor | None,
    on_progress: Callable[[int, int | None], None] | None,
    options: dict[str, Any],
) -> None:
    """What ``render_image`` or ``render_pdf`` would refuse on every row, refused once."""
    if format not in ("png", "jpeg", "jpg", "webp", "pdf"):
        raise ValueError(f"format: must be one of png, jpeg, webp, pdf (got {format!r})")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise ValueError(f"workers: must be a whole number of 1 or more (got {workers!r})")
    most = WORKERS_PER_CORE * (os.cpu_count() or 1)
    if workers is not None and workers > most:
        raise ValueError(f"workers: at most {most}, {WORKERS_PER_CORE} per core of this machine (got {workers!r})")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError(f"executor: must be a concurrent.futures.Executor (got {type(executor).__name__})")
    if on_progress is not None and not callable(on_progress):
        raise TypeError(f"on_progress: must be a function of (done, total) (got {type(on_progress).__name__})")
    try:
        if format == "pdf":
            pdf_options(**options)
        else:
            image_options(format, **options)
    except TypeError as exc:  # "pdf_options() got an unexpected keyword argument 'scale'"
        function = "render_pdf" if format == "pdf" else "render_image"
        reason = str(exc).partition("() ")[2] or str(exc)
        raise TypeError(f"render_many: {reason} (its other arguments go to {function})") from None


def _rendered(
    loaded: Template,
    rows: Iterable[Modifications],
    format: str,
    executor: Executor | None,
    workers: int | None,
    on_progress: Callable[[int, int | None], None] | None,
    options: dict[str, Any],
) -> Generator[BatchItem, None, None]:
    total = len(rows) if hasattr(rows, "__len__") else None  # type: ignore[arg-type]
    own = executor is None
    processes = workers or os.cpu_count() or 1
    if total is not None:  # no more processes than tasks: each would start for nothing
        processes = min(processes, max(1, -(-total // ROWS_PER_TASK)))
    pool = executor or _own_pool(loaded, processes)
    shipped = None if own else (uuid.uuid4().hex, loaded)
    window = TASKS_PER_WORKER * getattr(pool, "_max_workers", os.cpu_count() or 1)
    done = 0
    try:
        pending: deque[tuple[list[Modifications], Future[list[RenderResult | str]]]] = deque()
        for chunk in _chunks(rows, ROWS_PER_TASK):
            pending.append((chunk, pool.submit(render_rows, shipped, chunk, format, options)))
            if len(pending) >= window:
                for item in _outcomes(done, *pending.popleft()):
                    done += 1
                    yield item
                    if on_progress is not None:
                        on_progress(done, total)
        while pending:
            for item in _outcomes(done, *pending.popleft()):
                done += 1
                yield item
                if on_progress is not None:
                    on_progress(done, total)
    finally:
        if own:
            pool.shutdown(cancel_futures=True)


def _chunks(rows: Iterable[Modifications], size: int) -> Iterator[list[Modifications]]:
    chunk: list[Modifications] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _own_pool(template: Template, workers: int) -> Executor:
    """``workers`` processes, each given ``template`` once as it starts."""
    from concurrent.futures import ProcessPoolExecutor  # multiprocessing loads only for a batch

    return ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(template,))


#: The template of this worker process's batch: given once by ``_start_worker``, or the
#: first copy that a batch's tasks brought (by the batch's key: each task's is a new copy).
_WORKER_TEMPLATES: dict[str | None, Template] = {}


def _start_worker(template: Template) -> None:
    _WORKER_TEMPLATES[None] = template
    # a worker ends when its pool ends it. A forked worker inherits the handlers of the
    # process that started it, the batch command's among them, which only note a signal:
    # a pool whose worker was killed (for its memory, say) could not end the others, one
    # blocked handing back results that no one reads any more, and waited for ever
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def render_rows(
    shipped: tuple[str, Template] | None, rows: list[Modifications], format: str, options: dict[str, Any]
) -> list[RenderResult | str]:
    """One task of a batch: its rows' results, or for a row that failed the error's
    message. A module-level function, so that executors can pickle it. ``shipped``: the
    batch's key and template, or None for the one this worker was started with."""
    template = _worker_copy(shipped)
    results: list[RenderResult | str] = []
    for modifications in rows:
        try:
            if format == "pdf":
                results.append(render_pdf(template, modifications, **options))
            else:
                results.append(render_image(template, modifications, format=format, **options))
        except TemplatekitError as exc:
            results.append(str(exc))
    return results


def _worker_copy(shipped: tuple[str, Template] | None) -> Template:
    """The copy of the batch's template this process keeps (the first it was given)."""
    if shipped is None:
        return _WORKER_TEMPLATES[None]
    key, template = shipped
    kept = _WORKER_TEMPLATES.setdefault(key, template)
    if len(_WORKER_TEMPLATES) > WORKER_TEMPLATES_KEPT:
        _WORKER_TEMPLATES.pop(next(k for k in _WORKER_TEMPLATES if k is not None))
    return kept


def _outcomes(first: int, rows: list[Modifications], future: Future[list[RenderResult | str]]) -> list[BatchItem]:
    """A task's rows as items, numbered from ``first``."""
    return [
        BatchItem(first + offset, modifications, None, result)
        if isinstance(result, str)
        else BatchItem(first + offset, modifications, result)
        for offset, (modifications, result) in enumerate(zip(rows, future.result(), strict=True))
    ]


@frozen
class CsvRow:
    """A data row: its cells by column, and the modifications they make."""

    number: int  # 1 for the first row after the header
    cells: dict[str, str]
    modifications: list[dict[str, Any]]
    error: str | None = None  # why the row cannot be rendered (a cell that is not JSON)


def csv_rows(template: Template, path: str | os.PathLike[str]) -> tuple[list[CsvRow], list[str]]:
    """The rows of a CSV file as modifications of ``template``, and the columns that
    set nothing (they may name files).

    A column named ``layer.field`` sets that field, one named after a layer sets its main
    field (text, src, …); other columns only name files. Empty cells change nothing;
    cells that start with ``[`` or ``{`` are JSON (table, chart and key-value rows), unless
    their field holds text only (a title, a QR code); all others are text, which the
    template's fields convert (``"4.5"`` for a star rating). A row with a cell that is not
    the JSON it must be has its ``error`` set, and is not rendered.
    """
    if csv.field_size_limit() < MAX_CELL:  # the module's 128 KiB would refuse a table's rows
        csv.field_size_limit(MAX_CELL)
    rows: list[CsvRow] = []
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle, strict=True)  # strict: a quote left open is an error, not one long cell
            columns = list(reader.fieldnames or [])
            _check_header(path, columns)
            targets = {column: _target(template, column) for column in columns}
            _check_targets(path, targets)
            for number, cells in enumerate(reader, start=1):
                _check_width(path, number, cells, len(columns))
                kept = {k: v or "" for k, v in cells.items() if k is not None}
                try:
                    rows.append(CsvRow(number, kept, _row_modifications(targets, cells)))
                except ModificationError as exc:
                    rows.append(CsvRow(number, kept, [], str(exc)))
    except OSError as exc:  # the rows are the modifications: without them there is nothing to render
        raise ModificationError(f"the CSV file {os.fspath(path)} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ModificationError(f"the CSV file {os.fspath(path)} is not UTF-8 text: {exc}") from None
    except csv.Error as exc:
        if "field limit" in str(exc):  # the reader stopped inside the cell: its line is the row's
            reason = f"has a cell of more than {MAX_CELL:,} characters (row {len(rows) + 1})"
        else:
            reason = f"is not valid CSV: {exc} (a quote left open?)"
        raise ModificationError(f"the CSV file {os.fspath(path)} {reason}") from None
    return rows, [column for column, target in targets.items() if target is None]


def _check_header(path: str | os.PathLike[str], columns: list[str]) -> None:
    """ModificationError for a header with no column, or a column named twice: one of its
    cells would be lost."""
    if not any(columns):
        raise ModificationError(f"the CSV file {os.fspath(path)} has no header: its first line names no column")
    seen: dict[str, int] = {}
    for number, column in enumerate(columns, start=1):
        if column in seen:
            twice = f"names the column {column!r} twice (columns {seen[column]} and {number})"
            raise ModificationError(f"the CSV file {os.fspath(path)} {twice}")
        seen[column] = number


def _check_targets(path: str | os.PathLike[str], targets: dict[str, _Target | None]) -> None:
    """ModificationError for a column that would set what identifies a layer (its
    ``name``: the row's values would go to another layer), or a field another column
    sets too (one of their cells would be lost)."""
    setters: dict[tuple[str, str], str] = {}
    for column, target in targets.items():
        if target is None:
            continue
        if target.field in FIXED_FIELDS:
            raise ModificationError(
                f"the CSV file {os.fspath(path)}: column {column!r} would set the {target.field!r} of layer"
                f" {target.layer!r}, which a modification cannot change"
            )
        other = setters.setdefault((target.layer, target.field), column)
        if other != column:
            raise ModificationError(
                f"the CSV file {os.fspath(path)}: columns {other!r} and {column!r} both set"
                f" {target.field!r} of layer {target.layer!r}; one of their cells would be lost"
            )


def _check_width(path: str | os.PathLike[str], number: int, cells: dict[str | None, Any], width: int) -> None:
    """ModificationError for a row with cells beyond the header's columns (empty ones,
    as a trailing comma makes, are no data): they would be lost, or its cells shifted."""
    extra = [cell for cell in cells.get(None) or () if cell]
    if extra:
        raise ModificationError(
            f"the CSV file {os.fspath(path)}: row {number} has {len(extra)} cell(s) more than the header's"
            f" {width} columns ({extra[0]!r} first)"
        )


@frozen
class _Target:
    """What a column sets: a field of a layer, and whether that field holds text only."""

    layer: str
    field: str
    text_only: bool


def _target(template: Template, column: str) -> _Target | None:
    """What a column sets, or None."""
    layer = template.layer(column)
    if layer is not None:
        main = layer.MAIN_FIELD
        return _Target(column, main, holds_text_only(layer.kind, main)) if main else None
    name, dot, field = column.rpartition(".")
    found = template.layer(name) if dot else None
    return _Target(name, field, holds_text_only(found.kind, field)) if found is not None else None


def _row_modifications(targets: dict[str, _Target | None], cells: dict[str, Any]) -> list[dict[str, Any]]:
    by_layer: dict[str, dict[str, Any]] = {}
    for column, target in targets.items():
        text = cells.get(column)
        if target is None or not text:
            continue
        value: Any = text
        if not target.text_only and text.lstrip()[:1] in ("[", "{"):
            try:
                value = jsontext.parse(text)
            except jsontext.JSONTextError as exc:
                raise ModificationError(f"column {column!r}: {exc}") from None
        by_layer.setdefault(target.layer, {})[target.field] = value
    return [{"name": layer, **fields} for layer, fields in by_layer.items()]
