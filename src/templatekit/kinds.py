"""Layer kinds added by an application: one module defines a kind's model (an attrs
class deriving from ``Layer``) and its layout (a function giving Scene items), and adds
both here. From then on templates load it, modifications set its fields and are
checked against them, every output draws it, and the JSON Schema describes it. (The
server's render workers are separate processes that load the built-in kinds only.)

    @frozen(kw_only=True)
    class Badge(Layer):
        TYPE = "badge"
        MAIN_FIELD = "label"
        label: str = ""

    def layout(layer: Badge, ctx: LayoutContext) -> list[Item]: ...

    add_layer_kind(Badge, layout)
"""

from __future__ import annotations

import attrs

from templatekit.apply import forget_fields
from templatekit.layout.compose import ADDED_LAYOUTS, LayoutFn
from templatekit.model.layers import BUILT_IN_KINDS, LAYER_KINDS, Layer


def add_layer_kind(model: type[Layer], layout: LayoutFn) -> None:
    """Add a layer kind: ``model.TYPE`` names it in templates; ``model.MAIN_FIELD`` is
    the field a plain modification value sets (None: none)."""
    kind = getattr(model, "TYPE", None)
    if not isinstance(model, type) or not attrs.has(model) or not issubclass(model, Layer):
        raise TypeError(f"{model!r}: a layer kind is an attrs class deriving from templatekit Layer")
    if not isinstance(kind, str) or not kind or kind == "unknown":
        raise ValueError(f"{model.__name__}: TYPE must name the kind, e.g. TYPE = 'badge'")
    if kind in BUILT_IN_KINDS or (kind in LAYER_KINDS and LAYER_KINDS[kind] is not model):
        raise ValueError(f"layer kind {kind!r} exists already")
    main = model.MAIN_FIELD
    if main is not None and main not in attrs.fields_dict(model):
        raise ValueError(f"{model.__name__}: MAIN_FIELD {main!r} is not one of its fields")
    LAYER_KINDS[kind] = model  # type: ignore[assignment]  # AnyLayer types the built-in kinds
    ADDED_LAYOUTS[kind] = layout
    forget_fields()
