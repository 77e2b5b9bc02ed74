"""Environment variables that tell `autograder grade` where it runs, set by the kit's own launchers."""

from __future__ import annotations

# Set by the Gradescope image's run_autograder (integrations/gradescope_run): the image holds no solutions
# by design, so the batch's staff note says what that costs instead of asking for solutions/.
IMAGE_WITHOUT_SOLUTIONS = "AUTOGRADER_IMAGE_WITHOUT_SOLUTIONS"
