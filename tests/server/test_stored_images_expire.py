"""Stored images are deleted once their URLs have expired: nothing can fetch them after
that, and kept for ever they would fill the shared storage. Stored thumbnails are free,
and no stored image counts against a workspace's storage quota, so a workspace on the
free plan could otherwise write files without bound at its rate limit."""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.server.conftest import LiveServer, text_template

pytestmark = pytest.mark.slow

TTL = 2


def test_a_stored_image_is_deleted_once_its_url_has_expired_and_videos_are_kept(tmp_path: Path):
    server = LiveServer(tmp_path / "data", {"TEMPLATEKIT_FILE_URL_TTL": str(TTL)})
    server.data_dir.mkdir(parents=True)
    server.start()
    try:
        account = server.account("free")
        server.add_template(account, text_template("card"))
        urls = []
        for number in range(3):
            body = {"templateId": "card", "thumbnail": True, "modifications": {"title": str(number)}}
            answer = httpx.post(f"{server.api}/templates/createStoredImage", json=body, headers=account.bearer)
            assert answer.status_code == 200, answer.text
            urls.append(answer.json()["url"])
        assert server.used(account) == 0  # thumbnails are free
        stored = [server.data_dir / "files" / urlsplit(url).path.split("/files/", 1)[1] for url in urls]
        assert all(path.is_file() for path in stored)
        video = server.data_dir / "files" / "videos" / "kept.mp4"
        video.parent.mkdir(parents=True, exist_ok=True)
        video.write_bytes(b"not really a video")
        os.utime(video, (time.time() - 86_400, time.time() - 86_400))
        time.sleep(TTL + 1)
        assert httpx.get(urls[0]).status_code == 400  # no URL fetches them any more
        server.stop()
        server.start()  # housekeeping runs as the server starts
        deadline = time.monotonic() + 10
        while any(path.exists() for path in stored) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [path.name for path in stored if path.exists()] == []
        assert video.is_file()  # video URLs do not expire
    finally:
        server.stop()
