"""Schemathesis against the served OpenAPI document: every operation, with documented
examples, coverage cases (boundaries, wrong types, missing fields) and random data, must
answer only what the document declares, and never a server error."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from templatekit_server import accounts, catalog
from templatekit_server.openapi import document
from tests.server.conftest import LiveServer

pytestmark = [pytest.mark.slow, pytest.mark.early]  # minutes of schemathesis

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "templates"
# A fixed seed keeps CI repeatable; TEMPLATEKIT_FUZZ_SEED=random explores afresh.
SEED = os.environ.get("TEMPLATEKIT_FUZZ_SEED", "20261123")
CHECKS = (
    "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,"
    "response_headers_conformance,unsupported_method,missing_required_header"
)

# The template body's coverage cases (every field's wrong types and boundaries, 8,500 of
# them, 90% of this run's requests and two minutes of it) are each a load of the template in
# tests/templatekit/model/test_every_field_refuses.py, made from the same schema; here the
# body gets its examples and random data, as every operation does. The coverage cases of
# the render operations all carry the same Idempotency-Key, so all but the first are
# answered 409 before their body is read (2,150 of 2,300 each): they test only that, which
# examples and random data test too. A video rendered with ?wait=true takes seconds on a
# busy machine: the request timeout leaves it the time.
CONFIG = r"""
request-timeout = 60

[[operations]]
include-path-regex = '^/templates(/\{template_id\})?$'
include-method-regex = "^(POST|PUT)$"
phases.coverage.enabled = false

[[operations]]
include-path-regex = "^/templates/(createImage|createPdf|createStoredImage|renderVideo)$"
phases.coverage.enabled = false
"""


def test_every_operation_answers_as_documented_and_never_with_a_server_error(tmp_path):
    server = LiveServer(tmp_path / "data", {"TEMPLATEKIT_WORKERS": "2"})
    server.data_dir.mkdir(parents=True)
    server.start()
    try:
        account = server.account("scale")
        accounts.set_rate_limit(server.db, account.key_id, 1_000_000)
        for name in ("social-card", "invoice", "promo-video"):  # the ids the document's examples use
            path = EXAMPLES / f"{name}.json"
            body = catalog.inline_local_files(json.loads(path.read_text()), path.parent)
            catalog.save(server.db, account.workspace, body)
        config = tmp_path / "schemathesis.toml"
        config.write_text(CONFIG)
        command = [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run"]
        command += [f"{server.api}/openapi.json"]
        command += ["--url", server.api, "-H", f"Authorization: Bearer {account.key}", "--checks", CHECKS]
        command += ["--phases", "examples,coverage,fuzzing", "--max-examples", "10", "--workers", "1"]
        if SEED != "random":
            command += ["--seed", SEED]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
        report = done.stdout[-6000:] + done.stderr[-2000:]
        assert done.returncode == 0, report
        operations = sum(len(item) for item in document()["paths"].values())
        total = re.search(r"Operations:\s+(\d+) selected / (\d+) total", done.stdout)
        assert total is not None and f"Tested: {total.group(2)}" in done.stdout, report
        # schemathesis leaves out an operation or two it cannot make requests for (the
        # file path that holds slashes); every other operation of the document is tested
        assert int(total.group(2)) >= operations - 2, (operations, report)
        answered = re.findall(r"templatekit\.access: \S+ \S+ (\d{3}) ", server.log())
        assert len(answered) > 500  # the run really exercised the server
        assert "unexpected error" not in server.log() and "Traceback" not in server.log()
    finally:
        server.stop()
