"""Sizes before reading: every list, text and object of a template or a modification is
measured against the limit its schema publishes before anything of it is read, so that
a million-item list costs what its length does; lists are read until their tenth bad
item; SVG path data and markup over their length are never parsed; masks nest at most
16 deep. Costs are measured as the peak of memory traced while the attack runs."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import templatekit as tk
from templatekit.model.path_data import PathDataError, parse_path_data
from templatekit.model.schema import format_schemas
from templatekit.model.template import MAX_MASK_DEPTH
from tests.conftest import layer, template

#: What reading a refused template may take: a few megabytes (a million bad items took
#: 2.2 GB, and 25 s, before sizes came first).
CHEAP = 20_000_000


def peak_of(attack: Callable[[], Any]) -> tuple[int, BaseException]:
    """The peak of memory traced while ``attack`` runs, and the error it raised."""
    tracemalloc.start()
    try:
        attack()
    except tk.TemplatekitError as exc:
        error = exc
    else:
        raise AssertionError("the attack was not refused")
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, error


def table(**fields: Any) -> dict[str, Any]:
    return layer("table", "items", **{"rows": [{"a": 1}], **fields})


def test_a_table_of_half_a_million_columns_is_refused_by_its_length():
    data = template(layer("text", "title"), table(columns=[0] * 500_000))
    peak, error = peak_of(lambda: tk.load_template(data))
    assert str(error).splitlines()[1:] == ["  layers[1].columns: must have at most 100 items (got 500,000)"]
    assert peak < CHEAP, peak


def test_a_modification_of_millions_of_rows_is_refused_before_it_is_read():
    rows = [0] * 2_400_000
    peak, error = peak_of(lambda: tk.render_image(template(table()), {"items": {"rows": rows}}))
    assert str(error) == "modifications[0].rows (layer 'items'): must have at most 10,000 items (got 2,400,000)"
    assert peak < CHEAP, peak  # was 4 GB, 55 s and a 164 MB message


OVER = [
    ("layers", {"layers": [layer("text", f"t{n}") for n in range(501)]}, "layers: must have at most 500 items"),
    ("fonts", {"fonts": [{"family": "F", "src": "f.ttf"}] * 33}, "fonts: must have at most 32 items"),
    ("points", {"layers": [layer("shape", "s", shape="polygon", points=[[0, 0]] * 10_001)]}, "points"),
    ("a point", {"layers": [layer("shape", "s", points=[[0, 0, 0]])]}, "points[0]: must have at most 2 items"),
    ("radii", {"layers": [layer("shape", "s", radii=[0] * 1000)]}, "layers[0].radii: must have at most 4"),
    ("dashes", {"layers": [layer("shape", "s", strokeDash=[1] * 17)]}, "strokeDash: must have at most 16"),
    ("shadows", {"layers": [layer("shape", "s", shadows=[{}] * 9)]}, "shadows: must have at most 8 items"),
    ("animations", {"layers": [layer("text", "t", animations=[{}] * 33)]}, "animations: must have at most 32"),
    (
        "keyframes",
        {"layers": [layer("text", "t", animations=[{"property": "x", "keyframes": [{}] * 1001}])]},
        "layers[0].animations[0].keyframes: must have at most 1,000 items",
    ),
    ("spans", {"layers": [layer("text", "t", spans=[{"text": "a"}] * 1001)]}, "spans: must have at most 1,000"),
    ("a span", {"layers": [layer("text", "t", spans=[{"text": "a" * 20_001}])]}, "spans[0].text: must be at most"),
    ("colours", {"layers": [layer("chart", "c", colors=["red"] * 101)]}, "colors: must have at most 100 items"),
    ("a colour", {"layers": [layer("text", "t", color="#" + "f" * 200)]}, "color: must be at most 100 characters"),
    ("a gradient", {"layers": [layer("text", "t", background={"from": "r" * 101, "to": "red"})]}, "background.from"),
    ("rows", {"layers": [table(rows=[{}] * 10_001)]}, "layers[0].rows: must have at most 10,000 items"),
    ("a row", {"layers": [table(rows=[{str(n): n for n in range(101)}])]}, "rows[0]: must have at most 100 keys"),
    ("a row key", {"layers": [table(rows=[{"k" * 201: 1}])]}, "rows[0]: keys must be at most 200 characters"),
    ("a cell", {"layers": [table(rows=[{"a": "x" * 20_001}])]}, "layers[0].rows[0].a: must be at most 20,000"),
    ("a column", {"layers": [table(columns=[{"key": "k" * 201, "header": "K"}])]}, "columns[0].key: must be at"),
    (
        "series",
        {"layers": [layer("chart", "c", rows=[{"name": "s", "data": [{"label": "a", "value": 1}] * 10_001}])]},
        "layers[0].rows[0].data: must have at most 10,000 items",
    ),
    ("a label", {"layers": [layer("chart", "c", rows=[{"label": "x" * 20_001, "value": 1}])]}, "rows[0].label"),
    ("pairs", {"layers": [layer("keyvalue", "k", rows=[{"key": "a", "value": "b"}] * 1001)]}, "have at most 1,000"),
    ("a name", {"layers": [layer("text", "n" * 201)]}, "layers[0].name: must be at most 200 characters"),
    ("a family", {"layers": [layer("text", "t", font="f" * 201)]}, "layers[0].font: must be at most 200"),
    ("text", {"layers": [layer("text", "t", text="x" * 20_001)]}, "layers[0].text: must be at most 20,000"),
    (
        "a frame's layer",
        {"layers": [layer("text", "a"), layer("frame", "f", layers=[layer("text", "t", text="x" * 20_001)])]},
        "layers[1].layers[0].text: must be at most 20,000",
    ),
    ("a mask", {"layers": [layer("text", "t", mask={"layer": "m" * 201})]}, "mask.layer: must be at most 200"),
    ("an easing", {"layers": [layer("text", "t", animations=[{"preset": "fade-in", "easing": "e" * 201}])]}, "easing"),
]


@pytest.mark.parametrize(("field", "fields", "message"), OVER, ids=[case[0] for case in OVER])
def test_every_list_and_text_is_refused_over_its_limit_naming_its_place(field, fields, message):
    data = {**template(), **fields}
    with pytest.raises(tk.TemplateError) as caught:
        tk.load_template(data)
    assert any(message in problem for problem in caught.value.problems), caught.value.problems


MILLION_BAD_ITEMS = r"""
import resource, sys
import templatekit as tk
from tests.conftest import layer, template
polygons = [layer("shape", f"p{n}", shape="polygon", points=[0] * 10_000) for n in range(100)]
data = template(*polygons)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    tk.load_template(data)
except tk.TemplateError as error:
    problems = error.problems
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
print(grown, len(problems), problems[0], sep="\n")
print("\n".join(problems[1:]))
"""


@pytest.mark.slow  # a million items measured, in a process of its own
def test_a_million_bad_items_in_a_list_within_its_limit_are_read_until_the_tenth():
    """The peak is the process's (tracemalloc made this take 10 s where reading takes 1.7 s)."""
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", MILLION_BAD_ITEMS], capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr
    grown, count, *problems = done.stdout.splitlines()
    assert problems[0] == "layers[0].points[0]: must be a list (got 0)"
    assert "layers[0].points: reading stopped after 10 items that could not be read" in problems
    assert int(count) < 2_000 and len("".join(problems)) < 200_000
    assert int(grown) < 5 * CHEAP, grown


def test_path_data_over_its_length_is_never_parsed():
    arcs = "M0 0 " + "A 5 5 0 0 1 10 10 " * 340_000  # 6 MB: 9.3 s of parsing before its length was checked
    shape = layer("shape", "p", shape="path", path=arcs)
    peak, error = peak_of(lambda: tk.load_template(template(shape)))
    assert str(error).splitlines()[1:] == ["  layers[0].path: must be at most 20,000 characters (got 6,120,005)"]
    assert peak < CHEAP, peak
    with pytest.raises(PathDataError, match="must be at most 20,000 characters"):
        parse_path_data(arcs)  # a template made in Python is refused by the parser itself
    with pytest.raises(tk.ModificationError, match="path .*must be at most 20,000 characters"):
        tk.apply(tk.load_template(template(layer("shape", "p", shape="path", path="M0 0 L1 1"))), {"p": {"path": arcs}})


def test_markup_over_its_length_is_refused_without_being_parsed():
    text = layer("text", "t", markup=True, text="<b>" * 10_000)
    with pytest.raises(tk.TemplateError) as caught:
        tk.load_template(template(text))
    assert caught.value.problems == ["layers[0].text: must be at most 20,000 characters (got 30,000)"]


def test_modifications_are_counted_before_they_are_read():
    base = tk.load_template(template(table()))
    with pytest.raises(tk.ModificationError, match=r"modifications: at most 500 allowed \(got 100,000\)"):
        tk.apply(base, [{"name": "items"}] * 100_000)
    with pytest.raises(tk.ModificationError, match=r"modifications\[0\]: at most 100 fields allowed \(got 5,000\)"):
        tk.apply(base, [{"name": "items", **{f"f{n}": 1 for n in range(5000)}}])
    as_text = "[" + "[]," * 1_000_000 + "[]]"  # JSON text: counted before it is parsed
    peak, error = peak_of(lambda: tk.apply(base, as_text))
    assert str(error) == "modifications: more than 250,000 JSON values (2,000,002 commas, colons and brackets)"
    assert peak < CHEAP, peak
    huge_name = "n" * 5_000_000
    applied = tk.apply(base, [{"name": huge_name}])
    assert len(applied.warnings[0]) < 100  # the name is shown shortened, not echoed


def test_warnings_are_listed_up_to_fifty():
    noisy = {**layer("text", "t"), **{f"unknown{n}": 1 for n in range(10_000)}}
    loaded = tk.load_template(template(noisy))
    assert len(loaded.load_warnings) == 51
    assert loaded.load_warnings[-1] == "… and 9,950 more warnings like these"


def test_messages_show_a_glimpse_of_a_wrong_value_not_all_of_it():
    many = {str(n): n for n in range(100_000)}
    wrong = [layer("text", "t", align=["left"] * 1_000_000), layer("text", "u", italic=many)]
    with pytest.raises(tk.TemplateError) as caught:
        tk.load_template(template(*wrong))
    assert len(str(caught.value)) < 500, str(caught.value)


LIMITS = {"maxItems", "maxLength", "enum", "const"}


def _unbounded(schema: Any, where: str = "", bounded: bool = False) -> Iterator[str]:
    """Where a list or a text of ``schema`` has no limit (one beside a union bounds its
    options, as ``str | None`` publishes it)."""
    if isinstance(schema, list):
        for index, value in enumerate(schema):
            yield from _unbounded(value, f"{where}/{index}", bounded)
        return
    if not isinstance(schema, dict):
        return
    bounded = bounded or bool(LIMITS & schema.keys())
    if schema.get("type") in ("array", "string") and not bounded:
        yield where
    for key, value in schema.items():
        yield from _unbounded(value, f"{where}/{key}", bounded and key in ("anyOf", "oneOf", "allOf"))


def test_every_list_and_text_of_the_format_publishes_its_limit():
    """The limits are in the schema, where the measuring reads them: a new list or text
    field without a check fails here."""
    assert list(_unbounded(format_schemas("#/"))) == []


def _chain(depth: int) -> dict[str, Any]:
    """Layers m0 … m{depth}, each masked by the next."""
    layers = [
        layer("shape", f"m{n}", fill="#ff0000", **({"mask": {"layer": f"m{n + 1}"}} if n < depth else {}))
        for n in range(depth + 1)
    ]
    return template(*layers, width=100, height=100)


def test_masks_nest_at_most_sixteen_deep_and_are_resolved_without_recursion():
    with pytest.raises(tk.TemplateError) as caught:
        tk.load_template(_chain(199))  # 200 layers: accepted, then every render a RecursionError
    assert caught.value.problems == [
        f"layers[0].mask.layer: masks nest more than {MAX_MASK_DEPTH} layers deep from 'm0' (m0 -> m1 -> m2 -> …)"
    ]
    deepest = _chain(MAX_MASK_DEPTH)
    assert tk.render_image(deepest).width == 100
    assert tk.render_pdf(deepest).data.startswith(b"%PDF")


def test_a_long_circle_of_masks_is_refused_once():
    circle = _chain(29)
    circle["layers"][-1]["mask"] = {"layer": "m0"}
    with pytest.raises(tk.TemplateError) as caught:
        tk.load_template(circle)
    assert len(caught.value.problems) == 1 and "masks nest more than 16 layers deep" in caught.value.problems[0]
