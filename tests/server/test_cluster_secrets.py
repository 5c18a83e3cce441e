"""Hosts sharing a PostgreSQL database must share TEMPLATEKIT_SECRET (docs/deploy.md):
it opens the stored keys and signs file URLs. A host started with another secret, or
with none (it then makes its own in its data folder), must refuse to start, saying why,
rather than join the load balancer and fail every request it gets for a signed URL
("no API key has this hash") and every file URL another host signed."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import httpx
import pytest

from tests.server import services
from tests.server.conftest import LiveServer, text_template

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("secrets")
    with services.postgres() as pg:
        env = {
            "TEMPLATEKIT_DATABASE_URL": pg.url,
            "TEMPLATEKIT_STORAGE_URL": (folder / "files").resolve().as_uri(),
            "TEMPLATEKIT_SECRET": secrets.token_urlsafe(32),
            "TEMPLATEKIT_WORKERS": "1",
        }
        first = LiveServer(folder / "host0", dict(env))
        first.data_dir.mkdir()
        first.start()
        try:
            yield first, env
        finally:
            first.stop()


@pytest.mark.parametrize("secret", ["another-secret-of-the-same-length-as-any", None])
def test_a_host_with_another_secret_than_the_database_refuses_to_start(shared, tmp_path, secret):
    first, env = shared
    account = first.account()
    first.add_template(account, text_template())
    stored = httpx.post(f"{first.api}/templates/createStoredImage", json={"templateId": "card"}, headers=account.bearer)
    assert stored.status_code == 200
    other_env = {name: value for name, value in env.items() if name != "TEMPLATEKIT_SECRET"}
    if secret is not None:
        other_env["TEMPLATEKIT_SECRET"] = secret
    other = LiveServer(tmp_path / "other", other_env)
    other.data_dir.mkdir()
    try:
        with pytest.raises(RuntimeError, match="TEMPLATEKIT_SECRET"):
            other.start()
    finally:
        if (
            other.process is not None and other.process.poll() is None
        ):  # it started: what it serves, for the failure's record
            url = stored.json()["url"]
            served = httpx.get(url.replace(url.split("/v1/")[0], other.root))
            print("file URL of host 0 on the other host:", served.status_code, served.text[:200])
        other.stop()
    assert not (other.data_dir / "secret.key").exists()  # made for nothing: a restart is refused the same way
    assert httpx.get(f"{first.api}/liveness").status_code == 200  # the hosts already serving go on
