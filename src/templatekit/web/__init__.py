"""The web pages, plain HTML, CSS and JavaScript modules with no build step: the
playground, the template editor, and the modules they share (``common``). The server
serves them, and ``templatekit edit`` serves the editor on its own; both send every answer
with ``page_headers``."""

from pathlib import Path

WEB = Path(__file__).resolve().parent


def page_headers(*media_origins: str) -> dict[str, str]:
    """The security headers of the pages' answers. The policy lets a page run only its
    own script and style files (no inline code, no eval), talk to its own origin only,
    show images of its own origin and those it makes (data: and blob: URLs), and play
    videos (and show animated GIFs and WebPs) of its own origin or ``media_origins``
    (where a server's file URLs point). No
    other page may frame it, no address leaves it in a Referer, and no answer's type is
    sniffed: an injected tag or a file taken for a script runs nothing."""
    policy = (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        " ".join(("img-src 'self' data: blob:", *media_origins)),
        " ".join(("media-src 'self'", *media_origins)),
        "connect-src 'self'",
        "form-action 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    )
    return {
        "Content-Security-Policy": "; ".join(policy),
        "X-Frame-Options": "DENY",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }
