"""SVG path data (the ``d`` of ``<path>``) read into straight and cubic segments, by
fontTools' SVG path parser (arcs and quadratic curves made cubic), for shape layers."""

from __future__ import annotations

from typing import Any

from templatekit.model.checks import PATH

Command = tuple[Any, ...]  # ("M", x, y), ("L", x, y), ("C", x1, y1, x2, y2, x, y), ("Z",)
MAX_COMMANDS = 100_000


class PathDataError(ValueError):
    """Path data that does not parse; the message quotes the problem."""


def parse_path_data(data: str) -> tuple[Command, ...]:
    """The commands of ``data`` in its own coordinates; data over its length limit is
    refused before it is read."""
    too_long = PATH(data)
    if too_long:
        raise PathDataError(too_long)
    from fontTools.svgLib.path import parse_path  # a tenth of the package's import: only for paths

    pen = _CommandPen()
    try:
        parse_path(data, pen)
    except (ValueError, IndexError) as exc:
        raise PathDataError(f"not SVG path data: {exc}") from None
    if not pen.commands:
        raise PathDataError(f"no segments in {data[:40]!r}")
    if len(pen.commands) > MAX_COMMANDS:
        raise PathDataError(f"more than {MAX_COMMANDS:,} segments")
    return tuple(pen.commands)


class _CommandPen:
    """fontTools' pen protocol, writing the Scene's path commands."""

    def __init__(self) -> None:
        self.commands: list[Command] = []
        self.last = (0.0, 0.0)

    def moveTo(self, point: tuple[float, float]) -> None:  # noqa: N802 - the pen protocol
        self.commands.append(("M", *point))
        self.last = point

    def lineTo(self, point: tuple[float, float]) -> None:  # noqa: N802
        self.commands.append(("L", *point))
        self.last = point

    def curveTo(self, *points: tuple[float, float]) -> None:  # noqa: N802
        first, second, end = points
        self.commands.append(("C", *first, *second, *end))
        self.last = end

    def qCurveTo(self, *points: tuple[float, float]) -> None:  # noqa: N802
        """Quadratic segments (implied on-curve points between controls) made cubic."""
        controls, end = list(points[:-1]), points[-1]
        for index, control in enumerate(controls):
            target = end if index + 1 == len(controls) else _middle(control, controls[index + 1])
            start = self.last
            self.curveTo(_towards(start, control), _towards(target, control), target)
        if not controls:
            self.lineTo(end)

    def closePath(self) -> None:  # noqa: N802
        self.commands.append(("Z",))

    def endPath(self) -> None:  # noqa: N802
        pass


def _middle(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)


def _towards(point: tuple[float, float], control: tuple[float, float]) -> tuple[float, float]:
    return (point[0] + 2 / 3 * (control[0] - point[0]), point[1] + 2 / 3 * (control[1] - point[1]))
