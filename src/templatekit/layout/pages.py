"""Pages: a template whose tables have more rows than fit becomes several Scenes.

Page 1 is the design as it is, with the rows that fit each table's box. The rows
that do not fit continue on further pages, in the same box, under a repeated header.
Layers whose top edge is at or below the bottom of an overflowing table (an invoice's
totals and payment terms) come after the rows: they are drawn on the last page only.
Every other layer (a letterhead, addresses, a page frame) is drawn on every page.
"""

from __future__ import annotations

import functools

from templatekit.layout.compose import (
    background_color,
    background_items,
    check_images_fit,
    laid_out_layers,
    layer_group,
    mask_layer_names,
    masked,
    masked_layers,
    reused,
)
from templatekit.layout.context import LayoutContext
from templatekit.layout.table import page_ranges, table_items, table_rows_layout
from templatekit.model.layers import Layer, TableLayer
from templatekit.model.template import Template
from templatekit.scene import Group, Item, Scene


def layout_pages(template: Template, ctx: LayoutContext) -> list[Scene]:
    check_images_fit(template, ctx)
    unmasked = laid_out_layers(template.layers, ctx)
    groups = masked_layers(template.layers, unmasked)
    base = background_items(template, ctx)
    continued = _continued_tables(template, ctx, unmasked)
    page_count = max((len(pages) for pages in continued.values()), default=1)
    last = page_count - 1
    after = {i for i, layer in enumerate(template.layers) if _follows(layer, template, continued)}
    scenes = []
    for page in range(page_count):
        items: list[Item] = list(base)
        for index, group in groups:
            if index in continued:
                slices = continued[index]
                if page < len(slices):
                    items.append(slices[page])
            elif index not in after or page == last:
                items.append(group)
        scenes.append(Scene(template.width, template.height, background_color(template), tuple(items)))
    return scenes


def _continued_tables(
    template: Template, ctx: LayoutContext, unmasked: list[tuple[int, Group]]
) -> dict[int, list[Group]]:
    """For each visible table whose rows continue: its group on each page, masked as its
    mask says. A table drawn only as another layer's mask does not continue: the mask
    is its first page."""
    continued = {}
    masks = mask_layer_names(template.layers)
    drawn = {template.layers[index].name: group for index, group in unmasked}
    by_name = {layer.name: layer for layer in template.layers}
    for index, layer in enumerate(template.layers):
        if not (isinstance(layer, TableLayer) and layer.visible) or layer.name in masks:
            continue
        pages = reused(layer, ctx, "pages", functools.partial(_table_pages, layer, ctx), _pages_bytes)
        if len(pages) > 1:
            continued[index] = [masked(layer, page, drawn, by_name) for page in pages] if layer.mask else pages
    return continued


def _pages_bytes(pages: list[Group]) -> int:
    return sum(page.weight() for page in pages)


def _table_pages(layer: TableLayer, ctx: LayoutContext) -> list[Group]:
    geometry = table_rows_layout(layer, ctx.fonts)
    return [
        layer_group(layer, table_items(geometry, layer.x, layer.y, rows))
        for rows in page_ranges(geometry, layer.height)
    ]


def _follows(layer: Layer, template: Template, continued: dict[int, list[Group]]) -> bool:
    """Whether a layer lies below an overflowing table, so that it comes after its rows."""
    return any(layer.y >= (table := template.layers[i]).y + table.height for i in continued)
