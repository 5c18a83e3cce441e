"""Hostile requests for the soak's load run: each must be refused with a 4xx that names
what is wrong, and none may make a worker take more than its memory budget.

- 30 photos of 7000x7000 px, each under the pixel limit (5.9 GB decoded): over the
  render's memory budget;
- a 20000x20000 px PNG inside an SVG: over the pixel limit, which resvg would not check;
- an SVG of 50,000 nested groups; modifications as JSON text nested 3,000 deep;
- a 5,000-digit integer, a font size of 1e6, a layer 1e9 px wide.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
from collections import Counter

import httpx
from PIL import Image

HEAVY_ID = "tpl_soak_heavy"


def _png(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("1", size, 1).save(out, "PNG")
    return out.getvalue()


def _uri(data: bytes, media: str = "image/png") -> str:
    return f"data:{media};base64,{base64.b64encode(data).decode()}"


def heavy_template() -> dict[str, object]:
    photos = [_uri(_png((7000 + n, 7000))) for n in range(30)]
    layers = [
        {"type": "image", "name": f"photo{n}", "x": 0, "y": 0, "width": 100, "height": 100, "src": src}
        for n, src in enumerate(photos)
    ]
    return {"id": HEAVY_ID, "name": "Soak heavy", "width": 100, "height": 100, "layers": layers}


def hostile_bodies() -> list[tuple[str, bytes]]:
    svg_nested = "<svg xmlns='http://www.w3.org/2000/svg' width='9' height='9'>" + "<g>" * 50_000
    svg_nested += "</g>" * 50_000 + "</svg>"
    embedded = (
        "<svg xmlns='http://www.w3.org/2000/svg' xmlns:xlink='http://www.w3.org/1999/xlink' width='9' height='9'>"
        f"<image width='9' height='9' xlink:href='{_uri(_png((20000, 20000)))}'/></svg>"
    )

    def card(modifications: object) -> bytes:
        return json.dumps({"templateId": "tpl_social_card", "modifications": modifications}).encode()

    deep_text = '[{"name": "title", "text": ' + "[" * 3000 + '"x"' + "]" * 3000 + "}]"
    return [
        ("30 photos of 7000x7000", json.dumps({"templateId": HEAVY_ID}).encode()),
        ("a 20000x20000 PNG in an SVG", card([{"name": "logo", "src": _uri(embedded.encode(), "image/svg+xml")}])),
        ("50,000 nested SVG groups", card([{"name": "logo", "src": _uri(svg_nested.encode(), "image/svg+xml")}])),
        ("modifications nested 3,000 deep", card(deep_text)),
        (
            "a 5,000-digit integer",
            b'{"templateId": "tpl_social_card", "modifications": [{"name": "title", "size": ' + b"9" * 5000 + b"}]}",
        ),
        ("font size 1e6", card([{"name": "title", "size": 1e6}])),
        ("a layer 1e9 px wide", card([{"name": "title", "width": 1e9}])),
    ]


async def hostile_mix(client: httpx.AsyncClient, headers: dict[str, str], stop: asyncio.Event) -> Counter[str]:
    """Sends the hostile requests in turn until ``stop``; counts '<label>: <status> <code>'."""
    upload = await client.post("/v1/templates", json=heavy_template(), headers=headers)
    if upload.status_code not in (200, 201):
        raise RuntimeError(f"the heavy template was not stored: {upload.status_code} {upload.text[:200]}")
    bodies = hostile_bodies()
    tally: Counter[str] = Counter()
    while not stop.is_set():
        for label, body in bodies:
            answer = await client.post(
                "/v1/templates/createImage",
                content=body,
                headers={**headers, "Content-Type": "application/json"},
            )
            code = answer.json().get("error", {}).get("code", "") if answer.status_code != 200 else ""
            tally[f"{label}: {answer.status_code} {code}".strip()] += 1
    return tally
