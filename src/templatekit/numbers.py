"""Numbers on charts: nice axis ticks, and formatting values as people write them.

``valueFormat`` is a small language after d3-format: an optional prefix, the spec, an
optional suffix. Without braces, leading currency signs are the prefix (``$,.0f``,
``€,.2f``); with braces the prefix and suffix are any text (``{,.1f} kg``). The spec is
``[,][.N][type]``: ``,`` groups thousands, ``N`` is the number of decimals (significant
digits for ``s``), and the type is ``f`` (fixed), ``d`` (whole), ``%`` (times 100, with a
percent sign) or ``s`` (SI: 1.2k, 3.4M, 5B). Without a format, values are written with
thousands separators and the decimals the axis step needs, or in SI when they reach
ten thousand.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache

from attrs import evolve, frozen

_SPEC = re.compile(r"(?P<comma>,)?(?:\.(?P<precision>\d+))?(?P<kind>[fd%s])?")
_CURRENCY = "$€£¥₹₩₽₺₪¢₫฿₴₦"
#: A spec among words, which are kept as written: one with a grouping comma or a
#: precision, not touching a letter, digit or mark of another (the "s" of "units" is no spec)
_SPEC_IN_TEXT = re.compile(r"(?<![A-Za-z\d.,])(?:,?\.\d+[fd%s]?|,[fd%s]?)(?![A-Za-z\d.])")
MINUS = "\u2212"
_SI = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))
#: Values nearer zero than this are zero to an axis (a step a fifth of theirs would
#: leave the floats' range).
_TINY = 1e-290


class FormatError(ValueError):
    """A valueFormat the language does not have."""


@frozen
class NumberFormat:
    prefix: str = ""
    suffix: str = ""
    comma: bool = True
    precision: int | None = None
    kind: str = "f"
    unit: float | None = None  # SI: every value in this unit (an axis reads 0.5M, 1M, not 500k, 1M)
    group: str = ","  # the locale's characters for grouping digits and for the decimal mark
    decimal: str = "."

    def localized(self, locale: str) -> NumberFormat:
        """This format with ``locale``'s own grouping and decimal characters (``,`` groups
        digits and ``.`` marks decimals, whatever characters the locale writes them with)."""
        group, decimal = _symbols(locale)
        return self if (group, decimal) == (self.group, self.decimal) else evolve(self, group=group, decimal=decimal)

    @classmethod
    def parse(cls, text: str) -> NumberFormat:
        """A format from ``valueFormat`` text; raises FormatError naming what is wrong."""
        prefix, suffix, spec = "", "", text
        if "{" in text or "}" in text:
            found = re.fullmatch(r"(?P<prefix>[^{}]*)\{(?P<spec>[^{}]*)\}(?P<suffix>[^{}]*)", text)
            if found is None:
                raise FormatError(f"{text!r}: braces must hold the number's spec, once, e.g. '{{,.1f}} kg'")
            prefix, spec, suffix = found["prefix"], found["spec"], found["suffix"]
        while spec and spec[0] in _CURRENCY:
            prefix, spec = prefix + spec[0], spec[1:]
        parsed = _SPEC.fullmatch(spec)
        inside = None if parsed is not None or "{" in text else _SPEC_IN_TEXT.search(text)
        if inside is not None:  # words around the spec: ',.0f kg', 'USD ,.2f'
            prefix, suffix = text[: inside.start()], text[inside.end() :]
            parsed = _SPEC.fullmatch(inside.group())
        if parsed is None:
            raise FormatError(
                f"{text!r}: the spec is [,][.N][f|d|%|s], e.g. ',.2f', '.0%', '$,.0f', '.3s' or ',.1f kg'"
            )
        precision = parsed["precision"]
        return cls(prefix, suffix, bool(parsed["comma"]), int(precision) if precision else None, parsed["kind"] or "f")

    def __call__(self, value: float) -> str:
        """The value as text; negative numbers take a true minus sign, before the prefix
        (−$1,200)."""
        number = self._number(value)
        negative = number.startswith("-")
        if negative:
            number = number[1:]
            negative = bool(number.strip("0.,%kMBT"))  # a value that rounds to zero has no sign
        if (self.group, self.decimal) != (",", "."):
            number = number.translate({ord(","): self.group, ord("."): self.decimal})
        return f"{MINUS if negative else ''}{self.prefix}{number}{self.suffix}"

    def _number(self, value: float) -> str:
        grouping = "," if self.comma else ""
        if self.kind == "%":
            return _fixed(value * 100, 0 if self.precision is None else self.precision, grouping) + "%"
        if self.kind == "d":
            return _fixed(value, 0, grouping)
        if self.kind == "s":
            return _si(value, self.precision, self.unit)
        if self.kind == "e":  # axes of tiny values only: not in the valueFormat language
            return f"{value:.{self.precision or 0}e}" if value else "0"
        return _fixed(value, 0 if self.precision is None else self.precision, grouping)


@lru_cache(maxsize=256)  # locales come from the templates of every tenant
def _symbols(locale: str) -> tuple[str, str]:
    """The characters ``locale`` groups digits and marks decimals with (ICU's)."""
    if locale in ("en-US", "en"):
        return ",", "."
    import icu  # charts in other locales only

    symbols = icu.DecimalFormatSymbols(icu.Locale.forLanguageTag(locale))
    group = symbols.getSymbol(icu.DecimalFormatSymbols.kGroupingSeparatorSymbol)
    return str(group), str(symbols.getSymbol(icu.DecimalFormatSymbols.kDecimalSeparatorSymbol))


def _fixed(value: float, decimals: int, grouping: str) -> str:
    """``value`` with ``decimals`` decimals, halves rounded away from zero as people
    (and spreadsheets) round them: 1234.5 -> 1,235."""
    exact = Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return f"{exact:{grouping}.{decimals}f}"


def _si(value: float, digits: int | None, unit: float | None) -> str:
    """A value with an SI suffix: 1500 -> 1.5k, 2000000 -> 2M; in ``unit`` when given
    (500000 in millions -> 0.5M); ``digits`` significant digits when given, else as few
    as show it (to two decimals)."""
    magnitude = abs(value) if unit is None else unit
    size, suffix = next(((size, suffix) for size, suffix in _SI if magnitude >= size), (1.0, ""))
    scaled = value / size
    if digits:
        text = f"{scaled:.{digits}g}"
    else:
        text = _fixed(scaled, 2, "").rstrip("0").rstrip(".")
    return f"{text}{suffix}" if scaled else "0"


def auto_format(ticks: list[float]) -> NumberFormat:
    """The format an axis with these ticks reads best in: SI from ten thousand up,
    scientific below a ten-thousandth, else thousands separators and the decimals the
    ticks need. SI ticks share the unit of the largest: 0, 0.5M, 1M."""
    if not ticks:
        return NumberFormat()
    largest = max(abs(t) for t in ticks)
    if largest >= 10_000:
        return NumberFormat(kind="s", unit=largest)
    if 0 < largest < 1e-4:  # as Chart.js writes them: 2.5e-12, where decimals would all be 0
        digits = next((d for d in range(7) if all(abs(float(f"{t:.{d}e}") - t) <= largest * 1e-9 for t in ticks)), 6)
        return NumberFormat(kind="e", precision=digits)
    decimals = next((d for d in range(7) if all(abs(round(t, d) - t) < 1e-9 for t in ticks)), 6)
    return NumberFormat(precision=decimals)


def nice_ticks(low: float, high: float, intervals: float) -> list[float]:
    """The best of ``tick_choices``: round ticks about ``intervals`` intervals apart."""
    return tick_choices(low, high, intervals)[0]


def tick_choices(low: float, high: float, intervals: float) -> list[list[float]]:
    """Evenly spaced round values covering ``low``..``high`` (the first at or below
    ``low``, the last at or above ``high``) for each step of 1, 2 or 5 times a power of
    ten, from a fifth of the step ``intervals`` asks for to one that needs a single
    interval; best first. A step is the better the nearer its number of intervals comes to
    ``intervals`` and the more of its span the data fills (both as ratios, so that a
    step two times too fine and one that leaves half the span empty weigh alike): always
    rounding the step up, as a count taken as a limit does, would leave up to 2.5 times
    fewer ticks than asked."""
    if high < low:
        low, high = high, low
    span = high - low
    if span < _TINY or span <= max(abs(low), abs(high)) * 1e-9:  # one value, or values apart by float noise
        high = low + (abs(low) if abs(low) >= _TINY else 1.0)
    intervals = max(1.0, intervals)
    step = _nice_step((high - low) / intervals / 5)
    choices = [_ticks(low, high, step)]
    while step < high - low:
        step = _nice_step(step * 1.0001)
        choices.append(_ticks(low, high, step))
    return sorted(choices, key=lambda ticks: _misfit(ticks, low, high, intervals))


def _misfit(ticks: list[float], low: float, high: float, intervals: float) -> float:
    """How far ticks are from ``intervals`` intervals and from a span the data fills."""
    return abs(math.log((len(ticks) - 1) / intervals)) - math.log((high - low) / (ticks[-1] - ticks[0]))


def _ticks(low: float, high: float, step: float) -> list[float]:
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [float(f"{n * step:.12g}") + 0.0 for n in range(first, last + 1)]  # without float noise, at any scale


def _nice_step(raw: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten at least ``raw``."""
    power = 10 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 5, 10):
        if raw <= multiple * power * (1 + 1e-9):
            return multiple * power
    return 10 * power
