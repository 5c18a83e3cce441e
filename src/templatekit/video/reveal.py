"""The typewriter: a text shown up to a share of its characters, each glyph where the
whole text put it, and its highlight, underline and strike-through as far as it is typed."""

from __future__ import annotations

import math
from collections.abc import Sequence

from attrs import evolve

from templatekit.scene import GlyphRun, Group, Item, Rect, glyph_runs
from templatekit.text.unicode import graphemes


def revealed_count(group: Group | None, share: float) -> int:
    """Grapheme clusters of the layer's text shown at ``share`` of the typewriter."""
    total = sum(len(graphemes(run.text)) for run in glyph_runs(group.items)) if group is not None else 0
    return math.floor(total * share + 1e-9)


def reveal(items: Sequence[Item], count: int) -> list[Item]:
    """The items with only the first ``count`` grapheme clusters of their text, in
    reading order: each glyph stays where (and as) the whole line shaped it, so joined
    scripts do not jump and an emoji appears whole."""
    shown: dict[int, int] = {}  # run id -> characters of its text shown
    left = count
    for run in sorted(glyph_runs(items), key=lambda run: run.offset):
        clusters = graphemes(run.text)
        taken = min(len(clusters), max(left, 0))
        shown[id(run)] = sum(len(cluster) for cluster in clusters[:taken])
        left -= taken
    return _shown(items, shown)


def _shown(items: Sequence[Item], shown: dict[int, int]) -> list[Item]:
    runs = [item for item in items if isinstance(item, GlyphRun)]
    result: list[Item] = []
    for item in items:
        if isinstance(item, Rect) and (run := _decorated(item, runs)) is not None:
            extent = _typed_extent(run, shown[id(run)])
            if extent is not None:
                result.append(evolve(item, x=run.x + extent[0], width=extent[1] - extent[0]))
        elif isinstance(item, GlyphRun):
            keep = [index for index, cluster in enumerate(item.clusters) if cluster < shown[id(item)]]
            if keep:
                result.append(
                    evolve(
                        item,
                        glyphs=tuple(item.glyphs[i] for i in keep),
                        positions=tuple(item.positions[i] for i in keep),
                        clusters=tuple(item.clusters[i] for i in keep),
                    )
                )
        elif isinstance(item, Group):
            result.append(evolve(item, items=tuple(_shown(item.items, shown))))
        else:
            result.append(item)
    return result


def _decorated(rect: Rect, runs: Sequence[GlyphRun]) -> GlyphRun | None:
    """The run a highlight, underline or strike-through rectangle belongs to: typesetting
    gives it exactly the run's x and width, on the run's line."""
    near = [run for run in runs if run.x == rect.x and run.width == rect.width and abs(rect.y - run.y) < 2 * run.size]
    return min(near, key=lambda run: abs(rect.y - run.y), default=None)


def _typed_extent(run: GlyphRun, characters: int) -> tuple[float, float] | None:
    """From where to where along the run (px from its x) its typed glyphs reach, each
    glyph to where the next one starts; None when none is typed yet."""
    edges = [position[0] for position in run.positions] + [run.width]
    typed = [index for index, cluster in enumerate(run.clusters) if cluster < characters]
    if not typed:
        return None
    return min(edges[index] for index in typed), max(edges[index + 1] for index in typed)
