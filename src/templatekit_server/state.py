"""What the running server holds: settings, database, storage, render pools, the video
runner, the webhook sender. One ``ServerState`` per app, at ``app.state.server``."""

from __future__ import annotations

import anyio
from starlette.requests import Request

from templatekit import Store
from templatekit.service import AllowList, extras
from templatekit_server.accounts import Caller
from templatekit_server.delivery import WebhookSender
from templatekit_server.fairness import Share
from templatekit_server.files import Files
from templatekit_server.jobs import VideoRunner
from templatekit_server.plans import Plan, load_plans
from templatekit_server.ratelimits import RateLimiter
from templatekit_server.rendering import RenderPool
from templatekit_server.settings import Settings
from templatekit_server.startup import StartError, open_database, open_sealer, ready_data_dir
from templatekit_server.usage import InFlight, Releases
from templatekit_server.webhooks import Announcer

#: uploads to ``s3Config`` buckets at once per workspace (see ``ServerState.bucket_lane``)
BUCKET_UPLOADS_PER_WORKSPACE = 2
#: host names a request names (``webhookUrl``, ``s3Config.endpoint``) resolved at once per
#: workspace (see ``ServerState.lookup_lane``)
LOOKUPS_PER_WORKSPACE = 4


class ServerState:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        #: why this installation cannot render videos, or None when it can
        self.video_unavailable = extras.unavailable("video")
        try:
            self.allow = AllowList.parse(settings.fetch_allow.split(","))
        except ValueError as exc:
            raise StartError(str(exc)) from None
        ready_data_dir(settings.data_dir)
        self.db = open_database(settings.database)
        self.sealer = open_sealer(self.db, settings)
        self.files = Files(
            Store(settings.storage, timeout=settings.storage_timeout), self.sealer, settings.file_url_ttl
        )
        self.plans = load_plans(settings.config_path)
        self.limiter = RateLimiter(settings.rate_limit_url)
        self.releases = Releases()
        self.stills = RenderPool(settings, settings.render_workers, settings.render_timeout, warm=True)
        self.video_pool = RenderPool(settings, settings.video_workers, settings.video_timeout)
        try:
            backoff = settings.webhook_backoff
        except ValueError as exc:
            raise StartError(str(exc)) from None
        self.sender = WebhookSender(
            self.db,
            self.sealer,
            self.allow,
            settings.webhook_timeout,
            backoff,
            settings.webhook_concurrency,
            weight_of=self.weight_of,
        )
        self.announcer = Announcer(self.sealer, self.files)
        self._bucket_lanes: dict[str, anyio.CapacityLimiter] = {}
        self.in_flight = InFlight()
        self._lookup_lanes: dict[str, anyio.CapacityLimiter] = {}
        self.runner = VideoRunner(
            self.db,
            self.video_pool,
            self.announcer,
            settings.video_workers,
            settings.job_heartbeat_seconds,
            settings.job_stale_seconds,
            settings.docs_url,
            on_end=self.sender.wake,
            weight_of=self.weight_of,
        )

    def bucket_lane(self, workspace_id: str) -> anyio.CapacityLimiter:
        """The threads a workspace's uploads to its own buckets may hold at once. A bucket
        that never answers then holds these, not the threads every request shares."""
        lane = self._bucket_lanes.get(workspace_id)
        if lane is None:
            lane = self._bucket_lanes[workspace_id] = anyio.CapacityLimiter(BUCKET_UPLOADS_PER_WORKSPACE)
        return lane

    def lookup_lane(self, workspace_id: str) -> anyio.CapacityLimiter:
        """The threads a workspace's checks of the hosts its requests name may hold at
        once. A name whose DNS server never answers then holds these, not the threads
        every request shares."""
        lane = self._lookup_lanes.get(workspace_id)
        if lane is None:
            lane = self._lookup_lanes[workspace_id] = anyio.CapacityLimiter(LOOKUPS_PER_WORKSPACE)
        return lane

    def plan(self, caller: Caller) -> Plan:
        return self.plans.get(caller.plan, self.plans["free"])

    def weight_of(self, plan: str) -> float:
        """A plan's weight by its name (an unknown plan's is the free plan's)."""
        return self.plans.get(plan, self.plans["free"]).weight

    def share(self, caller: Caller, preview: bool = False) -> Share:
        """What the caller's workspace may claim of the shared render workers."""
        plan = self.plan(caller)
        return Share(caller.workspace_id, plan.weight, plan.max_queue_seconds, preview)

    def public_root(self, request: Request) -> str:
        """The server's address as people reach it, for the links it hands out (a hook's
        URL, an invitation's): the public URL, else the request's scheme and host."""
        url = request.url
        return (self.settings.public_url or f"{url.scheme}://{url.netloc}").rstrip("/")

    def api_base(self, request: Request) -> str:
        """The base URL of the /v1 interface, for the URLs the server hands out."""
        root = self.settings.public_url or str(request.base_url)
        return root.rstrip("/") + "/v1"

    def close(self) -> None:
        self.stills.close()
        self.video_pool.close()
        self.db.close()


def server_of(request: Request) -> ServerState:
    """The state of the app that received ``request``."""
    state: ServerState = request.app.state.server
    return state
