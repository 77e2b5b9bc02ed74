"""02_where: rewriting Python branching and boolean indexing with `jnp.where`."""

import numpy as np

from autograder.suites.api import Mistake, expect_gradient, expect_jittable, expect_output, graded, text

F32 = np.float32


def _mixed_signs(rng, shape):
    """Values of both signs, with some exact zeros (the edge every `> 0` test must get right): at least one,
    set without another draw, so the inputs that had one stay as they were."""
    x = rng.standard_normal(shape).astype(F32)
    x[rng.random(shape) < 0.15] = 0.0
    if not (x == 0).any():
        x.flat[x.size // 2] = 0.0
    return x


def _length(sizes):
    return int(sizes.integers(8, 60))


# --- sum_of_positive_numbers --------------------------------------------------

SUM_OF_POSITIVE_MISTAKES = (
    Mistake("02_where.sum_of_positive_numbers.mistake.mean", lambda x: F32(x[x > 0].astype(np.float64).mean())),
    Mistake("02_where.sum_of_positive_numbers.mistake.all_entries", lambda x: F32(x.astype(np.float64).sum())),
    Mistake("02_where.sum_of_positive_numbers.mistake.mean_of_all",
            lambda x: F32(np.where(x > 0, x.astype(np.float64), 0.0).mean())),
)

@graded("sum_of_positive_numbers", "correct")
def test_sum_of_positive_numbers_correct(submission, rng, sizes):
    for _ in range(3):
        x = _mixed_signs(rng, _length(sizes))
        expect_output(submission, "sum_of_positive_numbers", (x,), F32(x[x > 0].sum()),
                      hint=text("02_where.sum_of_positive_numbers.recipe"), mistakes=SUM_OF_POSITIVE_MISTAKES)


@graded("sum_of_positive_numbers", "no positive entries gives 0")
def test_sum_of_positive_numbers_none_positive(submission, rng, sizes):
    x = -np.abs(_mixed_signs(rng, _length(sizes)))
    expect_output(submission, "sum_of_positive_numbers", (x,), F32(0.0))


@graded("sum_of_positive_numbers", "jittable")
def test_sum_of_positive_numbers_jittable(submission, rng, sizes):
    x = _mixed_signs(rng, _length(sizes))
    expect_jittable(submission, "sum_of_positive_numbers", (x,), F32(x[x > 0].sum()))


# --- selu -----------------------------------------------------------------------

def _selu(x, alpha=1.67, lmbda=1.05):
    x64 = x.astype(np.float64)
    return (lmbda * np.where(x64 > 0, x64, alpha * np.exp(x64) - alpha)).astype(F32)


def _selu_variant(positive_scale, negative_scale):
    """selu with each branch scaled as a mistaken version scales it (1: lmbda forgotten there)."""
    def variant(x, alpha=1.67, lmbda=1.05):
        x64 = x.astype(np.float64)
        scale = {"lmbda": lmbda, "1": 1.0}
        return np.where(x64 > 0, scale[positive_scale] * x64,
                        scale[negative_scale] * alpha * np.expm1(x64)).astype(F32)
    return variant


SELU_MISTAKES = (
    Mistake("02_where.selu.mistake.no_scale", _selu_variant("1", "1")),
    Mistake("02_where.selu.mistake.scale_positive_only", _selu_variant("lmbda", "1")),
    Mistake("02_where.selu.mistake.scale_negative_only", _selu_variant("1", "lmbda")),
    Mistake("02_where.selu.mistake.swapped_parameters",
            lambda x, alpha=1.67, lmbda=1.05: _selu(x, alpha=lmbda, lmbda=alpha)),
    Mistake("02_where.selu.mistake.identity", lambda x, alpha=1.67, lmbda=1.05: x.copy()),
)


@graded("selu", "correct")
def test_selu_correct(submission, rng, sizes):
    for shape in [(_length(sizes),), (int(sizes.integers(2, 6)), int(sizes.integers(2, 6)))]:
        x = _mixed_signs(rng, shape) * F32(3)
        expect_output(submission, "selu", (x,), _selu(x), mistakes=SELU_MISTAKES)
    alpha, lmbda = float(rng.uniform(0.5, 2.0)), float(rng.uniform(0.5, 2.0))
    x = _mixed_signs(rng, (_length(sizes),))
    expect_output(submission, "selu", (x,), _selu(x, alpha, lmbda), kwargs={"alpha": alpha, "lmbda": lmbda},
                  mistakes=SELU_MISTAKES)


@graded("selu", "jittable")
def test_selu_jittable(submission, rng, sizes):
    x = _mixed_signs(rng, (_length(sizes),))
    expect_jittable(submission, "selu", (x,), _selu(x))


# --- masked_mean ----------------------------------------------------------------

MASKED_MEAN_MISTAKES = (
    Mistake("02_where.masked_mean.mistake.all_entries",
            lambda x, mask: F32(np.where(mask, x.astype(np.float64), 0.0).sum() / len(x))),
)


@graded("masked_mean", "correct")
def test_masked_mean_correct(submission, rng, sizes):
    for _ in range(3):
        x = rng.standard_normal(_length(sizes)).astype(F32)
        mask = rng.random(len(x)) < 0.5
        mask[int(rng.integers(0, len(x)))] = True
        expect_output(submission, "masked_mean", (x, mask), F32(x[mask].astype(np.float64).mean()),
                      hint=text("02_where.masked_mean.recipe"), mistakes=MASKED_MEAN_MISTAKES)


@graded("masked_mean", "empty mask gives 0, not NaN")
def test_masked_mean_empty_mask(submission, rng, sizes):
    x = rng.standard_normal(_length(sizes)).astype(F32)
    expect_output(submission, "masked_mean", (x, np.zeros(len(x), bool)), F32(0.0), exact=True,
                  hint=_zero_by_zero_hint)


def _zero_by_zero_hint(mean):
    """The 0 / 0 advice, only when the output is the NaN that 0 / 0 gives."""
    value = np.asarray(mean)
    return text("02_where.masked_mean.empty") if value.dtype.kind == "f" and np.isnan(value).any() else None


@graded("masked_mean", "jittable")
def test_masked_mean_jittable(submission, rng, sizes):
    x = rng.standard_normal(_length(sizes)).astype(F32)
    mask = rng.random(len(x)) < 0.5
    mask[int(rng.integers(0, len(x)))] = True
    expect_jittable(submission, "masked_mean", (x, mask), F32(x[mask].astype(np.float64).mean()))


# --- safe_log -------------------------------------------------------------------

def _safe_log(x):
    return np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), 0.0).astype(F32)


SAFE_LOG_MISTAKES = (
    Mistake("02_where.safe_log.mistake.log1p",
            lambda x: np.where(x > 0, np.log1p(np.where(x > 0, x, 0.0).astype(np.float64)), 0.0).astype(F32)),
    Mistake("02_where.safe_log.mistake.abs",
            lambda x: np.where(x != 0, np.log(np.abs(np.where(x != 0, x, 1.0)).astype(np.float64)), 0.0).astype(F32)),
    Mistake("02_where.safe_log.mistake.no_log", lambda x: np.where(x > 0, x, 0.0).astype(F32)),
)


@graded("safe_log", "correct")
def test_safe_log_correct(submission, rng, sizes):
    x = _mixed_signs(rng, (_length(sizes),)) * F32(4)
    expect_output(submission, "safe_log", (x,), _safe_log(x), mistakes=SAFE_LOG_MISTAKES)


@graded("safe_log", "jittable")
def test_safe_log_jittable(submission, rng, sizes):
    x = _mixed_signs(rng, (_length(sizes),))
    expect_jittable(submission, "safe_log", (x,), _safe_log(x))


@graded("safe_log", "gradient finite everywhere")
def test_safe_log_gradient(submission, rng, sizes):
    x = _mixed_signs(rng, (_length(sizes),))
    x[0] = 0.0  # the point where the single-where version's gradient is NaN
    expected = np.where(x > 0, 1.0 / np.where(x > 0, x, 1.0), 0.0).astype(F32)
    expect_gradient(submission, "safe_log", (x,), expected, hint=_nan_gradient_hint)


def _nan_gradient_hint(gradient):
    """The double-where idiom, only when the gradient shows what it prevents: a NaN or an inf."""
    finite = np.isfinite(np.asarray(gradient, dtype=np.float64)).all()
    return None if finite else text("02_where.safe_log.double_where")
