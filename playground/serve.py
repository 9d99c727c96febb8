"""Serve the built playground on 127.0.0.1 with the headers it wants; print the address.

Usage: ``python serve.py [FOLDER] [--port N] [--no-isolation]`` (FOLDER: ``build/playground``;
``--port 0``, the default, takes a free port).  The responses carry
``Cross-Origin-Opener-Policy: same-origin`` and ``Cross-Origin-Embedder-Policy: require-corp``,
which make the page cross-origin isolated, so that Stop can interrupt Python through shared
memory (NOTE [How Stop works] in src/runner.js); ``--no-isolation`` leaves them out, as a plain
static host would.  Every response carries the Content-Security-Policy that index.html declares in
its ``<meta>`` tag (one policy, written once; a header also covers the worker, which a page's
``<meta>`` does not).  ``.wasm`` is served as ``application/wasm``, as Pyodide needs.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import sys
from pathlib import Path

TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".whl": "application/zip",
    ".py": "text/plain; charset=utf-8",
    ".zip": "application/zip",
}


_POLICY = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">')


def policy(folder: Path) -> str | None:
    """The Content-Security-Policy of ``folder``'s index.html (its ``<meta>`` tag), if any."""
    page = folder / "index.html"
    found = _POLICY.search(page.read_text(encoding="utf-8")) if page.exists() else None
    return found.group(1) if found else None


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files, with the page's policy and the isolation headers (unless ``isolated`` is
    False)."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}
    isolated = True
    quiet = False
    policy: str | None = None

    def end_headers(self) -> None:
        if self.policy:
            self.send_header("Content-Security-Policy", self.policy)
        if self.isolated:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def server(
    folder: Path, port: int = 0, isolated: bool = True, quiet: bool = False
) -> http.server.HTTPServer:
    """An HTTP server for ``folder`` on 127.0.0.1 (``port`` 0: a free one), not yet serving."""
    handler = type(
        "PlaygroundHandler",
        (Handler,),
        {"isolated": isolated, "quiet": quiet, "policy": policy(Path(folder))},
    )
    return http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(handler, directory=str(folder))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default="build/playground")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--no-isolation", action="store_true")
    options = parser.parse_args()
    folder = Path(options.folder)
    if not (folder / "index.html").exists():
        sys.exit(f"{folder} has no index.html\nWhat to do: run `make playground` first.")
    httpd = server(folder, options.port, not options.no_isolation)
    print(
        f"micrograd2 playground: http://127.0.0.1:{httpd.server_address[1]}/  (Ctrl-C stops)",
        flush=True,
    )
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
