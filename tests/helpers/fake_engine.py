"""A search-engine stand-in: a real HTTP server on 127.0.0.1 that records requests and
answers from a script (status codes, delays). The only network the tests use."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class FakeEngine:
    script: list[tuple[int, float]] = field(default_factory=list)  # (status, delay) per request
    default: tuple[int, float] = (200, 0.0)
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        engine = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                engine.seen.append(Seen(self.command, self.path, dict(self.headers),
                                        self.rfile.read(length)))
                status, delay = engine.script.pop(0) if engine.script else engine.default
                time.sleep(delay)
                self.send_response(status)
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = _answer

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
