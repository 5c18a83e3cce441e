"""Email, for invitations: sent through the SMTP server of ``TEMPLATEKIT_SMTP_URL``
(``smtp://user:password@host:587``, STARTTLS when the server offers it; ``smtps://`` for
TLS from the start), from ``TEMPLATEKIT_SMTP_FROM``. Without a URL nothing is sent: the
dashboard shows the link to pass on by hand."""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from urllib.parse import unquote, urlsplit

#: How long a connection to the mail server may take, in seconds.
SMTP_TIMEOUT = 20.0


class MailError(RuntimeError):
    """The message could not be handed to the mail server."""


def send(url: str, sender: str, to: str, subject: str, body: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise MailError(f"TEMPLATEKIT_SMTP_URL: must be smtp://host:port or smtps://host:port (got {parts.scheme!r})")
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    message.set_content(body)
    secure = parts.scheme == "smtps"
    port = parts.port or (465 if secure else 587)
    try:
        if secure:
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                parts.hostname, port, timeout=SMTP_TIMEOUT, context=ssl.create_default_context()
            )
        else:
            client = smtplib.SMTP(parts.hostname, port, timeout=SMTP_TIMEOUT)
        with client:
            if not secure:
                client.ehlo()
                if client.has_extn("starttls"):
                    client.starttls(context=ssl.create_default_context())
            if parts.username:
                client.login(unquote(parts.username), unquote(parts.password or ""))
            client.send_message(message)
    except (OSError, smtplib.SMTPException) as exc:
        raise MailError(f"the mail server at {parts.hostname}:{port} did not take the message: {exc}") from exc


def invitation(workspace: str, role: str, invited_by: str, link: str) -> tuple[str, str]:
    """The subject and text of an invitation."""
    subject = f"{invited_by} invites you to {workspace} on templatekit"
    body = (
        f"{invited_by} invites you to join the workspace {workspace} as {role}.\n\n"
        f"Open this link within a week to accept (it works once):\n\n{link}\n\n"
        "If you did not expect this, ignore this message.\n"
    )
    return subject, body
