"""What the template editor needs besides the template operations: renders of the
template being designed (previewTemplate) and the fonts to offer (listFonts)."""

from __future__ import annotations

import base64
import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from templatekit.service import FontBook
from templatekit_server.answers import warnings_header
from templatekit_server.bodies import PreviewRequest
from templatekit_server.errors import bad_request
from templatekit_server.inputs import Fields, authenticate, read_as, read_request
from templatekit_server.rendering import DraftJob, DraftOutput, render_draft_job
from templatekit_server.state import server_of

PREFIX = "X-Templatekit-"
SCANS_HEADER = "X-Templatekit-Scans"
BOXES_HEADER = "X-Templatekit-Boxes"
TEXT_HEIGHTS_HEADER = "X-Templatekit-Text-Heights"
CUES_HEADER = "X-Templatekit-Cues"
DETAIL_HEADERS = (SCANS_HEADER, CUES_HEADER, BOXES_HEADER, TEXT_HEIGHTS_HEADER)
#: Names the headers of a preview left out for their size (``Boxes,Text-Heights``).
OMITTED_HEADER = "X-Templatekit-Omitted"
#: The bytes a preview's headers of details (warnings included) take at most, together.
DETAILS_LIMIT = 8192


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
    query = Fields(request.query_params, server.settings.max_text_chars)
    details = query.text("details")
    if details is not None and details != "json":
        raise bad_request(f"query.details: must be json (got {details[:40]!r})")
    with_image = query.flag("image")
    if with_image and details is None:
        raise bad_request("query.image: only with details=json (the image is the answer otherwise)")
    allowance = server.plan(caller).previews_per_minute
    await server.limiter.hit(f"previews:{caller.key_id}", allowance, "previewTemplate", "previews")
    asked = read_as(PreviewRequest, body, server.settings.max_text_chars)
    job = DraftJob(
        asked.template, asked.modifications, asked.format, asked.thumbnail, asked.scale, asked.time, caller.workspace_id
    )
    output = await server.stills.run(render_draft_job, job, server.share(caller, preview=True))
    if details is None:
        return Response(output.data, media_type=output.media_type, headers=draft_headers(output))
    answer = draft_details(output)
    if with_image:
        answer |= image_inline(output)
    return JSONResponse(answer)


def draft_details(output: DraftOutput) -> dict[str, Any]:
    """All that a preview tells besides its image, whole, as the body of ``?details=json``."""
    return {
        "warnings": list(output.warnings),
        "scans": list(output.scans),
        "boxes": output.boxes,
        "textHeights": output.text_heights,
        "cues": output.cues,
    }


def image_inline(output: DraftOutput) -> dict[str, Any]:
    """The image in the JSON of ``?details=json&image=true``, so that an editor showing a
    template whose details do not fit in headers renders each change once, not twice;
    ``omitted`` says whether they still would not fit (when not, headers do again)."""
    omitted = draft_headers(output).get(OMITTED_HEADER)
    return {
        "image": base64.b64encode(output.data).decode("ascii"),
        "mediaType": output.media_type,
        "omitted": omitted.split(",") if omitted else [],
    }


def draft_headers(output: DraftOutput) -> dict[str, str]:
    """What a preview tells besides its image: warnings, whether codes scan, the boxes
    layout gave the layers of frames, the heights cut text needs, the cues of captions.

    Their headers hold DETAILS_LIMIT bytes together, so that every client and proxy takes
    the answer: the warnings first (cut to whole items within 4 KB), then each other
    header whole, in that order, while it fits. One that does not fit is left out, never
    cut (a part would read as the whole), and named in ``X-Templatekit-Omitted``; the
    editor then asks for them all with ``?details=json``."""
    headers = warnings_header(output.warnings)
    omitted = []
    room = DETAILS_LIMIT - sum(len(name) + len(value) + 4 for name, value in headers.items())
    room -= len(OMITTED_HEADER) + 4 + len(",".join(header.removeprefix(PREFIX) for header in DETAIL_HEADERS))
    wanted = [
        (SCANS_HEADER, list(output.scans)),
        (CUES_HEADER, output.cues),
        (BOXES_HEADER, output.boxes),
        (TEXT_HEIGHTS_HEADER, output.text_heights),
    ]
    for name, value in wanted:
        if not value:
            continue
        text = json.dumps(value, separators=(",", ":"))  # ASCII: a header's value is Latin-1
        if len(name) + len(text) + 4 > room:
            omitted.append(name.removeprefix(PREFIX))
            continue
        headers[name] = text
        room -= len(name) + len(text) + 4
    if omitted:
        headers[OMITTED_HEADER] = ",".join(omitted)
    return headers


async def fonts(request: Request) -> Response:
    """The bundled font families, with their weights and whether they have italics."""
    await authenticate(request, "listFonts")
    return JSONResponse(await run_in_threadpool(lambda: FontBook.bundled().families()))


routes = [
    Route("/templates/preview", preview, methods=["POST"]),
    Route("/fonts", fonts, methods=["GET"]),
]
