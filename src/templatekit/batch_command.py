"""``templatekit batch``: one file per CSV row, in parallel, resumable.

A file already in the output folder is not rendered again, so a batch that stopped (a
crash, Ctrl-C, a full disk) goes on where it stopped when run again; files are written
beside their place and renamed, so a file that exists is whole. Rows that fail are
listed at the end, and the command exits 1. Warnings (text cut to fit, a column naming a
field the layer does not have) are counted, listed and kept in ``WARNINGS_FILE`` beside
the files, row by row across runs; with ``strict`` they make the command exit 1 too.
"""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Callable
from pathlib import Path

from templatekit.batch import CsvRow, csv_rows, render_many
from templatekit.errors import ModificationError
from templatekit.loading import load_template

EXTENSIONS = {"png": "png", "jpeg": "jpg", "webp": "webp", "pdf": "pdf"}
_UNSAFE = re.compile(r"[^\w.\-]+")
#: ``{column}`` in a --name pattern, or ``{{`` and ``}}`` for the braces themselves.
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
SHOWN_LINES = 20  # of failures and of warnings, each; the rest counted
#: The warnings of every row rendered, beside the files: row, file, warning.
WARNINGS_FILE = "batch-warnings.csv"


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
    safe = _UNSAFE.sub("_", name).strip("._") or f"row-{row.number}"
    return f"{safe}.{extension}"


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
    template = load_template(template_path)
    rows, notes = csv_rows(template, csv_path)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    _check_pattern(pattern)
    output.mkdir(parents=True, exist_ok=True)
    names = [file_name(pattern, row, EXTENSIONS[format]) for row in rows]
    seen: dict[str, int] = {}
    for row, name in zip(rows, names, strict=True):
        if name in seen:
            raise ModificationError(f"--name {pattern!r}: rows {seen[name]} and {row.number} both make {name}")
        seen[name] = row.number
    todo = [(row, name) for row, name in zip(rows, names, strict=True) if not (output / name).exists()]
    skipped = len(rows) - len(todo)
    if skipped:
        print(f"{skipped} of {len(rows)} files exist already; rendering the other {len(todo)}", file=sys.stderr)
    failures: list[str] = []
    warnings: list[tuple[int, str, str]] = []
    items = render_many(
        template,
        [row.modifications for row, _ in todo],
        format=format,
        workers=workers,
        on_progress=lambda done, total: progress(done, total or len(todo)),
    )
    for item in items:
        row, name = todo[item.index]
        if item.result is None:
            failures.append(f"row {row.number}: {item.error}")
            continue
        partial = output / f".{name}.partial"
        partial.write_bytes(item.result.data)
        partial.replace(output / name)
        warnings.extend((row.number, name, warning) for warning in item.result.warnings)
    written = len(todo) - len(failures)
    warned = len({number for number, _, _ in warnings})
    _keep_warnings(output / WARNINGS_FILE, {name for _, name in todo}, warnings)
    print(
        f"{output}: {written} written, {skipped} there already, {len(failures)} failed, "
        f"{warned} with warnings" + (f" (listed in {output / WARNINGS_FILE})" if warned else "")
    )
    _list("failed", failures)
    _list("warnings", [f"row {number} ({name}): {warning}" for number, name, warning in warnings])
    return 1 if failures or (strict and warnings) else 0


def _list(title: str, lines: list[str]) -> None:
    if not lines:
        return
    print(f"{title}:", file=sys.stderr)
    for line in lines[:SHOWN_LINES]:
        print(f"  {line}", file=sys.stderr)
    if len(lines) > SHOWN_LINES:
        print(f"  … and {len(lines) - SHOWN_LINES} more", file=sys.stderr)


def _keep_warnings(path: Path, rendered: set[str], warnings: list[tuple[int, str, str]]) -> None:
    """The warnings file with this run's rows in place of what earlier runs said of them
    (a resumed batch keeps the warnings of the rows it did not render again)."""
    kept: list[tuple[int, str, str]] = []
    if path.exists():
        with path.open(newline="", encoding="utf-8") as handle:
            kept = [
                (int(entry["row"]), entry["file"], entry["warning"])
                for entry in csv.DictReader(handle)
                if entry.get("file") not in rendered
            ]
    entries = sorted(kept + warnings, key=lambda entry: entry[0])
    if not entries and not path.exists():
        return
    partial = path.with_name(f".{path.name}.partial")
    with partial.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["row", "file", "warning"])
        writer.writerows(entries)
    partial.replace(path)


def _check_pattern(pattern: str) -> None:
    """ModificationError for a brace that opens or closes no placeholder."""
    stray = next((char for char in _PLACEHOLDER.sub("", pattern) if char in "{}"), None)
    if stray is not None:
        raise ModificationError(
            f"--name {pattern!r}: a {stray} with no placeholder; write {stray * 2} for the brace itself"
        )
