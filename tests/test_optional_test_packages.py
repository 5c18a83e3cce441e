"""A checkout without some package of the test extra still collects: the modules that
need it are skipped, named, instead of failing at import."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MISSING = [
    "hypothesis",
    "boto3",
    "nbformat",
    "nbclient",
    "openapi_spec_validator",
    "grimp",
    "zxingcpp",
    "pypdf",
    "marionette_driver",
]


@pytest.mark.slow
def test_modules_that_need_a_missing_package_are_skipped(tmp_path):
    for name in MISSING:  # a package that cannot be imported, as if it were not installed
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(
            f"raise ModuleNotFoundError('No module named {name}', name='{name}')"
        )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-rs", "-n", "0"]
    command += ["-p", "no:schemathesis", "-p", "no:hypothesispytest", "tests"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    skipped = done.stdout.count("SKIPPED")
    assert skipped >= 10, done.stdout[-3000:]
    for name in ("hypothesis", "boto3", "nbformat", "openapi_spec_validator"):
        assert f"could not import '{name}'" in done.stdout
