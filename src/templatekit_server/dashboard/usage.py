"""Usage: the workspace's generations today and this month against its plan's quota, and
per project and day, charted by templatekit's own chart engine (rendered by the shared
workers at a preview's priority, not billed)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from templatekit_server import accounts, usage
from templatekit_server.dashboard.web import Visit, visit
from templatekit_server.errors import ApiError
from templatekit_server.rendering import DraftJob, render_draft_job

#: The days the page shows, today included.
DAYS = 14
CHART_SIZE = (1000, 340)


def _days() -> list[str]:
    today = datetime.now(UTC).date()
    return [(today - timedelta(days=back)).isoformat() for back in range(DAYS - 1, -1, -1)]


def _table(here: Visit) -> tuple[list[str], list[dict[str, Any]]]:
    """The days, and per project its name and count on each day (projects with none left out)."""
    counts = usage.by_project_and_day(here.server.db, here.workspace_id, DAYS)
    days = _days()
    names = {project["id"]: project["name"] for project in accounts.projects_of(here.server.db, here.workspace_id)}
    rows = [
        {"id": project_id, "name": names.get(project_id, project_id), "days": [by_day.get(day, 0) for day in days]}
        for project_id, by_day in sorted(counts.items(), key=lambda item: names.get(item[0], item[0]))
    ]
    return days, rows


async def usage_page(request: Request) -> Response:
    here = visit(request)
    found = accounts.workspace(here.server.db, here.workspace_id)
    plan = here.server.plans.get(found["plan"] if found else "free", here.server.plans["free"])
    report = usage.report(here.server.db, here.workspace_id, plan)
    days, rows = _table(here)
    return here.page("usage.html", section="usage", report=report, days=days, rows=rows)


def chart_template(days: list[str], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A stacked bar chart of generations per day, a series per project."""
    width, height = CHART_SIZE

    def points(values: list[int]) -> list[dict[str, Any]]:
        return [{"label": day[5:], "value": value} for day, value in zip(days, values, strict=True)]

    series = [{"name": row["name"], "data": points(row["days"])} for row in rows]
    series = series or [{"name": "no generations", "data": points([0] * len(days))}]
    chart = {
        "type": "chart",
        "name": "usage",
        "x": 20,
        "y": 16,
        "width": width - 40,
        "height": height - 32,
        "chartType": "bar",
        "stacked": True,
        "title": f"Generations per day, the last {DAYS} days (UTC)",
        "rows": series,
        "valueFormat": ",.0f",
    }
    return {"name": "Usage", "width": width, "height": height, "background": "#ffffff", "layers": [chart]}


async def usage_chart(request: Request) -> Response:
    here = visit(request)
    days, rows = _table(here)
    job = DraftJob(chart_template(days, rows), None, "png", False, 1.0, None)
    try:
        output = await here.server.stills.run(render_draft_job, job, here.preview_share())
    except ApiError as exc:
        return Response(f"no chart: {exc.message}", 503, media_type="text/plain")
    return Response(output.data, media_type="image/png", headers={"Cache-Control": "private, no-cache"})


routes = [
    Route("/w/{workspace}/usage", usage_page, name="usage"),
    Route("/w/{workspace}/usage/chart.png", usage_chart, name="usage_chart"),
]
