"""The folder mode's worker processes: tasks spread over idle workers, a second pass
sent to the worker that ran the first, and a worker that dies is an error naming what
it was doing, never a hang or a silent rerun."""

from __future__ import annotations

import os
import signal

import pytest

from sitemapkit.errors import OutputError
from sitemapkit.write import affinity
from sitemapkit.write.affinity import Workers


def where(tag: str) -> tuple[str, int, object]:
    affinity.keep(int(tag), f"kept {tag} in {os.getpid()}")
    return tag, os.getpid(), None


def back(tag: str) -> tuple[str, int, object]:
    return tag, os.getpid(), affinity.take(int(tag))


def die(_: str) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def fail(tag: str) -> None:
    raise ValueError(f"task {tag} failed")


@pytest.fixture
def workers():
    pool = Workers(2)
    yield pool
    pool.close()


def test_a_second_pass_runs_where_the_first_kept_its_result(workers):
    first, ran, failure = workers.run([(where, (str(i),), f"task {i}") for i in range(6)])
    assert failure is None and len(ran) == 6 and set(ran) == {0, 1}
    pids = {i: pid for i, (_, pid, _) in enumerate(first)}
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
    second, again, failure = workers.run([(back, (str(i),), f"task {i}") for i in range(6)],
                                         ran)
    assert failure is None and again == ran
    for i, (tag, pid, kept) in enumerate(second):
        assert (tag, pid, kept) == (str(i), pids[i], f"kept {i} in {pids[i]}")


def test_a_task_that_raises_is_the_failure_and_the_others_still_answer(workers):
    results, _, failure = workers.run([(where, ("1",), "one"), (fail, ("2",), "two"),
                                       (where, ("3",), "three")])
    assert isinstance(failure, ValueError) and str(failure) == "task 2 failed"
    assert results[1] is None and results[0][0] == "1"


def test_a_worker_that_dies_is_an_error_naming_its_task(workers):
    results, _, failure = workers.run([(where, ("1",), "reading part-1.tsv"),
                                       (die, ("2",), "reading part-2.tsv")])
    assert isinstance(failure, OutputError)
    assert "a worker process died while reading part-2.tsv" in str(failure)
