"""A mutation fuzzer through the front door: the fuzz seeds (tests/fuzz/corpus), with
bytes replaced, inserted and deleted from a hostile alphabet (lone carriage returns,
quotes, NULs, broken UTF-8, escapes, markup), as whole files given to
``sitemapkit write`` and ``sitemapkit validate``, plain and gzipped, on each twin.
Every run ends with exit status 0 or 1 and, when it fails, one ``sitemapkit: error``
line: never a traceback."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path

from figures import FIGURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run

CORPUS = Path(__file__).parent.parent / "fuzz" / "corpus"
SUFFIX = {"lines_text": ".txt", "lines_csv": ".csv", "lines_tsv": ".tsv",
          "lines_jsonl": ".jsonl", "scan": ".xml"}
SEEDS = sorted((p, SUFFIX[p.parent.name]) for p in CORPUS.glob("*/*") if p.parent.name in SUFFIX)
HOSTILE = [b"\r", b"\n", b"\r\n", b'"', b"'", b",", b"\t", b"\x00", b"\xff", b"\xc3",
           b"\xef\xbb\xbf", b"\\", b"\\u", b"\\ud800", b"{", b"}", b"[", b"<", b">", b"&",
           b"]]>", b"<!--", b"</url>", b"<url>", b"%", b" ", b"\x0b", b"\x85", b"\xe2\x80\xa8",
           b"9" * 30]
OUTCOMES: Counter[str] = Counter()
FIGURES["CLI mutation runs (write + validate), outcome"] = OUTCOMES


@st.composite
def mutated(draw: st.DrawFn) -> tuple[bytes, str]:
    path, suffix = draw(st.sampled_from(SEEDS))
    data = bytearray(path.read_bytes()[1:])  # the harness knob byte is not file data
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        piece = draw(st.one_of(st.sampled_from(HOSTILE), st.binary(min_size=1, max_size=4)))
        kind = draw(st.sampled_from(["insert", "replace", "delete"]))
        if kind == "insert":
            data[at:at] = piece
        elif kind == "replace":
            data[at:at + len(piece)] = piece
        else:
            del data[at:at + draw(st.integers(1, 8))]
    return bytes(data), suffix


@settings(max_examples=100, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=mutated(), gz=st.booleans())
def test_mutated_inputs_end_in_an_exit_status_never_a_traceback(
        twin_env, case, gz, tmp_path_factory):
    data, suffix = case
    work = tmp_path_factory.mktemp("m")
    name = "input" + suffix + (".gz" if gz else "")
    given_file = work / name
    given_file.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    args = (["validate", str(given_file)] if suffix == ".xml" else
            ["write", str(given_file), "-o", str(work / "out"),
             "--base-url", "https://example.com/", "--no-fsync", "-q"])
    done = run(*args, env=twin_env)
    code, err = done.returncode, done.stderr
    assert code in (0, 1), (code, err)
    assert "Traceback" not in err
    if code == 1 and args[0] == "write":
        assert err.startswith("sitemapkit: error: "), err
    OUTCOMES[f"{args[0]} exit {code}"] += 1
