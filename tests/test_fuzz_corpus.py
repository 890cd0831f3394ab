"""Every seed and every regression input of the fuzz harnesses (tests/fuzz), replayed on
both twins in the normal run: a harness that fails here would fail under atheris too.
Regression inputs are the crashes and tracebacks fuzzing found, kept once fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

FUZZ = Path(__file__).parent / "fuzz"
INPUTS = sorted(p for kind in ("corpus", "regressions") for p in (FUZZ / kind).glob("*/*"))


@pytest.mark.c_extension
def test_every_harness_has_seeds() -> None:
    from harnesses import HARNESSES

    seeded = {p.parent.name for p in INPUTS if p.parent.parent.name == "corpus"}
    assert seeded == set(HARNESSES)
    assert {p.parent.name for p in INPUTS} <= set(HARNESSES)


@pytest.mark.c_extension
def test_the_weekly_long_run_fuzzes_every_harness() -> None:
    """The scheduled 30-minute run (.github/workflows/fuzz.yml) names every harness, so
    a new C entry point cannot be left out of it."""
    import yaml
    from harnesses import HARNESSES

    workflow = yaml.safe_load((FUZZ.parent.parent / ".github/workflows/fuzz.yml").read_text())
    job = workflow["jobs"]["fuzz"]
    assert sorted(job["strategy"]["matrix"]["harness"]) == sorted(HARNESSES)
    run = job["steps"][-1]
    assert run["run"] == "bash .ci/sanitize.sh" and run["env"]["FUZZ_SECONDS"] == "1800"


@pytest.mark.c_extension
@pytest.mark.parametrize("path", INPUTS, ids=lambda p: f"{p.parent.parent.name}/"
                         f"{p.parent.name}/{p.name}")
def test_fuzz_input_replays_clean_on_both_twins(path: Path) -> None:
    from harnesses import HARNESSES

    HARNESSES[path.parent.name](path.read_bytes())
