"""Dotted and dashed rectangle outlines against Chromium drawing a CSS ``dotted`` or
``dashed`` border round the same box: how many dots or dashes each side has, that the
pattern runs on evenly where our outline closes, and what each corner looks like.
Compared by the blobs of ink round the box, not pixel by pixel (anti-aliasing and the
exact phase differ)."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from PIL import Image

from tests.conftest import layer
from tests.templatekit.paint.test_effects_chromium import SIZE, chromium_shot, ours

pytestmark = pytest.mark.slow

COLOUR = "#1e3a8a"
#: Dots or dashes a side may have more or fewer than Chromium's: both stretch the pattern
#: to fit, rounding to a whole number differently.
COUNT_OFF = 1
#: How much wider (or narrower) than the usual one a gap may be: a hole or a crowded pair
#: is more.
EVEN = 1.5
#: How much larger (or smaller) than the usual one a dot or dash between the corners may
#: be: a stub, or two run together, is more (Chromium's differ by up to 1.15 times).
SIZES = 1.25
#: How much of a corner's square (the border width each way) may be inked more or less
#: than in Chromium's: a dot in it covers about 0.9, a dash round it all.
CORNER_OFF = 0.2

#: (style, border width, box width, box height): a few widths, boxes not square.
CASES = [
    ("dotted", 4, 160, 100),
    ("dotted", 6, 200, 120),
    ("dotted", 8, 240, 140),
    ("dashed", 4, 160, 100),
    ("dashed", 6, 200, 120),
    ("dashed", 8, 240, 140),
]

Box = tuple[int, int, int, int, int]  # x, y, width, height, border width


def pattern(style: str, width: int) -> dict[str, object]:
    """CSS's patterns in our fields: Chromium draws dots as wide as the border about one
    border width apart, and dashes two border widths long about one apart (borders of
    3 px or more)."""
    if style == "dotted":
        return {"strokeDash": [0, 2 * width], "lineCap": "round"}
    return {"strokeDash": [2 * width, width], "lineCap": "butt"}


def both(page, style: str, width: int, box_width: int, box_height: int) -> tuple[Image.Image, Image.Image, Box]:
    """Ours and Chromium's, the box centred. Our rectangle's outline lies inside its box
    (docs/template-format.md), as a border does in a ``box-sizing: border-box`` box of
    the same size: the same place, no offset."""
    x, y = (SIZE[0] - box_width) // 2, (SIZE[1] - box_height) // 2
    css = (
        f"left:{x}px;top:{y}px;width:{box_width}px;height:{box_height}px;box-sizing:border-box;"
        f"border:{width}px {style} {COLOUR}"
    )
    theirs = chromium_shot(page, f'<div style="{css}"></div>')
    frame = {"fill": None, "stroke": COLOUR, "strokeWidth": width, **pattern(style, width)}
    mine = ours(layer("shape", "frame", x=x, y=y, width=box_width, height=box_height, **frame))
    return mine, theirs, (x, y, box_width, box_height, width)


def ink(image: Image.Image) -> np.ndarray:
    return np.asarray(image).astype(int).sum(-1) < 600


def blobs(mask: np.ndarray) -> list[np.ndarray]:
    """The 8-connected blobs of True in ``mask``, each as an array of its (row, column)s."""
    left = set(zip(*(axis.tolist() for axis in np.nonzero(mask)), strict=True))
    found = []
    while left:
        todo, members = [left.pop()], []
        while todo:
            row, column = todo.pop()
            members.append((row, column))
            for near in ((row + dy, column + dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)):
                if near in left:
                    left.remove(near)
                    todo.append(near)
        found.append(np.array(members))
    return found


def gap(a: np.ndarray, b: np.ndarray) -> float:
    """The blank between two blobs: the shortest distance between their pixels, less one."""
    return round(float(np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1).min())) - 1, 1)


def per_side(image: Image.Image, box: Box) -> dict[str, int]:
    """How many dots or dashes each side has: the blobs of ink in a strip as deep as the
    border along it (one in a corner counts for both its sides)."""
    x, y, width, height, border = box
    mask = ink(image)
    strips = {
        "top": mask[y : y + border, x : x + width],
        "right": mask[y : y + height, x + width - border : x + width],
        "bottom": mask[y + height - border : y + height, x : x + width],
        "left": mask[y : y + height, x : x + border],
    }
    return {side: len(blobs(strip)) for side, strip in strips.items()}


def clockwise(image: Image.Image, box: Box) -> list[np.ndarray]:
    """The blobs of ink round the box, clockwise from the middle of its top."""
    x, y, width, height, _ = box
    centre = np.array([y + height / 2, x + width / 2])

    def angle(blob: np.ndarray) -> float:
        return (math.atan2(*(blob.mean(0) - centre)) + math.pi / 2) % math.tau

    return sorted(blobs(ink(image)), key=angle)


def corner_squares(image: Image.Image, box: Box) -> list[float]:
    """How much of each corner's square (the border width each way) is ink, clockwise
    from the top-left."""
    x, y, width, height, border = box
    mask = ink(image)
    right, bottom = x + width - border, y + height - border
    squares = [(y, x), (y, right), (bottom, right), (bottom, x)]
    return [round(float(mask[row : row + border, column : column + border].mean()), 2) for row, column in squares]


def even(gaps: list[float]) -> bool:
    """No gap more than ``EVEN`` times the usual one, nor less than the usual over ``EVEN``."""
    usual = statistics.median(gaps)
    return all(usual / EVEN <= each <= usual * EVEN for each in gaps)


@pytest.mark.parametrize(("style", "width", "box_width", "box_height"), CASES)
def test_each_side_has_as_many_dots_or_dashes_as_a_chromium_border(page, style, width, box_width, box_height):
    """Both fit whole dots or dashes to the outline: each side ends up with about as many
    as the CSS border's (a blob in a corner counts for both its sides)."""
    mine, theirs, box = both(page, style, width, box_width, box_height)
    expected = per_side(theirs, box)
    assert per_side(mine, box) == {side: pytest.approx(count, abs=COUNT_OFF) for side, count in expected.items()}


@pytest.mark.parametrize(("style", "width", "box_width", "box_height"), CASES)
def test_the_pattern_runs_on_evenly_where_the_outline_closes_as_along_a_chromium_border(
    page, style, width, box_width, box_height
):
    """Along the top, between its corners, no gap is much wider or narrower than the
    others and no dot or dash is a stub or two run together, as along Chromium's border
    (checked by the same measure, which it meets)."""
    mine, theirs, box = both(page, style, width, box_width, box_height)
    x, y, _, _, border = box
    for who, image in (("chromium", theirs), ("ours", mine)):
        found = [
            blob
            for blob in blobs(ink(image))
            if blob[:, 0].mean() < y + border and x + 2 * border <= blob[:, 1].mean() <= x + box_width - 2 * border
        ]
        found.sort(key=lambda blob: blob[:, 1].mean())
        gaps = [gap(a, b) for a, b in zip(found, found[1:], strict=False)]
        sizes = [len(blob) for blob in found]
        assert len(found) >= 6 and even(gaps), (who, gaps)
        usual = statistics.median(sizes)
        assert usual / SIZES <= min(sizes) and max(sizes) <= usual * SIZES, (who, sizes)  # no stub, no two run together


@pytest.mark.parametrize(("style", "width", "box_width", "box_height"), CASES)
def test_the_corners_look_like_those_of_a_chromium_border(page, style, width, box_width, box_height):
    """Chromium puts a dot in each corner of a dotted border and bends a dash round each
    corner of a dashed one, spaced like the rest: our corners are inked about as much,
    and no two dots or dashes crowd each other beside one, nor leave a hole."""
    mine, theirs, box = both(page, style, width, box_width, box_height)
    assert min(corner_squares(theirs, box)) > 0.85  # Chromium's: a dot in, or a dash round, every corner
    assert corner_squares(mine, box) == pytest.approx(corner_squares(theirs, box), abs=CORNER_OFF)
    for who, image in (("chromium", theirs), ("ours", mine)):
        found = clockwise(image, box)
        gaps = [gap(a, b) for a, b in zip(found, found[1:] + found[:1], strict=True)]
        assert even(gaps), (who, gaps)
