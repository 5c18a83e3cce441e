"""The ``templatekit`` command."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from templatekit import __version__, extras, jsontext
from templatekit.apply import holds_text_only, normalize
from templatekit.errors import TemplateError, TemplatekitError
from templatekit.folders import folder_problem
from templatekit.loading import load_template
from templatekit.model.layers import AnyLayer, walk_layers
from templatekit.model.modification import Modification
from templatekit.model.template import Template
from templatekit.outputs.motion import frame_rate, motion_format
from templatekit.render import render_image, render_pdf, render_video

IMAGE_SUFFIXES = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp"}
STILL_SUFFIXES = (*IMAGE_SUFFIXES, ".pdf")
#: what a video template is written as (``.webp`` too: animated, unless ``--still``)
VIDEO_SUFFIXES = (".mp4", ".webm", ".gif", ".webp")
OUTPUT_SUFFIXES = (*STILL_SUFFIXES, *VIDEO_SUFFIXES[:3])
BAR_WIDTH = 30


class ProgressBar:
    """Work done (frames, rows), on standard error: a bar redrawn in place on a terminal,
    a line per tenth of the work otherwise (logs, CI)."""

    def __init__(self, unit: str = "frames", stream: TextIO = sys.stderr) -> None:
        self.unit = unit
        self.stream = stream
        self.live = stream.isatty()
        self.tenths = -1

    def __call__(self, done: int, total: int) -> None:
        share = done / total
        if self.live:
            filled = round(share * BAR_WIDTH)
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            end = "\n" if done == total else ""
            self.stream.write(f"\rrendering [{bar}] {share:4.0%} {done}/{total} {self.unit}{end}")
        elif int(share * 10) > self.tenths:
            self.tenths = int(share * 10)
            self.stream.write(f"rendering: {share:.0%} ({done}/{total} {self.unit})\n")
        self.stream.flush()


BUILT_IN = ("render", "validate", "batch")


class UsageError(Exception):
    """A mistake in the command's arguments (exit status 2)."""


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the command is the process: what is loaded by now (the library,
        # its model's classes) lives as long as it, and the collector need not walk it again
        gc.freeze()
        status = _command(sys.argv[1:])
        _exit_without_teardown(status)
        return status
    return _command(argv)


def _exit_without_teardown(status: int) -> None:
    """End the process at once when nothing is left to wait for: the exit handlers run
    (the code cache is saved, a browser closed) and the standard streams are flushed,
    but the interpreter's teardown, which frees every module and object one at a time,
    is skipped: 15 ms of a 240 ms ``templatekit render``. Returns, for Python's own
    exit, while a thread other than a daemon runs (the exit waits for it), while a
    profiler or tracer watches (it writes its report at exit), and when a standard
    stream cannot be flushed (a full disk, a closed pipe: the exit reports it, with
    status 120)."""
    main_thread = threading.main_thread()
    if any(not thread.daemon for thread in threading.enumerate() if thread is not main_thread):
        return
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return
    atexit._run_exitfuncs()  # run once: Python's exit finds none left to run
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            return
    os._exit(status)


def _command(argv: Sequence[str]) -> int:
    arguments = list(argv)
    # Other packages' commands are looked up only when asked for: the look-up costs
    # a cold `templatekit render` about a tenth of its start-up time.
    parser = _parser(plugins=not arguments or arguments[0] not in BUILT_IN)
    args = parser.parse_args(arguments)
    try:
        # the library's own commands stop at SIGTERM as at Ctrl-C; a plugin's (the server)
        # keeps its own handling
        with _terminated_as_interrupt() if args.top_command in BUILT_IN else contextlib.nullcontext():
            return int(args.run(args))
    except UsageError as exc:
        return _usage(str(exc))
    except TemplatekitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # Ctrl-C: nothing half written is left (files are renamed into place)
        print("stopped", file=sys.stderr)
        return 128 + signal.SIGTERM if isinstance(exc, Terminated) else 130


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``docker stop``, a CI job cancelled): the command stops as at
    Ctrl-C, so that what it was writing is removed, not left half written."""


@contextlib.contextmanager
def _terminated_as_interrupt() -> Iterator[None]:
    """SIGTERM raised as ``Terminated`` in the block (its default kills the process at
    once, leaving a video's ``.partial`` file behind); a command with its own handler
    (``batch``) sets it for its own work."""

    def terminated(_signum: int, _frame: object) -> None:
        raise Terminated

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _parser(plugins: bool = True) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="templatekit", description="Render design templates.")
    python = ".".join(map(str, sys.version_info[:3]))
    parser.add_argument("--version", action="version", version=f"templatekit {__version__} (Python {python})")
    commands = parser.add_subparsers(dest="top_command", required=True, metavar="COMMAND")

    render = commands.add_parser("render", help="render a template to an image, a PDF or an MP4 video")
    render.add_argument("template", type=Path, help="template JSON file")
    render.add_argument("-m", "--modifications", help="modifications: a JSON file, or JSON text")
    render.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="LAYER.FIELD=VALUE",
        help="one modification; VALUE is JSON or plain text; LAYER=VALUE sets the main field",
    )
    render.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        help=(
            "output file (.png, .jpg, .webp, .pdf; for video templates .mp4, .webm, .gif, .webp animated,"
            " .png/.jpg/.pdf the poster); missing folders are made"
        ),
    )
    render.add_argument("--still", action="store_true", help="a still of a video template (its poster), as .webp too")
    render.add_argument("--thumbnail", action="store_true", help="a small preview (longest side 320 px)")
    render.add_argument("--debug", action="store_true", help="draw every layer's box and name")
    render.set_defaults(run=_render)

    batch = commands.add_parser("batch", help="render a template once per row of a CSV file")
    batch.add_argument("template", type=Path, help="template JSON file")
    batch.add_argument("--csv", type=Path, required=True, help="rows: columns named layer.field, or a layer's name")
    batch.add_argument("-o", "--output", type=Path, required=True, help="folder for the files")
    batch.add_argument(
        "--name",
        default="{row}",
        help="file name pattern: {row} (1, 2, …) and {column} placeholders; the extension comes from --format",
    )
    batch.add_argument(
        "--format", choices=("png", "jpeg", "webp", "pdf"), default="png", help="file format of every row (default png)"
    )
    batch.add_argument(
        "--workers", type=_workers, default=None, help="processes (default: one per core; at most four per core)"
    )
    batch.add_argument(
        "--strict", action="store_true", help="exit 1 if any row rendered with warnings (text cut, unknown fields)"
    )
    batch.set_defaults(run=_batch)

    validate = commands.add_parser("validate", help="check template files and list every problem")
    validate.add_argument("templates", type=Path, nargs="+")
    validate.set_defaults(run=_validate)

    if plugins:
        _add_plugin_commands(commands)
    return parser


def _add_plugin_commands(commands: Any) -> None:
    """Commands other packages add through the ``templatekit.commands`` entry points (the
    server's ``serve``, ``admin`` and ``edit``); one whose package is not installed says how to get it."""
    from importlib.metadata import entry_points  # a fifth of a cold start: only when needed

    for entry in entry_points(group="templatekit.commands"):
        try:
            add = entry.load()
        except ImportError as exc:
            reason = extras.explain("server", exc)
            missing = commands.add_parser(entry.name, help=f"(not available: {reason})")
            missing.set_defaults(run=lambda _args, name=entry.name, reason=reason: _not_installed(name, reason))
            continue
        add(commands)


def _not_installed(name: str, reason: str) -> int:
    return _usage(f"templatekit {name}: {reason}")


def _render(args: argparse.Namespace) -> int:
    output: Path = args.output
    suffix = output.suffix.lower()
    if suffix not in OUTPUT_SUFFIXES:
        return _usage(f"-o {output}: the output must end in one of {', '.join(OUTPUT_SUFFIXES)}")
    template = load_template(args.template)
    moving = template.video is not None and suffix in VIDEO_SUFFIXES and not args.still
    if suffix in VIDEO_SUFFIXES and suffix not in STILL_SUFFIXES and template.video is None:
        return _usage(
            f'-o {output}: {suffix[1:].upper()} output needs a video template (one with a "video" field);'
            f" {template.name!r} is a still design: write {', '.join(STILL_SUFFIXES)}"
        )
    if args.still and suffix not in STILL_SUFFIXES:
        return _usage(f"-o {output}: --still writes a still: {', '.join(STILL_SUFFIXES)}")
    modifications = _modifications(template, args.modifications, args.set)
    _make_folder(output, output.parent)
    if output.is_dir():
        return _usage(f"-o {output}: is a folder; name the file to write")
    if moving:
        try:
            result = render_video(template, modifications, on_progress=ProgressBar(), path=output)
        except OSError as exc:  # the file could not be opened or renamed into place
            return _usage(f"-o {output}: cannot write ({exc.strerror or exc})")
    elif suffix == ".pdf":
        result = render_pdf(template, modifications, debug=args.debug)
    else:
        result = render_image(
            template, modifications, format=IMAGE_SUFFIXES[suffix], thumbnail=args.thumbnail, debug=args.debug
        )
    try:
        result.save(output)
    except OSError as exc:
        return _usage(f"-o {output}: cannot write ({exc.strerror or exc})")
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    pages = f", {result.pages} pages" if result.pages > 1 else ""
    if moving:
        assert template.video is not None
        fps = frame_rate(template.video, motion_format(output))
        pages = f", {template.video.duration:g} s at {fps} fps"
    print(f"{output} ({result.width}x{result.height}{pages}, {result.size:,} bytes)")
    return 0


def _make_folder(option: Path, folder: Path) -> None:
    """``folder`` made with its parents; UsageError naming ``-o option`` when it cannot be."""
    problem = folder_problem(folder)
    if problem is not None:
        raise UsageError(f"-o {option}: {problem}")


def _usage(message: str) -> int:
    """A mistake in the command's arguments: said on standard error, exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def _count(text: str) -> int:
    """A whole number of 1 or more, for argparse (which names the option on an error)."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more (got {text!r})")
    return number


def _workers(text: str) -> int:
    """``--workers``: a count, at most what ``render_many`` starts on this machine."""
    from templatekit.batch import WORKERS_PER_CORE

    number, most = _count(text), WORKERS_PER_CORE * (os.cpu_count() or 1)
    if number > most:
        raise argparse.ArgumentTypeError(f"at most {most}, {WORKERS_PER_CORE} per core (got {text!r})")
    return number


def _batch(args: argparse.Namespace) -> int:
    from templatekit.batch_command import run_batch

    _make_folder(args.output, args.output)
    return run_batch(
        args.template, args.csv, args.output, args.name, args.format, args.workers, ProgressBar("rows"), args.strict
    )


def _modifications(template: Template, source: str | None, settings: list[str]) -> list[Modification]:
    """The -m modifications followed by each --set, in that order."""
    result = normalize(_read_json_argument(source), template) if source else []
    for setting in settings:
        key, sep, raw = setting.partition("=")
        if not sep or not key:
            raise UsageError(f"--set {setting!r}: expected LAYER.FIELD=VALUE or LAYER=VALUE")
        named = template.layer(key)
        if named is not None or "." not in key:
            main = named.MAIN_FIELD if named is not None else None
            result.extend(normalize({key: _value(raw, named, main)}, template))
        else:
            layer, _, field = key.rpartition(".")
            result.append(Modification(layer, {field: _value(raw, template.layer(layer), field)}))
    return result


def _read_json_argument(source: str) -> Any:
    """JSON text, or the path of a JSON file (a name no file has is read as JSON text:
    ``-m null``)."""
    text, no_file = source, False
    if not source.lstrip().startswith(("[", "{")):
        try:
            text = Path(source).read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            no_file = True
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise UsageError(f"-m {source}: cannot read ({reason})") from None
    try:
        value = jsontext.parse(text, pairs_hook=jsontext.unique_fields)
    except jsontext.JSONTextError as exc:
        raise UsageError(f"-m {source}: no such file, nor JSON text" if no_file else f"-m: {exc}") from None
    if value is not None and not isinstance(value, list | dict):
        raise UsageError(f"-m: modifications are a JSON list or object, or null (got {source!r})")
    return value


def _value(raw: str, layer: AnyLayer | None, field: str | None) -> Any:
    """``raw`` read as JSON, or as it is when it is no JSON. A field that holds text only
    takes a JSON string unquoted and anything else as written (a title of ``true``, a QR
    code of ``{"id": 1}``)."""
    try:
        value = jsontext.parse(raw)
    except jsontext.JSONTextError:
        return raw
    text_only = layer is not None and field is not None and holds_text_only(layer.kind, field)
    return raw if text_only and not isinstance(value, str) else value


def _validate(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.templates:
        try:
            template = load_template(path, strict=True)
        except TemplateError as exc:
            failed += 1
            print(f"{path}: {len(exc.problems)} problem(s)")
            for problem in exc.problems:
                print(f"  {problem}")
            continue
        count = sum(1 for _ in walk_layers(template.layers))  # those in frames too
        print(f"{path}: ok ({template.width}x{template.height}, {count} layers)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
