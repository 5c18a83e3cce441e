"""Imported by the render pool's fork server, and only there (``RenderPool``): warms the
engine once, before any worker is forked from it."""

from templatekit_server.warming import warm_engine

warm_engine()
