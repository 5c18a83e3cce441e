"""Values written as a locale writes them, by ICU: numbers (decimal, currency, percent)
and ISO 8601 dates, for a text layer's ``format``."""

from __future__ import annotations

import datetime
import math
import threading
import weakref
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import attrs

from templatekit.cache import BoundedCache
from templatekit.lazy_module import LazyModule
from templatekit.model.layers import TableLayer, TextLayer, ValueFormat, replaced_layers, walk_layers
from templatekit.model.template import Template
from templatekit.model.values import cell_text

if TYPE_CHECKING:
    import icu
else:  # imported on first use: templates without formatted values never need it
    icu = LazyModule("icu", globals())

#: ICU's formats are shared (made once each) and are not for two threads at once.
_FORMATTING = threading.Lock()


def format_values(template: Template) -> tuple[Template, list[str]]:
    """``template`` with the text of each layer that has a ``format`` written as it says,
    and a warning for each whose text is not what the format takes (it is drawn as given)."""
    changed: dict[str, Any] = {}
    warnings: list[str] = []
    for layer in walk_layers(template.layers):
        if (
            isinstance(layer, TableLayer)
            and any(column.format for column in layer.columns)
            or isinstance(layer, TextLayer)
            and layer.format is not None
            and not layer.spans
        ):
            written, notes = _written(layer, template.locale)
        else:
            continue
        warnings.extend(notes)
        if written is not layer:
            changed[layer.name] = written
    if not changed:
        return template, warnings
    return attrs.evolve(template, layers=replaced_layers(template.layers, changed)), warnings


#: Layers written out, by the layer object and locale: a layer that no modification
#: changed is the same object at the next render, and so is its written-out form, which
#: layout then reuses instead of setting it again.
_WRITTEN: BoundedCache[tuple[int, str], tuple[weakref.ref[Any], Any, tuple[str, ...]]] = BoundedCache(
    512, max_weight=512
)


def _written(layer: TextLayer | TableLayer, locale: str) -> tuple[Any, tuple[str, ...]]:
    """The layer with its values written out, and the warnings of those that are not values."""
    key = (id(layer), locale)
    done = _WRITTEN.get(key)
    if done is not None and done[0]() is layer:
        return done[1], done[2]
    notes: list[str] = []
    if isinstance(layer, TableLayer):
        written: Any = _formatted_table(layer, locale, notes)
    else:
        assert layer.format is not None
        text = formatted(layer.text, layer.format, locale)
        if text is None:
            notes.append(
                f"layer {layer.name!r}: text {layer.text[:40]!r} is not {_wanted(layer.format)}; drawn as given"
            )
        written = layer if text is None else attrs.evolve(layer, text=text, format=None)
    _WRITTEN.put(key, (weakref.ref(layer), written, tuple(notes)), 1)
    return written, tuple(notes)


def _formatted_table(layer: TableLayer, locale: str, warnings: list[str]) -> TableLayer:
    """The table with the values of its formatted columns written out; a column of
    numbers keeps its numbers' alignment (right)."""
    rows = [dict(row) for row in layer.rows]
    columns = []
    for column in layer.columns:
        if column.format is None:
            columns.append(column)
            continue
        kept = 0
        numeric = False
        for row in rows:
            value = row.get(column.key)
            if value is None or value == "":
                continue
            numeric = numeric or (isinstance(value, (int, float)) and not isinstance(value, bool))
            written = formatted(cell_text(value), column.format, locale)
            if written is None:
                kept += 1
            else:
                row[column.key] = written
        if kept:
            wanted = _wanted(column.format)
            warnings.append(
                f"layer {layer.name!r}: column {column.key!r}: {kept} value(s) not {wanted}; drawn as given"
            )
        align = column.align or ("right" if numeric else None)
        columns.append(attrs.evolve(column, format=None, align=align))
    return attrs.evolve(layer, rows=tuple(rows), columns=tuple(columns))


def _wanted(how: ValueFormat) -> str:
    return "an ISO 8601 date" if how.style in ("date", "datetime") else "a number"


def formatted(value: str, how: ValueFormat, default_locale: str) -> str | None:
    """``value`` written as ``how`` says; None when it is not what the style takes (a
    number, or an ISO 8601 date)."""
    locale = how.locale or default_locale
    if how.style in ("date", "datetime"):
        found = _moment(value)
        if found is None:
            return None
        moment, zone = found
        with _FORMATTING:
            return str(_date_format(how.style, how.date, locale, zone).format(moment))
    number = _number(value)
    if number is None:
        return None
    with _FORMATTING:
        return str(_number_format(how.style, locale, how.currency, how.decimals).format(number))


def _number(value: str) -> float | None:
    try:
        number = float(value.strip().replace("\u2212", "-"))
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _moment(value: str) -> tuple[float, str | None] | None:
    """An ISO 8601 date or date and time as seconds since 1970 (PyICU's dates) and the
    zone it is written in: its offset as ICU names one (``GMT-05:00``), so that it is
    shown at the wall time written and a long format names that offset; None for a time
    with no offset, which is shown at its wall time and names no zone."""
    try:
        moment = datetime.datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    offset = moment.utcoffset()
    if offset is None:
        return moment.replace(tzinfo=datetime.UTC).timestamp(), None
    minutes = round(offset.total_seconds() / 60)
    if minutes == 0:
        return moment.timestamp(), "UTC"
    sign = "-" if minutes < 0 else "+"
    return moment.timestamp(), f"GMT{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


@lru_cache(maxsize=256)  # locales and currencies come from the templates of every tenant
def _number_format(style: str, locale: str, currency: str | None, decimals: int | None) -> Any:
    where = icu.Locale.forLanguageTag(locale)
    if style == "currency":
        number_format = icu.NumberFormat.createCurrencyInstance(where)
        number_format.setCurrency(currency.upper() if currency else "USD")
    elif style == "percent":
        number_format = icu.NumberFormat.createPercentInstance(where)
    else:
        number_format = icu.NumberFormat.createInstance(where)
    if decimals is not None:
        number_format.setMinimumFractionDigits(decimals)
        number_format.setMaximumFractionDigits(decimals)
    # halves away from zero, as JavaScript's Intl.NumberFormat (ICU's own default is to even)
    number_format.setRoundingMode(icu.DecimalFormat.kRoundHalfUp)
    return number_format


def _date_style(length: str) -> int:
    """ICU's date style of a length ("short", "medium", "long" or "full")."""
    return int(getattr(icu.DateFormat, f"k{length.capitalize()}"))


@lru_cache(maxsize=256)
def _date_format(style: str, length: str, locale: str, zone: str | None) -> Any:
    """ICU's format; a time with no zone is at most "medium" (a longer one names its
    zone, and it has none to name)."""
    where = icu.Locale.forLanguageTag(locale)
    if style == "date":
        date_format = icu.DateFormat.createDateInstance(_date_style(length), where)
    else:
        time_length = length if zone is not None or length in ("short", "medium") else "medium"
        date_format = icu.DateFormat.createDateTimeInstance(_date_style(length), _date_style(time_length), where)
    date_format.setTimeZone(icu.TimeZone.createTimeZone(zone or "UTC"))
    return date_format
