"""Telling search engines: opt-in IndexNow for changed URLs, and a generic ping hook.

The sitemaps.org "ping" is gone (Google's endpoint returns 404 since the end of
2023; Bing dropped anonymous submission in 2022): the robots.txt ``Sitemap:`` line
is the supported discovery path. IndexNow (Bing, Yandex, Seznam, Naver; not Google)
accepts pushes of changed URLs. Every failure here is reported, never raised.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

from .._display import count
from .._files import atomic_write
from .._version import __version__
from ..errors import NotifyConfigError
from ..protocol import INDEXNOW_ENDPOINT, INDEXNOW_MAX_BATCH
from ..write.changes import Changes

if TYPE_CHECKING:
    import urllib.request

MAX_BATCH = INDEXNOW_MAX_BATCH  # IndexNow's limit per request
_KEY = re.compile(r"[A-Za-z0-9-]{8,128}")
RETIRED_PINGS = ("google.com/ping", "google.com/webmasters/tools/ping", "bing.com/ping",
                 "bing.com/webmaster/ping")
USER_AGENT = f"sitemapkit/{__version__}"
ANSWERS = {400: "bad request (the payload was rejected)",
           403: "the key is not valid for this host (is the key file published?)",
           422: "URLs do not belong to the host, or the key file does not match",
           429: "too many requests"}


@dataclass(frozen=True)
class IndexNowOptions:
    key: str
    key_location: str | None = None  # URL of the key file when not at /<key>.txt
    endpoint: str = INDEXNOW_ENDPOINT
    batch_size: int = MAX_BATCH
    timeout: float = 10.0
    retries: int = 3
    backoff: float = 1.0  # seconds; doubled on each retry (Retry-After wins when given)
    dry_run: bool = False

    def checked(self) -> IndexNowOptions:
        if not _KEY.fullmatch(self.key):
            raise NotifyConfigError("an IndexNow key is 8-128 characters of a-z, A-Z, 0-9 "
                                    f"and '-' (got {len(self.key)} characters)")
        if not 1 <= self.batch_size <= MAX_BATCH:
            raise NotifyConfigError(f"batch_size must be 1..{MAX_BATCH}, not {self.batch_size}")
        if urlsplit(self.endpoint).scheme not in ("http", "https"):
            raise NotifyConfigError(f"endpoint {self.endpoint!r} is not an http(s) URL")
        if self.retries < 0 or self.timeout <= 0:
            raise NotifyConfigError("retries must be >= 0 and timeout > 0")
        return self


def load_key(key: str | None, key_file: str | None) -> str:
    """The key from the config, or from a file kept out of the repository."""
    if key_file:
        try:
            return Path(key_file).read_text("utf-8").strip()
        except OSError as exc:
            raise NotifyConfigError(f"cannot read the IndexNow key file {key_file}: "
                                    f"{exc.strerror}") from None
    if not key:
        raise NotifyConfigError("IndexNow needs a key (key or key_file)")
    return key.strip()


def write_key_file(site_dir: str | Path, key: str) -> Path:
    """``<key>.txt`` holding the key, at the site root, where engines verify it."""
    path = Path(site_dir) / f"{key}.txt"
    atomic_write(path, key)
    return path


@dataclass
class NotifyResult:
    submitted: int = 0  # URLs the endpoint accepted
    requests: int = 0
    failures: list[str] = field(default_factory=list)
    failed_urls: list[str] = field(default_factory=list)
    planned: list[dict[str, object]] = field(default_factory=list)  # dry run: the payloads
    planned_urls: int = 0

    def summary(self) -> str:
        if self.planned:
            return (f"IndexNow dry run: {count(self.planned_urls, 'URL')} in "
                    f"{count(len(self.planned), 'request')} (not sent)")
        state = f", {len(self.failures)} failed" if self.failures else ""
        return (f"IndexNow: {count(self.submitted, 'URL')} accepted in "
                f"{count(self.requests, 'request')}{state}")


def submit_indexnow(urls: Iterable[str], options: IndexNowOptions,
                    sleep: Callable[[float], None] = time.sleep) -> NotifyResult:
    """POST changed URLs, one host and at most ``batch_size`` URLs per request."""
    opts = options.checked()
    by_host: dict[str, list[str]] = {}
    for url in urls:
        by_host.setdefault(urlsplit(url).netloc, []).append(url)
    result = NotifyResult()
    for host, host_urls in by_host.items():
        for start in range(0, len(host_urls), opts.batch_size):
            batch = host_urls[start:start + opts.batch_size]
            payload: dict[str, object] = {"host": host, "key": opts.key, "urlList": batch}
            if opts.key_location:
                payload["keyLocation"] = opts.key_location
            if opts.dry_run:
                result.planned.append(payload)
                result.planned_urls += len(batch)
                continue
            body = json.dumps(payload).encode()
            import urllib.request  # on use: urllib.request costs a CLI start ~20 ms

            request = urllib.request.Request(opts.endpoint, body, method="POST", headers={
                "Content-Type": "application/json; charset=utf-8", "User-Agent": USER_AGENT})
            error = _send(request, opts.timeout, opts.retries, opts.backoff, sleep, result)
            if error:
                result.failures.append(f"IndexNow {opts.endpoint} ({host}, "
                                       f"{count(len(batch), 'URL')}): "
                                       f"{error}")
                result.failed_urls += batch
            else:
                result.submitted += len(batch)
    return result


def ping(templates: Sequence[str], sitemap_url: str, timeout: float = 10.0, retries: int = 2,
         sleep: Callable[[float], None] = time.sleep) -> NotifyResult:
    """GET each template with ``{sitemap}`` filled in, for engines that still take pings."""
    result = NotifyResult()
    for template in templates:
        if "{sitemap}" not in template:
            raise NotifyConfigError(f"ping template {template!r} has no {{sitemap}}")
        if any(retired in template for retired in RETIRED_PINGS):
            result.failures.append(f"{template}: this ping endpoint was retired (Google in 2023, "
                                   "Bing in 2022); not called. robots.txt is the discovery path")
            continue
        url = template.replace("{sitemap}", quote(sitemap_url, safe=""))
        import urllib.request

        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
        error = _send(request, timeout, retries, 1.0, sleep, result)
        if error:
            result.failures.append(f"ping {url}: {error}")
        else:
            result.submitted += 1
    return result


def _send(request: urllib.request.Request, timeout: float, retries: int, backoff: float,
          sleep: Callable[[float], None], result: NotifyResult) -> str | None:
    """None on success; else why it failed. Retries 429, 5xx and network errors."""
    import urllib.error
    import urllib.request

    why = ""
    for attempt in range(retries + 1):
        result.requests += 1
        wait = backoff * 2 ** attempt
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                response.read()
                return None
        except urllib.error.HTTPError as exc:
            why = f"HTTP {exc.code} {ANSWERS.get(exc.code, exc.reason)}"
            if exc.code != 429 and exc.code < 500:
                return why  # the request itself is wrong: retrying cannot help
            after = exc.headers.get("Retry-After", "")
            if after.isdigit():
                wait = min(float(after), 60.0)
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            why = f"{getattr(exc, 'reason', exc)}"
        if attempt < retries:
            sleep(wait)
    return f"{why} (after {retries + 1} attempts)"


def announce(changes: Changes | None, entry_url: str, indexnow: IndexNowOptions | None,
             ping_templates: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """After a write: IndexNow for changed URLs, then pings. Returns (notes, failures);
    the CLI and both plugins report these the same way."""
    notes: list[str] = []
    failures: list[str] = []
    if indexnow is not None:
        if changes is None or changes.baseline:
            notes.append(f"IndexNow: nothing submitted: {changes.why}; later runs submit "
                         "what changed" if changes is not None and changes.why else
                         "IndexNow: first run here, so the lastmod record was started and "
                         "nothing was submitted; later runs submit what changed")
        elif not changes.all:
            notes.append("IndexNow: no URL changed since the previous run; nothing submitted")
        else:
            sent = submit_indexnow(changes.all, indexnow)
            notes.append(sent.summary() + f" ({len(changes.changed)} changed, "
                         f"{len(changes.removed)} removed)")
            failures += sent.failures
            # Not sent (dry run) or refused: the next run offers them again.
            changes.requeue(changes.all if indexnow.dry_run else sent.failed_urls)
    if ping_templates:
        pinged = ping(ping_templates, entry_url)
        if pinged.submitted:
            notes.append(f"pinged {pinged.submitted} endpoints")
        failures += pinged.failures
    return notes, failures
