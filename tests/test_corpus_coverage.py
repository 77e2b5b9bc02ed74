"""Every graded property is failed by at least one mistake in the corpus: no check is dead weight."""

from __future__ import annotations

from corpus_cases import mistakes


def test_every_property_is_failed_by_some_mistake(config):
    covered = {(c.assignment, c.function, prop) for c in mistakes() for prop in c.fails}
    missing = [f"{a} / {f} / {p!r}"
               for a in config.assignments for f, props in config.points[a].items() for p in props
               if (a, f, p) not in covered]
    assert not missing, "No mistake in tests/corpus fails these checks:\n" + "\n".join(missing)


def test_every_listed_property_exists(config):
    unknown = [f"{c.id}: {c.function} / {p!r}" for c in mistakes() for p in c.fails
               if p not in config.points.get(c.assignment, {}).get(c.function, {})]
    assert not unknown, "cases.toml names properties that grading.toml does not have:\n" + "\n".join(unknown)
