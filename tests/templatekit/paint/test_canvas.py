"""Reusing the last renders of a canvas (damage repaint, snapshots) gives exactly the
pixels of painting everything afresh, whatever changes between renders."""

from __future__ import annotations

import random

import pytest

from templatekit.model.values import Color, Gradient
from templatekit.paint import canvas
from templatekit.scene import Clip, Ellipse, Group, Line, Path, Polygon, Rect, Scene
from templatekit.scene.geometry import Transform
from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextStyle, place, typeset

pytestmark = pytest.mark.slow

BOOK = FontBook.bundled()
WORDS = ["Hello", "مرحبا بالعالم", "שלום", "日本語の文", "Ñoño Ǻ̃ ễ", "🎉 done", "ไทย", "नमस्ते", "", "x" * 30]


def random_layer(rng: random.Random, index: int) -> Group:
    """One layer of a random kind, place and look, as layout makes them (a named group)."""
    x, y = rng.uniform(-30, 380), rng.uniform(-30, 280)
    width, height = rng.uniform(5, 160), rng.uniform(5, 120)
    color = Color(rng.randrange(256), rng.randrange(256), rng.randrange(256), rng.choice([255, 255, 120]))
    kind = rng.choice(["rect", "ellipse", "text", "line", "polygon", "path", "gradient"])
    if kind == "rect":
        items: tuple = (Rect(x, y, width, height, color, Color(0, 0, 0), rng.choice([0, 2, 6]), rng.uniform(0, 20)),)
    elif kind == "ellipse":
        items = (Ellipse(x, y, width, height, color, Color(20, 20, 20), rng.choice([0, 3])),)
    elif kind == "text":
        style = TextStyle(size=rng.uniform(10, 40), color=color)
        items = tuple(place(typeset(rng.choice(WORDS), style, BOOK, width + 100), x, y, width + 100, height + 40))
    elif kind == "line":
        items = (Line((x, y), (x + width, y + height), color, rng.uniform(1, 8)),)
    elif kind == "polygon":
        items = (Polygon((((x, y), (x + width, y + height / 2), (x, y + height)),), color),)
    elif kind == "path":
        curve = (("M", x, y), ("C", x + width, y - 20, x + width, y + height + 20, x, y + height), ("Z",))
        items = (Path(curve, color, Color(0, 0, 0), rng.choice([0.0, 5.0]), line_join="round"),)
    else:
        items = (Rect(x, y, width, height, Gradient(color, Color(0, 0, 255), rng.uniform(0, 360))),)
    return Group(
        items,
        opacity=rng.choice([1.0, 1.0, 0.5]),
        transform=Transform.turn(rng.choice([0.0, 0.0, 15.0, -40.0]), (x + width / 2, y + height / 2)),
        clip=rng.choice([None, None, Clip(x, y, width / 2 + 5, height, radius=4)]),
        label=f"layer{index}",
    )


def fresh(scene: Scene, scale: float) -> bytes:
    canvas.forget()
    return canvas.paint(scene, scale).tobytes()


@pytest.mark.parametrize("scale", [1.0, 0.5, 2.0])
@pytest.mark.parametrize("seed", range(4))
def test_renders_that_reuse_the_last_ones_are_the_pixels_of_fresh_renders(seed, scale):
    rng = random.Random(seed)
    layers = [random_layer(rng, index) for index in range(rng.randrange(3, 40))]
    background = rng.choice([Color(255, 255, 255), Color(10, 20, 30), None])
    sequence = []
    for _ in range(12):
        for _ in range(rng.choice([0, 1, 1, 1, 2, 3, 12])):  # none, a few, or many layers change
            index = rng.randrange(len(layers))
            layers[index] = random_layer(rng, index)
        sequence.append(Scene(400, 300, background, tuple(layers)))
    canvas.forget()
    reused = [canvas.paint(scene, scale).tobytes() for scene in sequence]
    assert reused == [fresh(scene, scale) for scene in sequence]


def counted(painter, painted):
    def paint(surface, item):
        painted.append(item)
        painter(surface, item)

    return paint


def test_a_change_far_from_the_others_repaints_its_region_only(monkeypatch):
    layers = [Group((Rect(10 * i, 10, 8, 8, Color(0, 0, 0)),), label=str(i)) for i in range(30)]
    canvas.forget()
    canvas.paint(Scene(400, 100, Color(255, 255, 255), tuple(layers)))
    layers[3] = Group((Rect(30, 60, 8, 8, Color(255, 0, 0)),), label="3")
    canvas.paint(Scene(400, 100, Color(255, 255, 255), tuple(layers)))  # keeps the canvas under layer 3
    painted: list[object] = []
    for kind, painter in dict(canvas.PAINTERS).items():
        monkeypatch.setitem(canvas.PAINTERS, kind, counted(painter, painted))
    layers[3] = Group((Rect(30, 70, 8, 8, Color(0, 0, 255)),), label="3")
    changed = Scene(400, 100, Color(255, 255, 255), tuple(layers))
    image = canvas.paint(changed)
    assert [item.label for item in painted if isinstance(item, Group)] == ["3"]  # not the 30 layers
    assert image.tobytes() == fresh(changed, 1.0)
