"""The ``plotly`` settings of earlier charts, read as the engine's chart fields: each
migrated key draws the chart as its native field does (compared on the decoded PNG and
the Scene's text), every other key is ignored with a warning naming it, in templates,
modifications and the results of render and prepare; nothing needs a browser."""

from __future__ import annotations

import pytest

import templatekit as tk
from templatekit.layout.charts.style import PALETTE
from tests.conftest import decode
from tests.templatekit.layout.charts.test_native import POINTS, RED, SERIES, chart, drawn, pixels_near, texts

# plotly settings, chart type, and the native fields they become
MIGRATED = [
    ({"title": "Revenue"}, "bar", {"title": "Revenue"}),
    ({"title": {"text": "Revenue"}}, "line", {"title": "Revenue"}),
    ({"showlegend": False}, "bar", {"legend": False}),
    ({"colorway": [RED, "#2563eb"]}, "bar", {"colors": [RED, "#2563eb"]}),
    ({"barmode": "stack"}, "bar", {"stacked": True}),
    ({"barmode": "relative"}, "horizontalBar", {"stacked": True}),
    ({"font": {"family": "'Dancing Script', cursive"}}, "bar", {"font": "Dancing Script"}),
    ({"yaxis": {"tickformat": ".0%"}}, "line", {"valueFormat": ".0%"}),
    ({"yaxis": {"tickformat": "$,.2f"}}, "area", {"valueFormat": "$,.2f"}),
    ({"yaxis": {"tickprefix": "$"}}, "bar", {"valueFormat": "${,}"}),
    ({"xaxis": {"ticksuffix": " kg", "tickformat": ".1f", "separatethousands": True}}, "horizontalBar",
     {"valueFormat": "{,.1f} kg"}),
]  # fmt: skip
IDS = [next(iter(settings)) + f"-{kind}" for settings, kind, _ in MIGRATED]


@pytest.mark.parametrize(("settings", "kind", "native"), MIGRATED, ids=IDS)
def test_each_migrated_key_draws_the_chart_as_its_native_field(settings, kind, native):
    migrated = tk.render_image(chart(kind, SERIES, plotly=settings))
    assert migrated.warnings == ()
    assert migrated.data == tk.render_image(chart(kind, SERIES, **native)).data
    assert migrated.data != tk.render_image(chart(kind, SERIES)).data  # the setting changes the chart


def test_the_title_and_value_format_are_drawn_as_text():
    items, warnings = drawn(
        chart("bar", POINTS, plotly={"title": {"text": "Units sold"}, "yaxis": {"tickprefix": "$"}})
    )
    assert warnings == ()
    assert "Units sold" in texts(items) and {"$0", "$5"} <= set(texts(items))


def test_colorway_colours_the_series_and_showlegend_hides_their_names():
    data = chart("bar", SERIES, plotly={"colorway": [RED, "#2563eb"], "showlegend": False})
    image = decode(tk.render_image(data).data)
    assert pixels_near(image, RED) > 500 and pixels_near(image, PALETTE[0].hex) == 0
    items, _ = drawn(data)
    assert "North" not in texts(items) and "North" in texts(drawn(chart("bar", SERIES))[0])


def test_plotly_settings_win_over_the_layer_fields_as_they_did():
    loaded = tk.load_template(
        chart("bar", SERIES, title="Old", stacked=True, plotly={"title": "New", "barmode": "group"})
    )
    assert (loaded.layers[0].title, loaded.layers[0].stacked) == ("New", False)


@pytest.mark.parametrize(
    ("settings", "kind", "paths"),
    [
        ({"hovermode": False}, "bar", ["hovermode"]),
        ({"yaxis": {"gridcolor": "red", "tickformat": ".0%"}}, "bar", ["yaxis.gridcolor"]),
        ({"title": {"text": "T", "font": {"size": 30}}}, "bar", ["title.font"]),
        ({"font": {"size": 30, "color": "red"}}, "bar", ["font.size", "font.color"]),
        ({"legend": {"orientation": "h"}, "bargap": 0.1}, "bar", ["legend", "bargap"]),
        ({"barmode": "stack"}, "area", ["barmode"]),  # Plotly's bar mode never stacked areas
        ({"barmode": "overlay"}, "bar", ["barmode"]),
        ({"xaxis": {"tickformat": ".0%"}}, "bar", ["xaxis"]),  # the category axis
        ({"yaxis": {"tickformat": "~s"}}, "bar", ["yaxis.tickformat"]),  # not in the format language
        ({"yaxis": {"tickformat": ".1f"}}, "pie", ["yaxis"]),
        ({"colorway": ["nope"]}, "bar", ["colorway"]),
        ({"showlegend": "yes"}, "bar", ["showlegend"]),
    ],
)
def test_a_key_without_an_equivalent_is_ignored_with_a_warning_naming_it(settings, kind, paths):
    result = tk.render_image(chart(kind, SERIES, plotly=settings))
    suffix = ": charts have no such setting (Plotly draws whole figures only); ignored"
    assert list(result.warnings) == [f"layers[0].plotly.{path}{suffix}" for path in paths]
    assert tk.prepare(chart(kind, SERIES, plotly=settings)).warnings == result.warnings
    assert tk.load_template(chart(kind, SERIES, plotly=settings)).load_warnings == result.warnings


def test_a_modification_with_plotly_settings_sets_the_chart_fields_and_warns_of_the_rest():
    modifications = [{"name": "sales", "plotly": {"title": "By modification", "bargap": 0.2}, "chartType": "line"}]
    items, warnings = drawn(chart("bar", SERIES), modifications)
    assert "By modification" in texts(items)
    assert warnings == (
        "modifications[0].plotly.bargap: charts have no such setting (Plotly draws whole figures only); ignored",
    )
    line, _ = drawn(chart("bar", SERIES), [{"name": "sales", "plotly": {"barmode": "stack"}, "chartType": "line"}])
    assert line == drawn(chart("line", SERIES))[0]  # read for the chart type the modification sets


def test_plotly_settings_that_are_not_an_object_are_ignored_with_a_warning():
    result = tk.render_image(chart("bar", SERIES, plotly=["title"]))
    assert result.warnings == ("layers[0].plotly: must be an object of Plotly layout settings; ignored",)
    assert tk.render_image(chart("bar", SERIES, plotly=None)).warnings == ()


def test_strict_reading_migrates_and_the_template_round_trips_without_plotly():
    loaded = tk.load_template(chart("bar", SERIES, plotly={"showlegend": False, "hovermode": False}), strict=True)
    assert loaded.layers[0].legend is False
    assert loaded.load_warnings == (
        "layers[0].plotly.hovermode: charts have no such setting (Plotly draws whole figures only); ignored",
    )
    assert not hasattr(loaded.layers[0], "plotly")
