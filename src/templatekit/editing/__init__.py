"""The template editor: renders of templates being designed (``draft``), the code
scan check (``scans``) and ``templatekit edit``'s local server (``local``). The page
itself is in ``templatekit/web/editor``."""
