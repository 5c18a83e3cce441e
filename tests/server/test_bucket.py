"""``s3Config``: renders written to the caller's bucket on a real S3 server (moto's server
mode, over HTTP, with IAM authentication switched on)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

pytestmark = pytest.mark.slow

pytest.importorskip("boto3")

import boto3
import httpx

from templatekit.assets.policy import AllowList
from templatekit_server.bucket import Bucket
from templatekit_server.errors import ApiError
from templatekit_server.s3_resolver import PolicyResolver
from tests.conftest import decode
from tests.server import services
from tests.server.conftest import LiveServer, free_port, text_template, video_template

ANY_ACTION = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}


@dataclass
class S3:
    endpoint: str
    bucket: str
    key_id: str
    secret: str

    def client(self):  # type: ignore[no-untyped-def]
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=self.key_id,
            aws_secret_access_key=self.secret,
            region_name="us-east-1",
        )

    def config(self, **overrides: str) -> dict[str, str]:
        return {
            "bucket": self.bucket,
            "region": "us-east-1",
            "endpoint": self.endpoint,
            "accessKeyId": self.key_id,
            "secretAccessKey": self.secret,
            "prefix": "renders/",
            **overrides,
        }


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3]:
    """moto's S3 server in its own process. Its first four requests are not
    authenticated: they make a user, its key, its policy and the bucket; every
    later request must be signed with that key."""
    with services.moto_s3(tmp_path_factory.mktemp("moto"), unauthenticated_actions=4) as service:
        endpoint = service.url
        root = {"aws_access_key_id": "root", "aws_secret_access_key": "root", "region_name": "us-east-1"}
        iam = boto3.client("iam", endpoint_url=endpoint, **root)
        iam.create_user(UserName="renderer")
        key = iam.create_access_key(UserName="renderer")["AccessKey"]
        iam.put_user_policy(UserName="renderer", PolicyName="s3", PolicyDocument=json.dumps(ANY_ACTION))
        s3 = S3(endpoint, "customer-bucket", key["AccessKeyId"], key["SecretAccessKey"])
        boto3.client("s3", endpoint_url=endpoint, **root).create_bucket(Bucket=s3.bucket)
        yield s3


@pytest.fixture
def account(live):
    account = live.account("pro")
    live.add_template(account, text_template())
    return account


def post(client, live, account, operation, body):
    return client.post(f"{live.api}/templates/{operation}", json=body, headers=account.bearer)


def test_a_stored_image_lands_in_the_bucket_with_its_content_type(client, live, account, s3):
    answer = post(client, live, account, "createStoredImage", {"templateId": "card", "s3Config": s3.config()})
    assert answer.status_code == 200, answer.text
    url = httpx.URL(answer.json()["url"])
    assert str(url).startswith(f"{s3.endpoint}/{s3.bucket}/renders/")
    # a SigV4 presigned GET for the caller's key, valid for a week (moto's IAM mode does
    # not check presigned URLs, so the object is read back with the caller's key)
    assert url.params["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256" and url.params["X-Amz-Expires"] == "604800"
    assert url.params["X-Amz-Credential"].startswith(s3.key_id)
    stored = s3.client().get_object(Bucket=s3.bucket, Key=url.path.split(f"/{s3.bucket}/")[1])
    assert stored["ContentType"] == "image/png"
    assert decode(stored["Body"].read()).size == (240, 120)
    assert live.used(account) == 1


def test_create_image_answers_the_bytes_and_where_they_were_put(client, live, account, s3):
    config = s3.config(publicUrl="https://cdn.example.com/", prefix="")
    answer = post(client, live, account, "createImage", {"templateId": "card", "format": "jpeg", "s3Config": config})
    assert answer.status_code == 200, answer.text
    location = answer.headers["Content-Location"]
    assert location.startswith("https://cdn.example.com/") and location.endswith(".jpg")
    stored = s3.client().get_object(Bucket=s3.bucket, Key=location.rsplit("/", 1)[1])
    assert stored["Body"].read() == answer.content and stored["ContentType"] == "image/jpeg"


def test_the_config_may_come_as_json_text(client, live, account, s3):
    body = {"templateId": "card", "s3Config": json.dumps(s3.config())}
    assert post(client, live, account, "createStoredImage", body).status_code == 200


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"secretAccessKey": "wrong"}, "SignatureDoesNotMatch"),
        ({"accessKeyId": "AKIANOBODY"}, "InvalidAccessKeyId"),
        ({"bucket": "no-such-bucket"}, "NoSuchBucket"),
    ],
)
def test_a_refused_upload_is_an_internal_error_and_bills_nothing(client, live, account, s3, change, reason):
    answer = post(client, live, account, "createStoredImage", {"templateId": "card", "s3Config": s3.config(**change)})
    assert (answer.status_code, answer.json()["error"]["code"]) == (500, "INTERNAL_SERVER_ERROR")
    assert "upload" in answer.json()["error"]["message"]
    assert s3.config()["secretAccessKey"] not in answer.text
    assert live.used(account) == 0


def test_an_endpoint_that_does_not_answer_fails_quickly_and_bills_nothing(client, live, account, s3):
    config = s3.config(endpoint=f"http://127.0.0.1:{free_port()}")
    started = time.monotonic()
    answer = post(client, live, account, "createStoredImage", {"templateId": "card", "s3Config": config})
    assert (answer.status_code, answer.json()["error"]["code"]) == (500, "INTERNAL_SERVER_ERROR")
    assert time.monotonic() - started < 15
    assert live.used(account) == 0


def test_plans_without_s3_config_are_forbidden(client, live, s3):
    for plan in ("free", "automate"):
        account = live.account(plan)
        live.add_template(account, text_template())
        answer = post(client, live, account, "createStoredImage", {"templateId": "card", "s3Config": s3.config()})
        assert (answer.status_code, answer.json()["error"]["code"]) == (403, "FORBIDDEN")
        assert live.used(account) == 0


def test_a_bad_config_names_the_field(client, live, account, s3):
    for config, field in [
        ({**s3.config(), "bucket": ""}, "s3Config.bucket"),
        ({**s3.config(), "colour": "blue"}, "s3Config.colour"),
        ("{not json", "s3Config"),
        ({**s3.config(), "endpoint": "http://10.1.2.3:9000"}, "s3Config.endpoint"),
    ]:
        answer = post(client, live, account, "createStoredImage", {"templateId": "card", "s3Config": config})
        assert answer.status_code == 400, config
        assert field in answer.json()["error"]["message"]


def test_the_default_storage_may_be_an_s3_bucket(client, s3, tmp_path):
    """TEMPLATEKIT_STORAGE_URL: stored images and videos go to the bucket and are served
    from it at their signed /files URLs."""
    server = LiveServer(
        tmp_path / "data",
        {
            "TEMPLATEKIT_STORAGE_URL": f"s3://{s3.bucket}/server-files",
            "AWS_ENDPOINT_URL": s3.endpoint,
            "AWS_ACCESS_KEY_ID": s3.key_id,
            "AWS_SECRET_ACCESS_KEY": s3.secret,
            "AWS_DEFAULT_REGION": "us-east-1",
            "TEMPLATEKIT_WORKERS": "1",
        },
    )
    server.data_dir.mkdir(parents=True)
    server.start()
    try:
        account = server.account()
        server.add_template(account, text_template())
        server.add_template(account, video_template())
        stored = post(client, server, account, "createStoredImage", {"templateId": "card"})
        assert stored.status_code == 200, stored.text
        url = stored.json()["url"]
        key = url.split("/files/")[1].split("?")[0]
        in_bucket = s3.client().get_object(Bucket=s3.bucket, Key=f"server-files/{key}")
        served = client.get(url)
        assert served.status_code == 200 and served.content == in_bucket["Body"].read()
        assert in_bucket["ContentType"] == "image/png"
        video = client.post(f"{server.api}/templates/renderVideo", json={"templateId": "clip"}, headers=account.bearer)
        assert video.status_code == 200, video.text
        assert client.get(video.json()["url"]).headers["content-type"] == "video/mp4"
        video_key = video.json()["url"].split("/files/")[1].split("?")[0]
        assert s3.client().head_object(Bucket=s3.bucket, Key=f"server-files/{video_key}")["ContentType"] == "video/mp4"
        assert not (server.data_dir / "files").exists()
    finally:
        server.stop()


def test_the_address_policy_holds_on_the_connection_the_upload_makes(s3):
    """A Bucket made without the parse-time check (as if DNS had answered differently
    then) still cannot reach a loopback endpoint by name: the client's resolver refuses
    it. (An IP literal is not looked up, so the parse-time check is all it needs.)"""
    by_name = s3.endpoint.replace("127.0.0.1", "localhost")
    bucket = Bucket(s3.bucket, s3.key_id, s3.secret, "us-east-1", by_name, allow=AllowList.parse([]))
    with pytest.raises(ApiError) as refused:
        bucket.upload(b"\x89PNG", "image/png")
    assert refused.value.code == "INTERNAL_SERVER_ERROR" and "Could not connect" in refused.value.message
    # the same bucket, the same name, only the allow list differs: the refusal was the policy's
    allowed = Bucket(s3.bucket, s3.key_id, s3.secret, "us-east-1", by_name, allow=AllowList.parse(["localhost"]))
    assert allowed.upload(b"\x89PNG", "image/png").startswith(by_name)


def test_the_resolver_refuses_non_global_addresses():
    async def resolve(allow: list[str]):  # type: ignore[no-untyped-def]
        return await PolicyResolver(AllowList.parse(allow)).resolve("localhost", 9000)

    with pytest.raises(OSError, match="loopback address"):
        asyncio.run(resolve([]))
    assert {result["host"] for result in asyncio.run(resolve(["localhost"]))} & {"127.0.0.1", "::1"}
