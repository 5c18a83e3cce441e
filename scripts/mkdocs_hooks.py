"""MkDocs hooks: pages and pictures made from the code when the site is built, so that
they cannot fall out of date.

- ``gallery/<name>.png``: each template of ``docs/gallery/*.json`` rendered by templatekit,
  with exactly the warnings ``gallery-warnings.json`` lists for it;
- ``api-reference.md`` and ``openapi.json``: the HTTP API from the server's own OpenAPI
  document (in place of the page of that name kept in the repository, which says where
  the reference is for people browsing the files).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

import templatekit as tk
from templatekit_server.openapi import document

Json = dict[str, Any]
# The warnings each gallery sheet shows on purpose (text cut to fit, a word broken): any
# other warning, or one of these missing, fails the build.
EXPECTED = "gallery-warnings.json"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    docs = Path(config["docs_dir"])
    gallery = docs / "gallery"
    expected: dict[str, list[str]] = json.loads((docs / EXPECTED).read_text(encoding="utf-8"))
    for sheet in sorted(gallery.glob("*.json")):
        result = tk.render_image(sheet)
        wanted = expected.get(sheet.stem, [])
        if sorted(result.warnings) != sorted(wanted):
            raise ValueError(f"{sheet}: warnings {list(result.warnings)}, expected {wanted}")
        files.append(File.generated(config, f"gallery/{sheet.stem}.png", content=result.data))
    spec = document()
    files.append(File.generated(config, "openapi.json", content=json.dumps(spec, indent=2)))
    # the page kept in the repository says where the reference is; the site shows it
    kept = files.get_file_from_path("api-reference.md")
    if kept is not None:
        files.remove(kept)
    files.append(File.generated(config, "api-reference.md", content=api_reference(spec)))
    return files


# ------------------------------------------------------------------ the API reference


def api_reference(spec: Json) -> str:
    """The operations, the webhooks the server posts, then the schemas, as Markdown."""
    lines = [
        "# HTTP API reference",
        "",
        "Generated from the server's OpenAPI document ([openapi.json](openapi.json), also served at",
        "`/v1/openapi.json`). Paths are under the base URL, e.g. `https://render.example.com/v1`.",
        "",
        spec["info"]["description"],
        "",
    ]
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            lines += _operation(spec, method.upper(), path, operation)
    for event, item in spec.get("webhooks", {}).items():
        lines += _operation(spec, "Webhook", event, item["post"])
    lines += ["## Schemas", ""]
    for name, schema in spec["components"]["schemas"].items():
        lines += _schema(spec, name, schema)
    return "\n".join(lines) + "\n"


def _operation(spec: Json, method: str, path: str, operation: Json) -> list[str]:
    lines = [f"## {method} {path}", "", f"**{operation['summary']}** (`{operation['operationId']}`)", ""]
    lines += [operation.get("description", ""), ""]
    parameters = [_resolve(spec, parameter) for parameter in operation.get("parameters", [])]
    if parameters:
        lines += ["| parameter | in | required | meaning |", "|---|---|---|---|"]
        for parameter in parameters:
            required = "yes" if parameter.get("required") else ""
            meaning = _cell(parameter.get("description", ""))
            lines.append(f"| `{parameter['name']}` | {parameter['in']} | {required} | {meaning} |")
        lines.append("")
    body = operation.get("requestBody")
    if body and "application/json" in body["content"]:
        schema = body["content"]["application/json"]["schema"]
        lines += [f"Body (JSON): {_type(schema)}. {_cell(body.get('description', ''))}", ""]
    elif body:
        kinds = ", ".join(f"`{kind}`" for kind in body["content"])
        lines += [f"Body ({kinds}): {_cell(body.get('description', ''))}", ""]
    lines += ["| status | answer |", "|---|---|"]
    for status, response in operation["responses"].items():
        response = _resolve(spec, response)
        media = ", ".join(f"`{kind}`" for kind in response.get("content", {}))
        lines.append(f"| {status} | {_cell(response['description'])}{' (' + media + ')' if media else ''} |")
    return [*lines, ""]


def _schema(spec: Json, name: str, schema: Json) -> list[str]:
    lines = [f"### {name}", ""]
    if schema.get("description"):
        lines += [schema["description"], ""]
    properties = schema.get("properties")
    if properties:
        required = set(schema.get("required", []))
        lines += ["| field | type | required | meaning |", "|---|---|---|---|"]
        for field, value in properties.items():
            mark = "yes" if field in required else ""
            lines.append(f"| `{field}` | {_type(value)} | {mark} | {_cell(value.get('description', ''))} |")
    else:
        lines.append(f"Type: {_type(schema)}")
    return [*lines, ""]


def _resolve(spec: Json, value: Json) -> Json:
    while "$ref" in value:
        node: Any = spec
        for part in value["$ref"].lstrip("#/").split("/"):
            node = node[part]
        value = node
    return value


def _type(schema: Json) -> str:
    """A short type: a link for a named schema, the alternatives of a oneOf or anyOf."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return f"[{name}](#{name.lower()})"
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return " or ".join(_type(option) for option in schema[key])
    if "enum" in schema:
        return " ".join(f"`{value}`" for value in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    if kind == "string" and schema.get("contentMediaType") == "application/json":
        return "JSON text"
    return str(kind)


def _cell(text: str) -> str:
    """One table cell: a list in the text keeps its items on lines of their own."""
    items = [" ".join(part.split()) for part in text.split("\n- ")]
    return "<br>• ".join(items).replace("|", "\\|")
