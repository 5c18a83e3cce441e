"""Developer sessions: ``nox -s tests``, ``nox -s lint``, ``nox -s bench``, ``nox -s soak``."""

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
    """ruff (rules and formatting) and mypy, as CI runs them."""
    session.install("-e", ".[lint]")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")


@nox.session
def bench(session: nox.Session) -> None:
    session.install("-e", ".[bench]")
    session.run("python", "benchmarks/social_card.py", *session.posargs)


@nox.session
def docs(session: nox.Session) -> None:
    """The documentation site, built with warnings as errors into site/."""
    session.install("-e", ".[test]")
    session.run("mkdocs", "build", "--strict", env={"NO_MKDOCS_2_WARNING": "1"})


@nox.session
def soak(session: nox.Session) -> None:
    """Load and leak runs against a real server (minutes; figures in docs/reliability.md)."""
    session.install("-e", ".[server,bench]")
    session.run("python", "benchmarks/soak.py", *session.posargs)
