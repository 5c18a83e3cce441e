"""The web pages, plain HTML, CSS and JavaScript modules with no build step: the
playground, the template editor, and the modules they share (``common``). The server
serves them, and ``templatekit edit`` serves the editor on its own."""

from pathlib import Path

WEB = Path(__file__).resolve().parent
