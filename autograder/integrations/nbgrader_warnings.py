"""The one warning nbgrader 0.9.6 prints with the pinned SQLAlchemy that is no news to anyone: filtered exactly.

nbgrader's gradebook (nbgrader/api.py) creates a SubmittedAssignment and
appends it to a student's submissions before the session holds it; SQLAlchemy
2.x warns "Object of type <SubmittedAssignment> not in session, add operation
along 'Student.submissions' will not proceed" three times per student, and
the row is saved all the same (the gradebook tests read it back). Only that
message, of SQLAlchemy's SAWarning category, is silenced; every other warning
still reaches the instructor. Called where nbgrader runs with the kit: the
preprocessors' module (which every course configuration using the kit
imports) and nbgrader_config.py.
"""

from __future__ import annotations

import warnings

# The submissions nbgrader's gradebook appends to a student's, an assignment's and a notebook's before the session
# holds them (nbgrader/api.py: add_submission and the SubmittedNotebook it makes).
KNOWN = (r"Object of type <(SubmittedAssignment|SubmittedNotebook)> not in session, add operation along "
         r"'(Student|Assignment|Notebook)\.submissions' will not proceed")


def quiet() -> None:
    """Ignore exactly the known SAWarning (nothing if SQLAlchemy is not installed)."""
    try:
        from sqlalchemy.exc import SAWarning
    except ImportError:
        return
    warnings.filterwarnings("ignore", message=KNOWN, category=SAWarning)
