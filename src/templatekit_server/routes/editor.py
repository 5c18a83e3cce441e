"""What the template editor needs besides the template operations: renders of the
template being designed (previewTemplate) and the fonts to offer (listFonts)."""

from __future__ import annotations

import json

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from templatekit.service import FontBook
from templatekit_server.answers import warnings_header
from templatekit_server.bodies import PreviewRequest
from templatekit_server.errors import bad_request
from templatekit_server.inputs import authenticate, read_as, read_request
from templatekit_server.rendering import DraftJob, DraftOutput, render_draft_job
from templatekit_server.state import server_of

SCANS_HEADER = "X-Templatekit-Scans"
BOXES_HEADER = "X-Templatekit-Boxes"
TEXT_HEIGHTS_HEADER = "X-Templatekit-Text-Heights"
CUES_HEADER = "X-Templatekit-Cues"


async def preview(request: Request) -> Response:
    """The image of a template sent whole, as createImage renders it once saved. Not
    stored and not billed, so it needs the ``templates:write`` scope of a designer's key,
    counts against the rate limit and against the plan's previews a minute, and runs
    after every billed render that waits (``fairness``). Besides the image, the editor is
    told where layout put the layers of frames (``X-Templatekit-Boxes``) and how tall the
    boxes of cut text would need to be (``X-Templatekit-Text-Heights``), and the cues of
    captions layers (``X-Templatekit-Cues``)."""
    server = server_of(request)
    caller, body = await read_request(request, "previewTemplate")
    if not isinstance(body, dict):
        raise bad_request(f"request body: must be a JSON object (got {type(body).__name__})")
    allowance = server.plan(caller).previews_per_minute
    await server.limiter.hit(f"previews:{caller.key_id}", allowance, "previewTemplate", "previews")
    asked = read_as(PreviewRequest, body, server.settings.max_text_chars)
    job = DraftJob(
        asked.template, asked.modifications, asked.format, asked.thumbnail, asked.scale, asked.time, caller.workspace_id
    )
    output = await server.stills.run(render_draft_job, job, server.share(caller, preview=True))
    headers = draft_headers(output)
    return Response(output.data, media_type=output.media_type, headers=headers)


def draft_headers(output: DraftOutput) -> dict[str, str]:
    """What a preview tells besides its image: warnings, whether codes scan, the boxes
    layout gave the layers of frames, and the heights cut text needs."""
    headers = warnings_header(output.warnings)
    if output.scans:
        headers[SCANS_HEADER] = json.dumps(list(output.scans))
    if output.boxes:
        headers[BOXES_HEADER] = json.dumps(output.boxes, separators=(",", ":"))
    if output.text_heights:
        headers[TEXT_HEIGHTS_HEADER] = json.dumps(output.text_heights, separators=(",", ":"))
    if output.cues:  # ASCII: a header's value is Latin-1
        headers[CUES_HEADER] = json.dumps(output.cues, separators=(",", ":"))
    return headers


async def fonts(request: Request) -> Response:
    """The bundled font families, with their weights and whether they have italics."""
    await authenticate(request, "listFonts")
    return JSONResponse(await run_in_threadpool(lambda: FontBook.bundled().families()))


routes = [
    Route("/templates/preview", preview, methods=["POST"]),
    Route("/fonts", fonts, methods=["GET"]),
]
