"""What a service built on the library uses beyond the public API: the /v1 server
(``templatekit_server``) imports the library through ``templatekit`` and this module only.

These are the library's own rules, offered so that a service applies the same ones rather
than a copy: the address policy for what it fetches and sends, the bounded JSON reader,
the model's converter and schema, the limits the template format publishes, the draft
renders of the editor, the web pages. A change to any of them is noted in the changelog
as a change to the public API is.
"""

from __future__ import annotations

from templatekit import extras, jsontext
from templatekit.apply import MAX_MODIFICATIONS
from templatekit.assets.common import Problem, is_svg, shown
from templatekit.assets.loader import ASSET_ID
from templatekit.assets.network import check_endpoint, post
from templatekit.assets.policy import ALLOW_ENV, AllowList, address_refusal
from templatekit.assets.svg import check_svg
from templatekit.browser import find_browser
from templatekit.cache import memoized
from templatekit.editing.draft import DraftRender, render_draft
from templatekit.errors import listed
from templatekit.folders import folder_problem
from templatekit.model.checks import MAX_ROWS, field
from templatekit.model.convert import converter, describe_error, format_path, iter_errors, json_name, shown_value
from templatekit.model.layers import LAYER_KINDS
from templatekit.model.schema import ModelSchema, modification_fields, template_schema
from templatekit.outputs.motion import MOTION_FORMATS
from templatekit.storage import checked_key
from templatekit.text.fonts import FontBook
from templatekit.web import WEB, page_headers

__all__ = [
    "folder_problem",
    "ASSET_ID",
    "is_svg",
    "check_svg",
    "ALLOW_ENV",
    "LAYER_KINDS",
    "MAX_MODIFICATIONS",
    "MAX_ROWS",
    "MOTION_FORMATS",
    "WEB",
    "AllowList",
    "FontBook",
    "ModelSchema",
    "Problem",
    "address_refusal",
    "check_endpoint",
    "checked_key",
    "converter",
    "describe_error",
    "extras",
    "field",
    "find_browser",
    "format_path",
    "iter_errors",
    "json_name",
    "jsontext",
    "listed",
    "memoized",
    "modification_fields",
    "page_headers",
    "post",
    "DraftRender",
    "render_draft",
    "shown",
    "shown_value",
    "template_schema",
]
