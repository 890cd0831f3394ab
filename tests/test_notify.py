"""Change detection through the writer's lastmod record, IndexNow and the ping hook,
against a real HTTP server on 127.0.0.1 (no other network)."""

from __future__ import annotations

import socket

import pytest

from conftest import BASE
from sitemapkit import UrlEntry
from sitemapkit.cli import main
from sitemapkit.publish.notify import (
    IndexNowOptions,
    NotifyConfigError,
    load_key,
    ping,
    submit_indexnow,
)

KEY = "0123456789abcdef"


def pages(**lastmods: str) -> list[UrlEntry]:
    return [UrlEntry(BASE + name, lastmod) for name, lastmod in lastmods.items()]


def test_changes_since_the_previous_run(impl, tmp_path):
    record = str(tmp_path / "state" / "lastmods.json")
    out = tmp_path / "out"
    first = impl.write(pages(a="2024-01-01", b="2024-01-01", c="2024-01-01"), out, BASE,
                       changes_file=record)
    assert first.changes.baseline and first.changes.all == []
    second = impl.write(pages(a="2024-01-01", b="2024-02-02", d="2024-01-01"), out, BASE,
                        changes_file=record)
    assert (second.changes.changed, second.changes.removed) == ([BASE + "b", BASE + "d"],
                                                                [BASE + "c"])
    third = impl.write(pages(a="2024-01-01", b="2024-02-02", d="2024-01-01"), out, BASE,
                       changes_file=record)
    assert third.changes.all == [] and not third.changes.baseline


def test_changes_across_shards_and_escaped_locs(impl, tmp_path):
    record = str(tmp_path / "lastmods.json")
    entries = [UrlEntry(f"{BASE}p{i}?a=1&b='{i}'", "2024-01-01") for i in range(25)]
    impl.write(entries, tmp_path / "o", BASE, changes_file=record, max_urls=10)
    entries[17] = entries[17]._replace(lastmod="2024-03-03")
    again = impl.write(entries, tmp_path / "o", BASE, changes_file=record, max_urls=10)
    assert again.changes.changed == [f"{BASE}p17?a=1&b='17'"]


def test_record_of_another_site_is_not_compared(impl, tmp_path):
    record = str(tmp_path / "lastmods.json")
    impl.write(pages(a="2024-01-01"), tmp_path / "o", BASE, changes_file=record)
    other = "https://other.example/"
    result = impl.write([UrlEntry(other + "a", "2024-01-01")], tmp_path / "p", other,
                        changes_file=record)
    assert result.changes.baseline


def test_failed_write_keeps_the_old_record(impl, tmp_path):
    record = tmp_path / "lastmods.json"
    impl.write(pages(a="2024-01-01"), tmp_path / "o", BASE, changes_file=str(record))
    before = record.read_bytes()
    with pytest.raises(Exception, match="loc-absolute"):
        impl.write([BASE + "a", "/relative"], tmp_path / "o", BASE, changes_file=str(record))
    assert record.read_bytes() == before


def test_indexnow_batches_per_host(engine):
    urls = [f"https://a.example/p{i}" for i in range(23)] + ["https://b.example/x"]
    options = IndexNowOptions(KEY, "https://a.example/key.txt", engine.url + "/indexnow",
                              batch_size=10)
    result = submit_indexnow(urls, options)
    assert (result.submitted, result.requests, result.failures) == (24, 4, [])
    bodies = [seen.json() for seen in engine.seen]
    assert [(b["host"], len(b["urlList"])) for b in bodies] == [
        ("a.example", 10), ("a.example", 10), ("a.example", 3), ("b.example", 1)]
    assert bodies[0]["key"] == KEY and bodies[0]["keyLocation"] == "https://a.example/key.txt"
    first = engine.seen[0]
    assert first.method == "POST" and first.path == "/indexnow"
    assert first.headers["Content-Type"] == "application/json; charset=utf-8"


def test_indexnow_retries_429_and_5xx_with_backoff(engine):
    engine.script = [(429, 0), (503, 0), (200, 0)]
    waits: list[float] = []
    result = submit_indexnow([BASE + "a"], IndexNowOptions(KEY, endpoint=engine.url, retries=3,
                                                           backoff=0.5), sleep=waits.append)
    assert (result.submitted, result.requests, result.failures) == (1, 3, [])
    assert waits == [0.0, 1.0]  # Retry-After: 0 wins, then 0.5 * 2**1


def test_indexnow_does_not_retry_a_rejected_key(engine):
    engine.default = (403, 0)
    result = submit_indexnow([BASE + "a"], IndexNowOptions(KEY, endpoint=engine.url),
                             sleep=lambda s: None)
    assert result.requests == 1 and result.submitted == 0
    assert "HTTP 403 the key is not valid for this host" in result.failures[0]


def test_indexnow_timeout_is_a_failure_after_retries(engine):
    engine.default = (200, 1.0)
    result = submit_indexnow([BASE + "a"], IndexNowOptions(KEY, endpoint=engine.url,
                                                           timeout=0.2, retries=1),
                             sleep=lambda s: None)
    assert result.requests == 2 and "after 2 attempts" in result.failures[0]


def test_dry_run_sends_nothing(engine):
    result = submit_indexnow([BASE + "a", BASE + "b"],
                             IndexNowOptions(KEY, endpoint=engine.url, dry_run=True))
    assert engine.seen == [] and result.planned_urls == 2
    assert result.summary() == "IndexNow dry run: 2 URLs in 1 request (not sent)"


def test_keys_are_checked_and_read_from_files(tmp_path):
    with pytest.raises(NotifyConfigError, match="8-128 characters"):
        IndexNowOptions("short").checked()
    with pytest.raises(NotifyConfigError, match="8-128 characters"):
        IndexNowOptions("bad key with spaces").checked()
    (tmp_path / "key").write_text(KEY + "\n")
    assert load_key(None, str(tmp_path / "key")) == KEY
    with pytest.raises(NotifyConfigError, match="needs a key"):
        load_key(None, None)


def test_ping_hook_fills_the_template_and_skips_retired_endpoints(engine):
    result = ping([engine.url + "/ping?sitemap={sitemap}",
                   "https://www.google.com/ping?sitemap={sitemap}"], BASE + "sitemap.xml")
    assert [s.path for s in engine.seen] == [
        "/ping?sitemap=https%3A%2F%2Fexample.com%2Fdocs%2Fsitemap.xml"]
    assert result.submitted == 1 and "retired" in result.failures[0]
    with pytest.raises(NotifyConfigError, match="no {sitemap}"):
        ping(["https://example.com/ping"], BASE)


def test_cli_submits_only_what_changed(engine, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the lastmod record lives under ./.cache, never in OUT
    source, out = tmp_path / "urls.csv", tmp_path / "site"
    args = ["write", str(source), "-o", str(out), "--base-url", BASE, "--indexnow-key", KEY,
            "--indexnow-endpoint", engine.url + "/indexnow", "--changes-from", "local"]
    source.write_text(f"loc,lastmod\n{BASE}a,2024-01-01\n{BASE}b,2024-01-01\n")
    assert main(args) == 0
    assert engine.seen == [] and "first run here" in capsys.readouterr().err
    assert len(list((tmp_path / ".cache/sitemapkit").glob("lastmods-*.json"))) == 1
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
    source.write_text(f"loc,lastmod\n{BASE}a,2024-01-01\n{BASE}b,2024-05-05\n{BASE}c,\n")
    assert main([*args, "--dry-run"]) == 0
    assert engine.seen == [] and capsys.readouterr().out.splitlines()[-2:] == [
        f"would submit {BASE}b", f"would submit {BASE}c"]
    assert main(args) == 0
    assert [s.json()["urlList"] for s in engine.seen] == [[BASE + "b", BASE + "c"]]
    assert "IndexNow: 2 URLs accepted in 1 request (2 changed, 0 removed)" in \
        capsys.readouterr().err
    engine.default = (500, 0)
    source.write_text(f"loc,lastmod\n{BASE}a,2024-06-06\n")
    failing = [*args, "--notify-retries", "0"]
    assert main(failing) == 0 and "warning: IndexNow" in capsys.readouterr().err
    assert main([*failing, "--fail-on-notify-error"]) == 1  # the failed URLs are offered again
    engine.default = (200, 0)
    assert main(args) == 0
    assert engine.seen[-1].json()["urlList"] == [BASE + "a", BASE + "b", BASE + "c"]
    assert main([*args[:-6], "--indexnow-key", "x"]) == 2


def test_writing_makes_no_network_call(impl, tmp_path, monkeypatch):
    """Protocol-rules 40: no ping unless configured; nothing connects anywhere."""
    calls = []
    monkeypatch.setattr(socket.socket, "connect", lambda self, addr: calls.append(addr))
    result = impl.write(pages(a="2024-01-01"), tmp_path / "o", BASE,
                        changes_file=str(tmp_path / "r.json"))
    assert result.url_count == 1 and calls == []
