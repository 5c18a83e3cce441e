"""Many renders of one template: ``render_many`` on any ``concurrent.futures.Executor``.

The template is loaded once and sent with each task (it pickles to a few kilobytes), so
any executor that runs picklable functions runs a batch: a process pool on this machine,
or a Dask or Ray cluster through their ``Executor`` adapters. Results come back in the
order of the rows, with at most a few tasks per worker in flight, so memory stays flat
however many rows there are.
"""

from __future__ import annotations

import csv
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future
from typing import Any

from attrs import frozen

from templatekit import jsontext
from templatekit.apply import Modifications
from templatekit.errors import ModificationError, TemplatekitError
from templatekit.loading import TemplateSource, load_template
from templatekit.model.template import Template
from templatekit.render import render_image, render_pdf
from templatekit.result import RenderResult

IN_FLIGHT_PER_WORKER = 4


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
    on_progress: Callable[[int, int | None], None] | None = None,
    **options: Any,
) -> Iterator[BatchItem]:
    """Render ``template`` once per row of modifications, in parallel.

    ``format`` is png, jpeg, webp or pdf; ``options`` go to ``render_image`` (e.g.
    ``scale``, ``thumbnail``) or ``render_pdf``. ``executor`` is any
    ``concurrent.futures.Executor`` (default: a process pool, one worker per core,
    closed at the end); a row that fails is an item with ``error`` set, and the batch
    goes on. ``on_progress(done, total)`` is called after each row (``total`` is None
    when ``rows`` has no length).
    """
    loaded = load_template(template)
    total = len(rows) if hasattr(rows, "__len__") else None  # type: ignore[arg-type]
    own = executor is None
    if executor is None:
        from concurrent.futures import ProcessPoolExecutor  # multiprocessing loads only for a batch

        executor = ProcessPoolExecutor(max_workers=os.cpu_count() or 1)
    pool = executor
    window = IN_FLIGHT_PER_WORKER * getattr(pool, "_max_workers", os.cpu_count() or 1)
    try:
        pending: deque[tuple[int, Modifications, Future[RenderResult]]] = deque()
        done = 0
        for index, modifications in enumerate(rows):
            pending.append((index, modifications, pool.submit(render_row, loaded, modifications, format, options)))
            if len(pending) >= window:
                yield _outcome(*pending.popleft())
                done += 1
                if on_progress is not None:
                    on_progress(done, total)
        while pending:
            yield _outcome(*pending.popleft())
            done += 1
            if on_progress is not None:
                on_progress(done, total)
    finally:
        if own:
            pool.shutdown(cancel_futures=True)


def render_row(template: Template, modifications: Modifications, format: str, options: dict[str, Any]) -> RenderResult:
    """One render of a batch; a module-level function, so that executors can pickle it."""
    if format == "pdf":
        return render_pdf(template, modifications, **options)
    return render_image(template, modifications, format=format, **options)


def _outcome(index: int, modifications: Modifications, future: Future[RenderResult]) -> BatchItem:
    try:
        return BatchItem(index, modifications, future.result())
    except TemplatekitError as exc:
        return BatchItem(index, modifications, None, str(exc))


@frozen
class CsvRow:
    """A data row: its cells by column, and the modifications they make."""

    number: int  # 1 for the first row after the header
    cells: dict[str, str]
    modifications: list[dict[str, Any]]


def csv_rows(template: Template, path: str | os.PathLike[str]) -> tuple[list[CsvRow], list[str]]:
    """The rows of a CSV file as modifications of ``template``, and notes on columns.

    A column named ``layer.field`` sets that field, one named after a layer sets its main
    field (text, src, …); other columns only name files. Empty cells change nothing;
    cells that start with ``[`` or ``{`` are JSON (table, chart and key-value rows), all
    others are text, which the template's fields convert (``"4.5"`` for a star rating).
    """
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        columns = list(reader.fieldnames or [])
        targets = {column: _target(template, column) for column in columns}
        rows = [
            CsvRow(
                number,
                {k: v or "" for k, v in cells.items() if k is not None},
                _row_modifications(number, targets, cells),
            )
            for number, cells in enumerate(reader, start=1)
        ]
    notes = [
        f"column {column!r} names no layer: it is used in file names only" for column, t in targets.items() if not t
    ]
    return rows, notes


def _target(template: Template, column: str) -> tuple[str, str] | None:
    """(layer, field) a column sets, or None."""
    layer = template.layer(column)
    if layer is not None:
        return (column, layer.MAIN_FIELD) if layer.MAIN_FIELD else None
    name, dot, field = column.rpartition(".")
    return (name, field) if dot and template.layer(name) is not None else None


def _row_modifications(
    number: int, targets: dict[str, tuple[str, str] | None], cells: dict[str, Any]
) -> list[dict[str, Any]]:
    by_layer: dict[str, dict[str, Any]] = {}
    for column, target in targets.items():
        text = cells.get(column)
        if target is None or not text:
            continue
        value: Any = text
        if text.lstrip()[:1] in ("[", "{"):
            try:
                value = jsontext.parse(text)
            except jsontext.JSONTextError as exc:
                raise ModificationError(f"row {number}, column {column!r}: {exc}") from None
        layer, field = target
        by_layer.setdefault(layer, {})[field] = value
    return [{"name": layer, **fields} for layer, fields in by_layer.items()]
