"""A client generated from the served OpenAPI document, as SDK users make one, renders
with typed modifications, and has a typed field for every field of the model."""

from __future__ import annotations

import importlib
import io
import shutil
import subprocess
import sys
from pathlib import Path

import attrs
import httpx
import pytest
from PIL import Image, ImageChops

from templatekit.model.convert import json_name
from templatekit.model.layers import LAYER_KINDS
from templatekit.model.schema import FIXED_FIELDS
from tests.conftest import decode
from tests.server.conftest import text_template

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def generated(live, tmp_path_factory):
    """The package openapi-python-client generates from GET /v1/openapi.json."""
    program = shutil.which("openapi-python-client") or str(Path(sys.executable).parent / "openapi-python-client")
    if not Path(program).exists():
        pytest.skip("needs openapi-python-client (the test extra installs it)")
    folder = tmp_path_factory.mktemp("sdk")
    (folder / "openapi.json").write_bytes(httpx.get(f"{live.api}/openapi.json").content)
    done = subprocess.run(
        [program, "generate", "--path", "openapi.json", "--meta", "none", "--output-path", "tk_sdk"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Unable to process schema" not in done.stdout, done.stdout
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("tk_sdk")
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.split(".")[0] == "tk_sdk"]:
            del sys.modules[name]


def test_every_field_of_the_model_is_a_typed_field_of_the_generated_modification(generated):
    models = importlib.import_module("tk_sdk.models")
    generated_fields = {field.name for field in attrs.fields(models.Modification)}
    for kind, cls in LAYER_KINDS.items():
        for attribute in attrs.fields(cls):
            if json_name(attribute.name) in FIXED_FIELDS or attribute.metadata.get("schema", {}).get("x-internal"):
                continue  # (internal: widthSizing is written as width)
            snake = _snake(json_name(attribute.name))
            assert snake in generated_fields or f"{snake}_" in generated_fields, (kind, attribute.name)
    annotation = str(models.Modification.__annotations__["size"])
    assert "float" in annotation and "Any" not in annotation, annotation  # typed


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def test_the_generated_client_renders_with_typed_modifications(generated, live):
    account = live.account()
    live.add_template(account, text_template("sdk"))
    models = importlib.import_module("tk_sdk.models")
    create_image = importlib.import_module("tk_sdk.api.renders.create_image")
    client = generated.AuthenticatedClient(base_url=live.api, token=account.key)
    body = models.ImageRequest(
        template_id="sdk",
        modifications=[
            models.Modification(name="title", text="Typed", color="#00ff00", size=30.0),
            models.Modification(name="box", fill="#0000ff", visible=None),  # None: not set
        ],
    )
    answer = create_image.sync_detailed(client=client, body=body)
    assert answer.status_code == 200, answer.content[:300]
    image = decode(answer.content).convert("RGB")
    assert image.size == (240, 120)
    assert image.getpixel((120, 105)) == (0, 0, 255)  # the box, recoloured
    green = Image.new("RGB", image.size, (0, 255, 0))
    close = ImageChops.difference(image, green).convert("L").point(lambda d: 255 if d < 60 else 0)
    assert close.histogram()[255] > 50  # the title, in green


def test_the_generated_client_uploads_an_asset_and_renders_with_it(generated, live):
    account = live.account()
    upload_asset = importlib.import_module("tk_sdk.api.assets.upload_asset")
    list_assets = importlib.import_module("tk_sdk.api.assets.list_assets")
    create_image = importlib.import_module("tk_sdk.api.renders.create_image")
    models = importlib.import_module("tk_sdk.models")
    types = importlib.import_module("tk_sdk.types")
    client = generated.AuthenticatedClient(base_url=live.api, token=account.key)
    picture = io.BytesIO()
    Image.new("RGB", (60, 40), (20, 120, 220)).save(picture, "PNG")
    body = types.File(payload=io.BytesIO(picture.getvalue()), file_name="blue.png", mime_type="image/png")
    asset = upload_asset.sync(client=client, body=body)
    assert (
        isinstance(asset, models.Asset) and asset.media_type == "image/png" and (asset.width, asset.height) == (60, 40)
    )
    (listed,) = list_assets.sync(client=client)
    assert listed.id == asset.id and listed.used_by == []
    template = text_template("with-asset")
    template["layers"].append(
        {"type": "image", "name": "photo", "x": 0, "y": 0, "width": 60, "height": 40, "src": asset.src}
    )
    live.add_template(account, template)
    answer = create_image.sync_detailed(client=client, body=models.ImageRequest(template_id="with-asset"))
    assert answer.status_code == 200 and decode(answer.content).convert("RGB").getpixel((30, 20)) == (20, 120, 220)
