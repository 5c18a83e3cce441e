"""Developer sessions: ``nox -s tests``, ``nox -s lint``, ``nox -s bench``."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint"]
nox.options.default_venv_backend = "venv"


@nox.session
def tests(session: nox.Session) -> None:
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("ruff", "mypy")
    session.run("ruff", "check", "src", "tests", "benchmarks")


@nox.session
def bench(session: nox.Session) -> None:
    session.install("-e", ".[bench]")
    session.run("python", "benchmarks/social_card.py", *session.posargs)
