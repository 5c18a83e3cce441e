"""Modifications: normalise the four accepted forms, then apply them to a template.

Applying is a pure function: the template given is never changed, a new one is
returned. Unknown layer names and fields a layer does not have are ignored and
reported as warnings; a value that does not fit its field is a ``ModificationError``.
Sizes come first: the number of modifications and of fields in each is counted before
any is read, and a value's lists and texts are measured against its field's limits
(``templatekit.model.sizes``) before the converter reads it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import attrs
from cattrs.errors import ClassValidationError, IterableValidationError

from templatekit import jsontext
from templatekit.errors import ModificationError, listed
from templatekit.loading import TemplateSource, load_template
from templatekit.model import plotly_settings, sizes
from templatekit.model.convert import SIZE_WORDS, converter, error_lines, json_name, model_problems, shown_value
from templatekit.model.layers import LAYER_KINDS, AnyLayer, ChartLayer, UnknownLayer, replaced_layers, walk_layers
from templatekit.model.modification import Modification
from templatekit.model.schema import field_types
from templatekit.model.template import Template

MAX_MODIFICATIONS = 500
#: Fields one modification may set: more than any layer kind has.
MAX_MODIFIED_FIELDS = 100
_FIXED_FIELDS = frozenset({"type", "name", "id", "layers", "widthSizing", "heightSizing"})

Modifications = list[Any] | dict[str, Any] | str | None


@attrs.frozen
class Applied:
    template: Template
    warnings: tuple[str, ...]


def normalize(modifications: Modifications, template: Template) -> list[Modification]:
    """Turn any accepted form into a list of ``Modification``.

    Forms: a list of ``{"name": layer, field: value, …}`` (or of ``Modification``
    objects); an object keyed by layer
    name whose values are either field objects or a plain value for the layer's main
    field; the JSON text of either; or null.
    """
    if modifications is None:
        return []
    if isinstance(modifications, str):
        if not modifications.strip():
            return []
        try:
            modifications = jsontext.parse(
                modifications, pairs_hook=jsontext.unique_fields, max_values=jsontext.MAX_VALUES
            )
        except jsontext.JSONTextError as exc:
            raise ModificationError(f"modifications: {exc}") from None
        return normalize(modifications, template)
    if not isinstance(modifications, (dict, list)):
        raise ModificationError(
            f"modifications: must be a list, an object, JSON text or null (got {type(modifications).__name__})"
        )
    if len(modifications) > MAX_MODIFICATIONS:
        raise ModificationError(f"modifications: at most {MAX_MODIFICATIONS} allowed (got {len(modifications):,})")
    if isinstance(modifications, dict):
        result = [_from_object_entry(name, value, template) for name, value in modifications.items()]
    else:
        result = [_from_list_item(index, item) for index, item in enumerate(modifications)]
    for number, mod in enumerate(result):
        if len(mod.fields) > MAX_MODIFIED_FIELDS:
            count = len(mod.fields)
            raise ModificationError(
                f"modifications[{number}]: at most {MAX_MODIFIED_FIELDS} fields allowed (got {count:,})"
            )
    return result


def _from_list_item(index: int, item: Any) -> Modification:
    if isinstance(item, Modification):
        return item
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        shown = shown_value(item, 80)
        raise ModificationError(f"modifications[{index}]: must be an object with a string 'name' (got {shown})")
    return Modification(item["name"], {k: v for k, v in item.items() if k != "name"})


def _from_object_entry(name: str, value: Any, template: Template) -> Modification:
    if isinstance(value, dict):
        return Modification(name, dict(value))
    layer = template.layer(name)
    main = layer.MAIN_FIELD if layer is not None else None
    return Modification(name, {main or "": value})


def apply(template: TemplateSource, modifications: Modifications) -> Applied:
    """Return the template (any form ``load_template`` reads) with the modifications
    applied, and the warnings."""
    template = load_template(template)
    warnings: list[str] = []
    changed: dict[str, AnyLayer] = {}
    known = {layer.name: layer for layer in walk_layers(template.layers)}
    for number, mod in enumerate(normalize(modifications, template)):
        where = f"modifications[{number}]"
        layer = changed.get(mod.name) or known.get(mod.name)
        if layer is None:
            warnings.append(f"{where}: no layer named {shown_value(mod.name)}; ignored")
            continue
        changed[mod.name] = _apply_one(layer, mod, where, warnings)
    layers = replaced_layers(template.layers, changed) if changed else template.layers
    applied = attrs.evolve(template, layers=layers)
    if any(layer.mask != known[name].mask for name, layer in changed.items()):
        # masks name other layers: checked on the template as the modifications leave it
        problems = [f"{path}: {message}" for path, message in applied.mask_problems()]
        if problems:
            raise ModificationError("the modifications leave masks that cannot be drawn: " + "; ".join(problems))
    if any(_sizing(layer) != _sizing(known[name]) for name, layer in changed.items()):
        # "hug" and "fill" depend on the frame around: checked as the modifications leave it
        problems = [f"{path}: {message}" for path, message in applied.size_problems()]
        if problems:
            raise ModificationError("the modifications leave sizes that cannot be worked out: " + "; ".join(problems))
    return Applied(applied, tuple(listed(warnings, "warnings")))


def _sizing(layer: AnyLayer) -> tuple[str, str, str | None]:
    """How a layer is sized: its two modes, and a frame's layout (its layers' room)."""
    return layer.width_sizing, layer.height_sizing, getattr(layer, "layout", None)


def _ignored_rating(value: Any) -> str | None:
    """Why a star rating is ignored, if it is: 0 or an empty text (a form field left
    empty, or at 0, does not clear the template's rating)."""
    if value in (0, "0"):
        return "a rating of 0 is ignored"
    if isinstance(value, str) and not value.strip():
        return "an empty rating is ignored"
    return None


def _apply_one(layer: AnyLayer, mod: Modification, where: str, warnings: list[str]) -> AnyLayer:
    if isinstance(layer, UnknownLayer):
        warnings.append(f"{where}: layer {mod.name!r} is of a kind this version does not know; ignored")
        return layer
    fields = _modifiable_fields(layer.TYPE)
    changes: dict[str, Any] = {}
    for key, value in _read_plotly(layer, mod, where, warnings).items():
        if value is None:  # null means "not set" (clients send unset fields as null): the layer keeps its value
            continue
        attribute = fields.get(key)
        if attribute is None:
            shown = (key if len(key) <= 40 else f"{key[:39]}…") if key else "(plain value)"
            warnings.append(f"{where}.{shown}: layer {mod.name!r} ({layer.kind}) has no such field; ignored")
            continue
        ignored = _ignored_rating(value) if layer.TYPE == "star" and key == "star" else None
        if ignored is not None:
            warnings.append(f"{where}.star: {ignored}")
            continue
        name, field_type = attribute
        if key in ("width", "height"):  # a number is the size; "hug" or "fill" a way to size it
            sized_by_layout = value in SIZE_WORDS
            changes[f"{name}_sizing"] = value if sized_by_layout else "fixed"
            if sized_by_layout:
                changes[name] = 1.0
                continue
        oversized = sizes.field_problems(layer.TYPE, key, value)
        if oversized:  # refused by its sizes alone, before the converter reads it
            raise ModificationError(_message(where, key, mod.name, "; ".join(oversized)))
        try:
            changes[name] = converter.structure(value, field_type)
        except (ClassValidationError, IterableValidationError) as exc:
            raise ModificationError(_message(where, key, mod.name, "; ".join(listed(error_lines(exc))))) from None
        except (ValueError, TypeError, KeyError) as exc:
            raise ModificationError(_message(where, key, mod.name, str(exc) or repr(exc))) from None
    if not changes:
        return layer
    for given, (other, unset) in layer.ALTERNATIVES.items():  # new text replaces the spans, …
        if given in changes and other not in changes:
            changes[other] = unset
    updated = attrs.evolve(layer, **changes)
    problems = list(model_problems(updated))
    if problems:
        raise ModificationError(f"{where} (layer {mod.name!r}): " + "; ".join(problems))
    return updated


def _read_plotly(layer: AnyLayer, mod: Modification, where: str, warnings: list[str]) -> dict[str, Any]:
    """The modification's fields, a chart's ``plotly`` settings read as chart fields."""
    if not isinstance(layer, ChartLayer) or plotly_settings.FIELD not in mod.fields:
        return mod.fields
    fields = dict(mod.fields)
    chart_type = fields.get("chartType") or layer.chart_type
    warnings += plotly_settings.migrate(fields, str(chart_type), where)
    return fields


def _message(where: str, key: str, layer: str, detail: str) -> str:
    return f"{where}.{key} (layer {layer!r}): {detail}"


def forget_fields() -> None:
    """Forget the fields known per kind, and the sizes they allow (a kind was added)."""
    _modifiable_fields.cache_clear()
    sizes.forget()


def holds_text_only(kind: str, field: str) -> bool:
    """Whether ``field`` (its JSON name) of layers of ``kind`` holds plain text, so that a
    value typed as text (a CSV cell, ``--set``) is never read as JSON for it: a title of
    ``true`` or ``[Draft] Notes``, a QR code of ``{"id": 1}``."""
    found = _modifiable_fields(kind).get(field) if kind in LAYER_KINDS else None
    return found is not None and found[1] in (str, str | None)


@cache
def _modifiable_fields(kind: str) -> dict[str, tuple[str, Any]]:
    """JSON name -> (attribute name, resolved type) for the fields a modification may set
    on layers of ``kind``."""
    cls = LAYER_KINDS[kind]
    hints = field_types(cls)
    return {
        json_name(a.name): (a.name, hints[a.name]) for a in attrs.fields(cls) if json_name(a.name) not in _FIXED_FIELDS
    }
