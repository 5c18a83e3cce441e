"""A signed URL asked for on two hosts at the same moment (a page shown to many people,
or whoever holds the URL sending it to every host at once), with PostgreSQL, Redis and
one storage folder shared as docs/deploy.md sets them up: "a signed URL rendered by one
host is served from the bucket by the others, and billed once"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import LiveServer, hosts_sharing_a_database, text_template
from tests.server.test_signed_urls import signed_query

pytestmark = pytest.mark.slow

AT_ONCE = 8


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[LiveServer], Path]]:
    folder = tmp_path_factory.mktemp("signed-hosts")
    with hosts_sharing_a_database(folder) as servers:
        yield servers, folder / "files"


def test_one_signed_url_asked_on_every_host_at_once_is_rendered_and_billed_once(hosts):
    servers, files = hosts
    account = servers[0].account()
    servers[0].add_template(account, text_template())
    for n in range(3):
        query = signed_query(account.key, templateId="card", modifications=json.dumps({"title": f"Shown to many {n}"}))
        before = servers[0].used(account)
        with ThreadPoolExecutor(AT_ONCE) as pool:
            answers = list(
                pool.map(
                    lambda i, query=query: httpx.get(
                        f"{servers[i % 2].api}/templates/signedurl", params=query, timeout=60
                    ),
                    range(AT_ONCE),
                )
            )
        assert {answer.status_code for answer in answers} == {200}
        assert len({answer.content for answer in answers}) == 1
        assert servers[0].used(account) - before == 1  # one render, then cache hits (free)
    kept = [path for path in files.rglob("*") if path.is_file() and "cache" in path.parts]
    assert len(kept) == 3  # one cached file per URL, none left behind by a render that lost
