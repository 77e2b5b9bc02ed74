"""What one grading run decides, as one value: built once where the run starts, carried whole.

`autograder grade` builds it from its flags, the environment ($AUTOGRADER_LANG,
$AUTOGRADER_HINTS, $AUTOGRADER_SEED through the seed policy) and grading.toml;
the batch passes it down as it is, and sends it to each grading worker once,
as one JSON line before the first job. A worker neither parses a command line
for it nor reads grading.toml again, so every worker grades with exactly what
the parent decided, even if grading.toml changes on disk meanwhile.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from autograder.grading_config import GradingConfig, Limits


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """One run's options.

    Attributes:
        config: grading.toml, parsed (points, limits, devices, hint levels, seed policy).
        seed: the hidden inputs' seed, resolved (never the student package's public seed).
        sandbox: where submission code runs, "os" or "process" (pipeline.SANDBOX_MODES).
        assignment: --assignment, or None: each submission's own.
        language: the feedback language asked for (--lang, else $AUTOGRADER_LANG), or None: each
            notebook's own.
        hints: the hint level asked for (--hints, else $AUTOGRADER_HINTS), or None: grading.toml's.
    """

    config: GradingConfig
    seed: int
    sandbox: str = "os"
    assignment: str | None = None
    language: str | None = None
    hints: str | None = None

    @property
    def limits(self) -> Limits:
        return self.config.limits

    @property
    def hint_level(self) -> str:
        """The level every hint of this run is said at."""
        return self.hints or self.config.hint_level("grade")

    def to_json(self) -> str:
        """The whole value as one line of JSON (for a worker's stdin)."""
        return json.dumps({**dataclasses.asdict(self), "config": _config_data(self.config)}, ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str) -> RunOptions:
        """What `to_json` wrote; a ValueError, KeyError or TypeError for anything else."""
        data = json.loads(line)
        return cls(**{**data, "config": _config_from(data["config"])})


def _config_data(config: GradingConfig) -> dict:
    data = dataclasses.asdict(config)
    return {**data, "source": str(config.source), "devices": {a: list(c) for a, c in config.devices.items()}}


def _config_from(data: dict) -> GradingConfig:
    return GradingConfig(**{**data, "limits": Limits(**data["limits"]), "source": Path(data["source"]),
                            "devices": {a: tuple(c) for a, c in data["devices"].items()}})
