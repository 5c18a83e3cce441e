"""Each field's type, read once for the class that declares it, is what
``typing.get_type_hints`` makes of the same annotation: on every class of the model,
inherited fields included, and on the awkward classes a layer kind added at run time
may be (a field named as its type, a quoted name inside an annotation, a type given as
text)."""

from __future__ import annotations

import typing
from datetime import date

import attr
import attrs

import templatekit.model.layers
import templatekit.model.template
import templatekit.model.values
from templatekit.model.schema import field_types

MODULES = (templatekit.model.layers, templatekit.model.template, templatekit.model.values)


def model_classes() -> list[type]:
    return [
        value
        for module in MODULES
        for value in vars(module).values()
        if isinstance(value, type) and attrs.has(value) and value.__module__ == module.__name__
    ]


def test_every_model_class_has_the_field_types_typing_reads():
    classes = model_classes()
    assert len(classes) > 40
    for cls in classes:
        hints = typing.get_type_hints(cls)
        expected = {attribute.name: hints[attribute.name] for attribute in attrs.fields(cls)}
        assert field_types(cls) == expected, cls.__name__
        assert all(not isinstance(attribute.type, str) for attribute in attrs.fields(cls)), cls.__name__


@attrs.frozen
class Item:
    name: str = ""


@attrs.frozen
class Awkward:
    date: date | None = None  # the class's body has a ``date`` too: the module's is meant
    items: tuple["Item", ...] = ()  # noqa: UP037  # a quoted name inside


@attrs.frozen
class AwkwardKind(Awkward):
    more: list[Item] = attrs.Factory(list)


@attr.s(frozen=True)
class GivenAsText:
    value = attr.ib(type="int", default=0)


def test_awkward_annotations_read_as_typing_reads_them():
    for cls in (Awkward, AwkwardKind):
        hints = typing.get_type_hints(cls)
        assert field_types(cls) == {attribute.name: hints[attribute.name] for attribute in attrs.fields(cls)}
    assert field_types(AwkwardKind)["items"] == tuple[Item, ...]
    assert field_types(GivenAsText) == {"value": "int"}  # as attrs.resolve_types leaves it
