"""The HTML shell: one self-contained file, with a Content-Security-Policy that forbids the network.

The stylesheet, the script and the data (one ``<script type="application/json">`` block) are
inlined; the policy allows exactly that script and style (by their SHA-256 hashes), images from
``data:`` and nothing else, so even a bug in the page cannot send anything anywhere.

The data block cannot be closed early by any string it holds: non-ASCII characters (U+2028 and
U+2029 included) and every ``<``, ``>`` and ``&`` are written as ``\\u`` escapes.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import cache
from importlib import resources

from conformance.report.markup import Content, Html, join, tag, text
from conformance.results.result import JSON

#: Script files, concatenated in this order into the page's one inline script.
SCRIPTS = ("core.js", "details.js", "matrix.js", "compat.js", "boot.js")


@cache
def asset(name: str) -> str:
    """A file shipped under conformance/report/assets/."""
    return resources.files("conformance.report").joinpath("assets", name).read_text(encoding="utf-8")


def script_text() -> str:
    """The page's script: every asset file in one strict-mode function scope."""
    body = "\n".join(asset(name) for name in SCRIPTS)
    return f'(function () {{\n"use strict";\n{body}\n}}());\n'


def embed_json(data: object) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<``, ``>``, ``&`` or non-ASCII character."""
    encoded = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return encoded.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _hash(source: str) -> str:
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"
    )


def policy(script: str | None, style: str) -> str:
    """The Content-Security-Policy: this page's own inline script and style, and nothing from outside."""
    scripts = _hash(script) if script is not None else "'none'"
    return (
        f"default-src 'none'; script-src {scripts}; style-src {_hash(style)}; img-src data:; "
        "connect-src 'none'; font-src 'none'; media-src 'none'; object-src 'none'; frame-src 'none'; "
        "worker-src 'none'; base-uri 'none'; form-action 'none'"
    )


def header(title: Content, facts: str, nav: Html | None = None) -> Html:
    """A page's header: its title over a line saying what the page was made from."""
    return tag("header", [tag("h1", title), tag("p", facts, {"class": "facts"}), nav])


def document(title: str, header: Html, body: Html, data: JSON | None = None) -> str:
    """A complete page: with ``data``, and the script that reads it; without, static HTML."""
    style = asset("report.css")
    script = script_text() if data is not None else None
    head = join(
        [
            Html('<meta charset="utf-8">'),
            Html(f'<meta http-equiv="Content-Security-Policy" content="{text(policy(script, style))}">'),
            Html('<meta name="viewport" content="width=device-width, initial-scale=1">'),
            Html('<meta name="referrer" content="no-referrer">'),
            Html('<link rel="icon" href="data:,">'),
            tag("title", title),
            Html(f"<style>{style}</style>"),
        ]
    )
    tail = ""
    if script is not None:
        data_block = f'<script type="application/json" id="report-data">{embed_json(data)}</script>'
        tail = f"{data_block}\n<script>{script}</script>"
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en">\n<head>\n{head}\n</head>\n<body>\n{header}\n<main>\n{body}\n</main>\n{tail}\n'
        "</body>\n</html>\n"
    )
