"""The table `autograder check` prints fits the terminal in every language: width counts columns, not characters."""

from __future__ import annotations

from autograder.catalog import messages
from autograder.check.results import CheckResult, SubmissionResult
from autograder.reports import terminal_table
from autograder.reports.display_width import display_width, ljust, wrap

KOREAN_FEEDBACK = (
    "`dropout(key, f32[10, 10, 6], 0.5)`: 같은 key로 두 번 호출했더니 출력이 달랐습니다. 즉 마스크가 key에서 "
    "나오지 않습니다. NumPy의 숨은 전역 상태가 아니라, 받은 key로 `jax.random`을 써서 뽑으세요. "
    "읽어 볼 것: `jax.random.bernoulli`, `jax.random.split`.")


def test_a_hangul_syllable_takes_two_columns_and_ascii_one():
    assert display_width("key 재사용") == 3 + 1 + 6
    assert display_width("ｘ") == 2  # fullwidth
    assert display_width("e\u0301") == 1  # a combining accent takes none


def test_wrapped_korean_lines_fit_the_width_in_columns():
    lines = wrap(KOREAN_FEEDBACK * 2, 60, initial_indent="      ", subsequent_indent="      ")
    assert len(lines) > 3
    assert all(display_width(line) <= 60 for line in lines), [display_width(line) for line in lines]
    assert " ".join(line.strip() for line in lines) == " ".join((KOREAN_FEEDBACK * 2).split())


def test_wrapping_keeps_the_spaces_that_align_a_value_excerpt():
    assert wrap("  결과: [1 2 3]", 100) == ["  결과: [1 2 3]"]
    assert wrap("  expected: [1 2 3]", 100) == ["  expected: [1 2 3]"]


def test_a_word_wider_than_the_line_is_cut():
    lines = wrap("가" * 30, 20)
    assert lines == ["가" * 10, "가" * 10, "가" * 10]


def test_padding_counts_columns():
    assert display_width(ljust("값이 맞음", 12)) == 12


def test_a_korean_table_fits_the_terminal_width():
    checks = [CheckResult("dropout", "same key same output, different keys differ", 0.0, 1.0, False,
                          KOREAN_FEEDBACK),
              CheckResult("random_walk", "exact match", 2.0, 2.0, True, "")]
    result = SubmissionResult("학생", "s.ipynb", "06_prng", 1, checks, notes=[KOREAN_FEEDBACK], language="ko")
    with messages.using("ko"):
        table = terminal_table.render(result)
    assert "같은 key면 같은 출력, 다른 key면 다른 출력" in table  # the check's name, in Korean
    too_wide = [line for line in table.splitlines() if display_width(line) > terminal_table.WIDTH]
    assert not too_wide, f"lines wider than {terminal_table.WIDTH} columns: {too_wide}"


def test_the_table_columns_line_up_in_columns():
    checks = [CheckResult("dropout", "no key reuse", 1.0, 1.0, True, ""),
              CheckResult("dropout", "exact match", 2.0, 2.0, True, "")]
    result = SubmissionResult("s", "s.ipynb", "06_prng", 1, checks, language="ko")
    with messages.using("ko"):
        rows = [line for line in terminal_table.render(result).splitlines() if line.startswith("✓")]
    points = [display_width(row[:row.index("/")]) for row in rows]
    assert len(set(points)) == 1, rows
