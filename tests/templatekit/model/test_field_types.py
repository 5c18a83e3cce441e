"""Each field's type, resolved once per annotation text for the class that declares it,
is what ``typing.get_type_hints`` makes of the same annotation, on every class of the
model, inherited fields included."""

from __future__ import annotations

import typing

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
