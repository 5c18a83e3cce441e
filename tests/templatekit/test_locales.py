"""Values formatted by locale: a text layer's ``format`` writes its value as ICU writes it
for the locale, in every output; what is not a value is drawn as given, with a warning."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

import templatekit as tk
from templatekit.batch import csv_rows
from templatekit.locales import formatted
from templatekit.model.layers import ValueFormat
from templatekit.options import RenderOptions
from templatekit.pipeline import resolve
from tests.conftest import layer, template

NBSP = "\u00a0"
NNBSP = "\u202f"  # ICU's space before AM and PM


def priced(text: str, **format_fields: Any) -> dict[str, Any]:
    how = {"style": "currency", "currency": "EUR", **format_fields}
    return template(layer("text", "price", width=380, height=60, text=text, size=32, format=how), locale="de-DE")


def pdf_text(data: bytes) -> str:
    pdfium = pytest.importorskip("pypdfium2")
    page = pdfium.PdfDocument(io.BytesIO(data))[0]
    return page.get_textpage().get_text_range().replace(NBSP, " ")


def test_an_amount_in_german_euros_reads_back_from_the_pdf():
    assert "1.234,50 €" in pdf_text(tk.render_pdf(priced("1234.5")).data)
    assert "1.234,50 €" in pdf_text(tk.render_pdf(priced("0"), {"price": "1234.5"}).data)  # a modification's text


def test_a_csv_cell_is_formatted_as_the_template_says(tmp_path: Path):
    (tmp_path / "rows.csv").write_text("price\n1234.5\n", encoding="utf-8")
    loaded = tk.load_template(priced("0"))
    rows, _ = csv_rows(loaded, tmp_path / "rows.csv")
    (item,) = tk.render_many(loaded, [row.modifications for row in rows], format="pdf", workers=1)
    assert item.ok and "1.234,50 €" in pdf_text(item.result.data)


@pytest.mark.parametrize(
    ("value", "how", "locale", "written"),
    [
        ("2026-11-26", {"style": "date", "date": "long"}, "ja-JP", "2026年11月26日"),
        ("2026-11-26", {"style": "date", "date": "full"}, "en-US", "Thursday, November 26, 2026"),
        ("2026-11-26T14:30:00+01:00", {"style": "datetime", "date": "short"}, "en-GB", "26/11/2026, 14:30"),
        # a long time names the zone it was written in, and a time written with none names none
        (
            "2026-11-26T14:30:00-05:00",
            {"style": "datetime", "date": "long"},
            "en-US",
            f"November 26, 2026 at 2:30:00{NNBSP}PM GMT-5",
        ),
        (
            "2026-11-26T14:30:00Z",
            {"style": "datetime", "date": "long"},
            "en-US",
            f"November 26, 2026 at 2:30:00{NNBSP}PM UTC",
        ),
        (
            "2026-11-26T14:30:00",
            {"style": "datetime", "date": "full"},
            "de-DE",
            "Donnerstag, 26. November 2026 um 14:30:00",
        ),
        ("0.256", {"style": "percent", "decimals": 1}, "fr-FR", f"25,6{NBSP}%"),
        ("-1234567.891", {"decimals": 2}, "hi-IN", "-12,34,567.89"),
        ("1234.5", {"style": "currency", "currency": "JPY"}, "en-US", "¥1,235"),
    ],
)
def test_values_are_written_as_the_locale_writes_them(value, how, locale, written):
    assert formatted(value, ValueFormat(**how), locale) == written


@pytest.mark.parametrize("locale", ["ja-JP", "zh-CN", "ko-KR"])
def test_a_price_in_an_east_asian_locale_has_every_glyph(locale):
    """ICU writes ja-JP yen with the full-width sign (U+FFE5): the bundled faces draw it."""
    price = layer("text", "price", width=300, height=60, text="1234.5",
                  format={"style": "currency", "currency": "JPY", "locale": locale})  # fmt: skip
    rendered = tk.render_image(template(price, width=300, height=60))
    assert rendered.warnings == ()


def test_text_that_is_not_a_value_is_drawn_as_given_with_a_warning_naming_the_layer():
    result = tk.render_pdf(priced("on request"))
    assert "on request" in pdf_text(result.data)
    assert result.warnings == ("layer 'price': text 'on request' is not a number; drawn as given",)


def test_a_wrong_locale_or_a_currency_without_its_code_is_refused_with_the_field():
    with pytest.raises(tk.TemplateError) as error:
        tk.load_template({**priced("1"), "locale": "no such!"}, strict=True)
    assert "locale: must be a BCP 47 language tag" in str(error.value)
    with pytest.raises(tk.TemplateError) as error:
        tk.load_template(template(layer("text", "t", text="1", format={"style": "currency"})), strict=True)
    assert "layers[0].format.currency: a currency format needs its ISO 4217 code" in str(error.value)


def test_a_table_column_is_formatted_and_keeps_its_numbers_to_the_right():
    rows = [{"item": "Mug", "price": 24}, {"item": "Pot", "price": 1234.5}, {"item": "Gift", "price": "free"}]
    columns = ["item", {"key": "price", "header": "Preis", "format": {"style": "currency", "currency": "EUR"}}]
    spec = template(layer("table", "t", width=380, height=150, rows=rows, columns=columns), locale="de-DE")
    result = tk.render_pdf(spec)
    text = pdf_text(result.data)
    assert "24,00 €" in text and "1.234,50 €" in text and "free" in text
    assert result.warnings == ("layer 't': column 'price': 1 value(s) not a number; drawn as given",)
    resolved, _, _ = resolve(spec, None, RenderOptions())
    assert resolved.layers[0].columns[1].align == "right"


def test_a_chart_writes_its_value_format_with_the_locale_s_characters():
    rows = [{"label": "Q1", "value": 1234.5}, {"label": "Q2", "value": 2345.25}]
    chart = layer("chart", "c", width=380, height=200, chart="bar", rows=rows, valueFormat=",.1f", valueLabels=True)
    german = pdf_text(tk.render_pdf(template(chart, locale="de-DE")).data)
    assert "1.234,5" in german and "2.345,3" in german
    swiss = pdf_text(tk.render_pdf(template({**chart, "locale": "de-CH"}, locale="de-DE")).data)
    assert "1’234.5" in swiss  # the layer's own locale wins
    assert "1,234.5" in pdf_text(tk.render_pdf(template(chart)).data)  # en-US by default


def test_a_layer_no_modification_changed_is_written_out_once_so_that_its_layout_is_reused():
    loaded = tk.load_template(priced("1234.5"))
    first, _, _ = resolve(loaded, None, RenderOptions())
    second, _, _ = resolve(loaded, None, RenderOptions())
    assert first.layers[0] is second.layers[0] and first.layers[0].text == f"1.234,50{NBSP}€"
    changed, _, _ = resolve(loaded, {"price": "5"}, RenderOptions())
    assert changed.layers[0].text == f"5,00{NBSP}€"
