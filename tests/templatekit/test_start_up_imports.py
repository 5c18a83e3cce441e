"""A new process that renders a plain card imports only what such a card needs: the
modules that serve markup, tables, videos, fallback fonts and text beyond ASCII (ICU) come in when a template
asks for them (each costs every cold start some milliseconds)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PLAIN_CARD = {
    "name": "plain",
    "width": 200,
    "height": 100,
    "layers": [
        {"type": "text", "name": "title", "x": 0, "y": 0, "width": 200, "height": 50, "text": "Hi (b) - 2!"},
        {"type": "shape", "name": "box", "x": 0, "y": 50, "width": 50, "height": 50, "fill": "#f00"},
    ],
}
ON_DEMAND = (
    "html.parser",
    "icu",
    "subprocess",
    "tempfile",
    "templatekit.layout.table",
    "templatekit.model.markup_parser",
)

SCRIPT = """
import json, sys
import templatekit as tk
template = json.loads(sys.argv[1])
tk.render_image(template)
before = [name for name in json.loads(sys.argv[2]) if name in sys.modules]
template["layers"][0].update(text="<b>Hello</b>", markup=True)
tk.render_image(template)
print(json.dumps({"plain": before, "markup": "html.parser" in sys.modules}))
"""


def test_a_plain_card_leaves_the_modules_of_other_designs_unimported():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(PLAIN_CARD), json.dumps(ON_DEMAND)],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = json.loads(done.stdout)
    assert loaded == {"plain": [], "markup": True}


COLLECTOR = """
import gc, json, sys
cycle = []
cycle.append(cycle)
kept = [[]]
if sys.argv[1] == "off":
    gc.disable()
if sys.argv[1] == "frozen":  # as a server does before it forks
    gc.freeze()
import templatekit
del cycle
print(json.dumps({
    "enabled": gc.isenabled(),
    "young": gc.get_count()[0],
    # the collector lists the objects of its generations, not those frozen
    "frozen": not any(found is kept for found in gc.get_objects()),
    "collected": gc.collect() > 0,
}))
"""


@pytest.mark.parametrize("state", ["on", "off", "frozen"])
def test_importing_leaves_the_collector_as_it_was_with_what_it_made_in_the_oldest_generation(state):
    done = subprocess.run([sys.executable, "-c", COLLECTOR, state], capture_output=True, text=True, check=True)
    after = json.loads(done.stdout)
    assert after["enabled"] is (state != "off")
    assert after["frozen"] is (state == "frozen")  # a program's own frozen objects stay frozen
    if state != "frozen":
        # the import's objects (some 60,000) are not young any more: the collector's
        # frequent collections will not walk them
        assert after["young"] < 100
        assert after["collected"]  # and garbage made before the import is still found
