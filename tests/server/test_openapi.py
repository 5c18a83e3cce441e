"""The OpenAPI document: valid 3.1, equal to the app's routes, consistent, and served as is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.slow

pytest.importorskip("openapi_spec_validator")

from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator
from starlette.routing import Mount, Route

from templatekit.model.layers import LAYER_KINDS
from templatekit_server.app import create_app
from templatekit_server.errors import STATUS
from templatekit_server.openapi import CODES, document
from templatekit_server.settings import Settings
from tests.server.conftest import LiveServer

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
ERROR_REF = "#/components/schemas/Error"


def _operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield method.upper(), path, operation


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "$ref" and isinstance(item, str):
                yield item
            else:
                yield from _refs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _refs(item)


def _resolve(spec: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    found: Any = spec
    for part in ref[2:].split("/"):
        found = found[part.replace("~1", "/").replace("~0", "~")]
    return found


def _dereferenced(spec: dict[str, Any], value: Any) -> Any:
    while isinstance(value, dict) and "$ref" in value:
        value = _resolve(spec, value["$ref"])
    return value


def test_document_is_valid_openapi_3_1() -> None:
    spec = document()
    assert spec["openapi"].startswith("3.1")
    validate(spec, cls=OpenAPIV31SpecValidator)


def test_document_has_every_route_of_the_app_and_nothing_else(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path, workers=1))
    (mount,) = [route for route in app.routes if isinstance(route, Mount) and route.path == "/v1"]
    # the other mounts are the web pages (static files, and the dashboard's pages for
    # people), which are not part of the interface
    assert [route.path for route in app.routes if isinstance(route, Mount)] == [
        "/v1",
        "/playground",
        "/editor",
        "/common",
        "/dashboard",
    ]
    served = {
        (method, route.path.replace("{path:path}", "{path}"))
        for route in mount.routes
        if isinstance(route, Route)
        for method in route.methods or ()
        if method != "HEAD"
    }
    documented = {(method, path) for method, path, _ in _operations(document())}
    assert document()["servers"] == [{"url": "/v1"}]
    assert documented == served


def test_document_is_consistent() -> None:
    spec = document()
    assert spec["info"]["version"] == "0.0.0"
    ids = [operation["operationId"] for _, _, operation in _operations(spec)]
    assert len(ids) == len(set(ids))
    for ref in set(_refs(spec)):
        _resolve(spec, ref)
    for method, path, operation in _operations(spec):
        errors = [_dereferenced(spec, answer) for status, answer in operation["responses"].items() if status[0] in "45"]
        schemas = [answer["content"]["application/json"]["schema"] for answer in errors]
        assert {"$ref": ERROR_REF} in schemas, f"{method} {path}: no error response"
        assert len(schemas) == len(errors), f"{method} {path}: an error response without the Error schema"


def test_error_codes_are_the_server_s() -> None:
    spec = document()
    assert list(CODES) == list(STATUS)
    detail = spec["components"]["schemas"]["ErrorDetail"]
    assert detail["properties"]["code"]["enum"] == list(STATUS)
    assert set(detail["required"]) == {"code", "docs", "message", "requestId"}
    for _, _, operation in _operations(spec):
        for status, answer in operation["responses"].items():
            if status[0] in "45":
                examples = _dereferenced(spec, answer)["content"]["application/json"]["examples"]
                assert {STATUS[code] for code in examples} == {int(status)}


def test_document_is_served(live: LiveServer) -> None:
    answer = httpx.get(f"{live.api}/openapi.json")
    assert answer.status_code == 200
    assert answer.json() == document()


def test_s3config_marks_required_what_the_server_requires() -> None:
    from templatekit.assets.policy import AllowList
    from templatekit_server.bucket import Bucket
    from templatekit_server.errors import ApiError

    schema = document()["components"]["schemas"]["S3Config"]
    complete = {"bucket": "renders", "accessKeyId": "id", "secretAccessKey": "secret", "region": "eu-west-1"}
    for name in schema["properties"]:
        given = {key: value for key, value in complete.items() if key != name}
        try:
            Bucket.parse(given, AllowList.parse(()))
        except ApiError as exc:
            assert name in schema["required"] and exc.message == f"s3Config.{name}: required", (name, exc.message)
        else:
            assert name not in schema["required"], name


def test_the_template_and_video_schemas_come_from_the_model() -> None:
    schemas = document()["components"]["schemas"]
    assert set(schemas["VideoSettings"]["properties"]) == {"duration", "fps", "poster", "gif", "webp"}
    assert schemas["VideoSettings"]["properties"]["fps"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 60,
        "default": 30,
    }
    template = schemas["Template"]["properties"]
    assert {"background", "fonts", "video", "audio", "layers"} <= set(template)
    assert template["layers"]["items"] == {"$ref": "#/components/schemas/Layer"}  # frames hold the same
    assert schemas["FrameLayer"]["properties"]["layers"]["items"] == {"$ref": "#/components/schemas/Layer"}
    mapping = schemas["Layer"]["discriminator"]["mapping"]
    assert set(mapping) == set(LAYER_KINDS)
    for kind, cls in LAYER_KINDS.items():
        if cls.MAIN_FIELD:
            assert f"{kind}: `{cls.MAIN_FIELD}`" in schemas["ModificationMap"]["description"]
    video = document()["paths"]["/templates/renderVideo"]["post"]
    assert video["x-beta"] is True and "403" in video["responses"]
