"""nbgrader's autograde and generate_feedback as a course that uses the kit runs them.

`install()`, called by nbgrader_config.py, puts KitAutograde and KitFeedback
where nbgrader's command-line apps and its formgrader's API create their
converters (nbgrader 0.9.6 has no setting for the converter class). They
are nbgrader's own converters with three changes:

- What they take from a student's folder (nbgrader_student_files): only the
  regular files she handed in, bounded, never through a link, and each
  notebook read the same way. A notebook that is a link, a special file or
  too large is not read: it is graded as an empty notebook (nbgrader puts
  its check cells back) whose every graded cell scores 0 with the sentence
  `autograder grade` says (REFUSED_KEY, for ExecuteUntilKernelDies and
  GradeCheckCellsInSandbox). Files left out are named in the first check
  cell's feedback (LEFT_OUT_KEY).
- timestamp.txt is read the same way; one that is not a timestamp counts as
  none (nbgrader would stop the whole run).
- Before anything of a submission can fail, every grade of its notebooks is
  set to 0 and marked as needing a look, with the reason in its comments: a
  run that fails half-way (a broken cell, a kernel that cannot start) leaves
  those zeros, never a previous run's points; a run that finishes replaces
  them with what SaveAutoGrades stores.
"""

from __future__ import annotations

import datetime
import os

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.converters import Autograde, BaseConverter, GenerateFeedback
from nbgrader.utils import parse_utc

from autograder.catalog import messages
from autograder.integrations import nbgrader_student_files
from autograder.load import bounded_json, regular_file
from autograder.sandbox.parent import SUBMISSION_CAP_BYTES

# Where a notebook's refusal and its folder's left-out files travel from the converter to the preprocessors.
REFUSED_KEY = "autograder_refused"
LEFT_OUT_KEY = "autograder_left_out"


class _HandedInFilesOnly(BaseConverter):
    """BaseConverter's copy of a student's folder and its reading of notebooks, under nbgrader_student_files."""

    def __init__(self, coursedir=None, **kwargs) -> None:
        super().__init__(coursedir=coursedir, **kwargs)
        # (assignment, student): files not copied
        self._left_out: dict[tuple[str, str], list[nbgrader_student_files.LeftOut]] = {}
        self._refused: dict[tuple[str, str, str], str] = {}  # (assignment, student, notebook): why not read
        # nbgrader reads timestamp.txt through CourseDirectory, which the app shares with this converter.
        self.coursedir.get_existing_timestamp = self._existing_timestamp

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        left_out = nbgrader_student_files.copy_handed_in(self._format_source(assignment_id, student_id),
                                                         self._format_dest(assignment_id, student_id),
                                                         [*self.coursedir.ignore, "*.ipynb"])
        for item in left_out:
            self.log.warning("%s, %s: not copied: %s", student_id, assignment_id, item.shown())
        self._left_out[(assignment_id, student_id)] = left_out  # said in the feedback's language, later

    def init_single_notebook_resources(self, notebook_filename: str) -> dict:
        resources = super().init_single_notebook_resources(notebook_filename)
        ids = resources["nbgrader"]
        resources[LEFT_OUT_KEY] = self._left_out.get((ids["assignment"], ids["student"]), [])
        refused = self._refused.get((ids["assignment"], ids["student"], ids["notebook"]))
        if refused:
            resources[REFUSED_KEY] = refused
        return resources

    def convert_single_notebook(self, notebook_filename: str) -> None:
        """BaseConverter's conversion, reading the notebook itself (see _read) instead of the exporter's open()."""
        self.log.info("Converting notebook %s", notebook_filename)
        resources = self.init_single_notebook_resources(notebook_filename)
        folder, name = os.path.split(notebook_filename)
        modified = datetime.datetime.fromtimestamp(os.lstat(notebook_filename).st_mtime, tz=datetime.timezone.utc)
        resources["metadata"] = {"name": os.path.splitext(name)[0], "path": folder,  # as the exporter's own
                                 "modified_date": modified.strftime("%B %-d, %Y")}
        output, resources = self.exporter.from_notebook_node(self._read(notebook_filename, resources), resources)
        self.write_single_notebook(output, resources)

    def _read(self, notebook_filename: str, resources: dict) -> nbformat.NotebookNode:
        """The notebook, or an empty one standing in for a notebook that is refused (the reason in resources)."""
        name = os.path.basename(notebook_filename)
        try:
            text = nbgrader_student_files.read_notebook(notebook_filename).decode("utf-8")
            bounded_json.check_depth(text)
            return nbformat.reads(text, as_version=4)
        except OSError as error:
            key, fields = regular_file.reason(error)
            refused = messages.text("load.not_a_file", file=name, why=messages.text(key, **fields),
                                    limit_mib=SUBMISSION_CAP_BYTES >> 20)
        except bounded_json.JSONLimitExceeded as error:
            refused = messages.text("load.too_deep", path=name, depth=error.limit.maximum)
        except UnicodeDecodeError:
            refused = messages.text("load.not_utf8", path=name)
        except ValueError as error:  # not JSON, or JSON that is not a notebook
            refused = messages.text("load.not_json", path=name, error=error)
        ids = resources["nbgrader"]
        self.log.warning("%s, %s: %s", ids["student"], ids["assignment"], refused)
        self._refused[(ids["assignment"], ids["student"], ids["notebook"])] = refused
        resources[REFUSED_KEY] = refused
        return nbformat.v4.new_notebook()

    def _existing_timestamp(self, folder: str) -> datetime.datetime | None:
        text = nbgrader_student_files.read_timestamp(folder)
        try:
            return parse_utc(text) if text else None
        except (ValueError, OverflowError):
            self.log.warning("%s: timestamp.txt is not a timestamp (%r); taken as none", folder, (text or "")[:100])
            return None


class KitAutograde(Autograde, _HandedInFilesOnly):
    """nbgrader's Autograde: handed-in files only, and every grade at 0 before anything can fail."""

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        self._zero_before_grading(assignment_id, student_id)
        super().init_assignment(assignment_id, student_id)

    def _zero_before_grading(self, assignment_id: str, student_id: str) -> None:
        """Every grade of the notebooks about to be graded at 0, needing a look, the reason in their comments."""
        notebooks = {os.path.splitext(os.path.basename(path))[0] for path in self.notebooks}
        reason = messages.text("nbgrader.not_graded_yet")
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gradebook:
            try:
                submission = gradebook.find_submission(assignment_id, student_id)
            except MissingEntry:
                return  # a first submission: no points to keep
            for notebook in submission.notebooks:
                if notebook.name not in notebooks:
                    continue
                for grade in notebook.grades:
                    grade.auto_score, grade.needs_manual_grade = 0, True
                for comment in notebook.comments:
                    comment.auto_comment = reason
            gradebook.db.commit()
        self.log.info("%s, %s: every grade set to 0 until this run saves new ones", student_id, assignment_id)


class KitFeedback(GenerateFeedback, _HandedInFilesOnly):
    """nbgrader's GenerateFeedback: only regular files of `autograded/` go into `feedback/`."""


def install() -> None:
    """Make nbgrader's apps and formgrader API create KitAutograde and KitFeedback (RuntimeError if nbgrader
    changed where it names them), and hold the process's feedback language: nbgrader_config.py is where the kit
    enters nbgrader's process, so $AUTOGRADER_LANG is read here, once (messages.hold)."""
    from nbgrader.apps import api, autogradeapp, generatefeedbackapp

    messages.hold(messages.from_environment(), hints=messages.hint_level_override())

    for module, name, replacement in ((autogradeapp, "Autograde", KitAutograde), (api, "Autograde", KitAutograde),
                                      (generatefeedbackapp, "GenerateFeedback", KitFeedback),
                                      (api, "GenerateFeedback", KitFeedback)):
        current = getattr(module, name, None)
        if current not in (replacement, replacement.__mro__[1]):
            raise RuntimeError(f"nbgrader changed: {module.__name__}.{name} is {current!r}; update {__name__}")
        setattr(module, name, replacement)
