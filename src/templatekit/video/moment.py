"""A video template's Scene at any moment: each layer's laid-out group as the timeline
says it looks then, so that a still, a PDF and a frame of the video at that time are the
same Scene, drawn by the same painters.

A layer not on screen is left out. One on screen is faded, moved, scaled and turned about
the centre of its box by its group's transform; the ken-burns zoom enlarges its group
about the focus point inside the box (cut to it); the typewriter keeps the glyphs of the
text shown so far; animated effects and an image's animated filters are laid out again
with their values at that moment (to a hundredth of their unit). As in a video, the
moment is over black.
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import evolve

from templatekit.layout.compose import layer_effects
from templatekit.model.layers import COLOURS, FILTERS, Layer
from templatekit.model.template import Template
from templatekit.model.values import Color
from templatekit.scene import Clip, Effects, Group, Item, Rect, Scene
from templatekit.scene.geometry import Transform
from templatekit.video.reveal import reveal, revealed_count
from templatekit.video.timeline import LayerState, Timeline, with_effects

BLACK = Color(0, 0, 0)
#: A layer laid out again (with the values of its effects and filters at a moment).
Relayout = Callable[[Layer], list[Item]]


def scene_at(template: Template, scene: Scene, time: float, relayout: Relayout) -> Scene:
    """``scene`` (the template laid out) as the video shows it at ``time`` seconds."""
    assert template.video is not None
    timeline = Timeline(template.video.duration, template.width, template.height)
    layers = {layer.name: layer for layer in template.layers}
    items: list[Item] = []
    for item in scene.items:
        layer = layers.get(item.label) if isinstance(item, Group) and item.label else None
        if layer is None or not isinstance(item, Group):
            items.append(item)
            continue
        group = group_at(
            layer, with_children_at(layer, item, timeline, time, relayout), timeline.state(layer, time), relayout
        )
        if group is not None:
            items.append(group)
    return over_black(evolve(scene, items=tuple(items)))


def with_children_at(layer: Layer, group: Group, timeline: Timeline, time: float, relayout: Relayout) -> Group:
    """A frame's laid-out ``group`` with the layers it holds as they look at ``time``
    (each placed in the frame as the timeline says; layout itself does not move)."""
    children = {child.name: child for child in getattr(layer, "layers", ())}
    if not children or all(timeline.is_still(child) for child in children.values()):
        return group

    def at(items: tuple[Item, ...]) -> tuple[Item, ...]:
        shown: list[Item] = []
        for item in items:
            child = children.get(item.label) if isinstance(item, Group) and item.label else None
            if child is None:
                shown.append(evolve(item, items=at(item.items)) if isinstance(item, Group) else item)
                continue
            assert isinstance(item, Group)
            inner = with_children_at(child, item, timeline, time, relayout)
            placed = group_at(child, inner, timeline.state(child, time), relayout)
            if placed is not None:
                shown.append(placed)
        return tuple(shown)

    return evolve(group, items=at(group.items))


def with_items_of(group: Group, items: dict[str, tuple[Item, ...]]) -> Group:
    """``group`` with the group of each layer named in ``items`` (at any depth) holding
    those items in place of its own (a clip's frame, a caption's words at a moment)."""

    def at(parts: tuple[Item, ...]) -> tuple[Item, ...]:
        shown: list[Item] = []
        for item in parts:
            if isinstance(item, Group):
                held = items.get(item.label) if item.label else None
                item = evolve(item, items=held if held is not None else at(item.items))
            shown.append(item)
        return tuple(shown)

    return evolve(group, items=at(group.items)) if items else group


def over_black(scene: Scene) -> Scene:
    """``scene`` over black, as a video shows it (a frame has no transparency)."""
    background = scene.background
    if background is not None and background.a == 255:
        return scene
    under = () if background is None else (Rect(0, 0, scene.width, scene.height, background),)
    return evolve(scene, background=BLACK, items=(*under, *scene.items))


def effect_values(state: LayerState) -> tuple[tuple[str, float | Color], ...]:
    """The state's effect, filter and colour values, numbers to a hundredth of their
    unit: equal values draw equal pixels."""
    return tuple((name, value if isinstance(value, Color) else round(value, 2)) for name, value in state.effects)


def with_effect_values(
    layer: Layer, group: Group, values: tuple[tuple[str, float | Color], ...], relayout: Relayout
) -> Group:
    """The layer's ``group`` with its effects (and, for an image, its filters, and its
    colours: laid out again) as the keyframes set them at a moment."""
    changed = with_effects(layer, values)
    content = any(name in FILTERS or name in COLOURS for name, _ in values)
    items = relayout(changed) if content else list(group.items)
    return evolve(group, items=tuple(items), effects=layer_effects(changed))


def group_at(layer: Layer, group: Group, state: LayerState, relayout: Relayout) -> Group | None:
    """The layer's laid-out ``group`` as ``state`` shows it; None when it is not seen."""
    if not seen(group, state):
        return None
    return placed_at(layer, content_at(layer, group, state, relayout), state)


def seen(group: Group, state: LayerState) -> bool:
    return state.visible and group.opacity * state.opacity > 0


def content_at(layer: Layer, group: Group, state: LayerState, relayout: Relayout) -> Group:
    """The layer's laid-out ``group`` with its content at the moment of ``state``, where
    the layout put it: effects and filters at their values, the text typed so far."""
    values = effect_values(state)
    if values:
        group = with_effect_values(layer, group, values, relayout)
    if state.reveal < 1:
        group = evolve(group, items=tuple(reveal(group.items, revealed_count(group, state.reveal))))
    return group


def placed_at(layer: Layer, group: Group, state: LayerState) -> Group:
    """``group`` (the layer's content in its box) as ``state`` places it: faded, moved,
    scaled and turned about the centre of the box, its content zoomed inside the box
    about the focus point (ken-burns), blending with what is under it as the layer does."""
    opacity = group.opacity * state.opacity
    centre = (layer.x + layer.width / 2, layer.y + layer.height / 2)
    rotation = layer.rotation if state.rotation is None else state.rotation
    placed = Transform.turn(rotation, centre).then(Transform.zoom(state.scale, centre, state.dx, state.dy))
    if state.zoom == 1:
        return evolve(group, opacity=opacity, transform=placed)
    focus = (layer.x + state.focus[0] * layer.width, layer.y + state.focus[1] * layer.height)
    blend, inner = split_blend(group.effects)
    zoomed = evolve(group, opacity=1.0, transform=Transform.zoom(state.zoom, focus), label=None, effects=inner)
    box = Clip(layer.x, layer.y, layer.width, layer.height)
    return Group((zoomed,), opacity=opacity, transform=placed, clip=box, label=group.label, effects=blend)


def split_blend(effects: Effects | None) -> tuple[Effects | None, Effects | None]:
    """``effects`` as how a group blends (None: normal) and the rest (None: nothing)."""
    if effects is None:
        return None, None
    blend = Effects(blend=effects.blend) if effects.blend != "normal" else None
    rest = evolve(effects, blend="normal") if effects.shadows or effects.blur else None
    return blend, rest
