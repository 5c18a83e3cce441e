"""Stored templates and modifications with the ``plotly`` settings of earlier charts, over
real HTTP: they are kept as given, render natively, and the settings the engine has no
equivalent for are named in the warnings header."""

from __future__ import annotations

import json

import pytest

from tests.conftest import decode

pytestmark = pytest.mark.slow

RED = (225, 29, 72)
IGNORED = ": charts have no such setting (Plotly draws whole figures only); ignored"


def chart_template() -> dict:
    rows = [{"label": "a", "value": 3}, {"label": "b", "value": 5}]
    settings = {"colorway": ["#e11d48"], "hovermode": False}
    layer = {"type": "chart", "name": "sales", "x": 0, "y": 0, "width": 240, "height": 160, "rows": rows}
    return {"id": "legacy-chart", "name": "Legacy chart", "width": 240, "height": 160, "background": "#ffffff",
            "layers": [{**layer, "plotly": settings}]}  # fmt: skip


def warnings_of(answer) -> list[str]:
    return json.loads(answer.headers["X-Templatekit-Warnings"])


def test_a_stored_chart_with_plotly_settings_renders_natively_and_warns(client, live):
    account = live.account()
    created = client.post(f"{live.api}/templates", json=chart_template(), headers=account.bearer)
    assert created.status_code == 201, created.text
    assert warnings_of(created) == [f"layers[0].plotly.hovermode{IGNORED}"]
    stored = client.get(f"{live.api}/templates/legacy-chart/source", headers=account.bearer).json()
    assert stored["layers"][0]["plotly"] == chart_template()["layers"][0]["plotly"]  # kept as given

    body = {"templateId": "legacy-chart", "modifications": [{"name": "sales", "plotly": {"bargap": 0.1}}]}
    answer = client.post(f"{live.api}/templates/createImage", json=body, headers=account.bearer)
    assert answer.status_code == 200, answer.text
    assert warnings_of(answer) == [f"layers[0].plotly.hovermode{IGNORED}", f"modifications[0].plotly.bargap{IGNORED}"]
    image = decode(answer.content).convert("RGB")
    assert sum(n for n, rgb in image.getcolors(1 << 16) if rgb == RED) > 500  # colorway became the palette
