"""The kit's own course, built into its package: `autograder init-course` lays out a course from an installed kit.

pyproject.toml declares everything else. The repository keeps one copy of the
kit's course at its top (grading.toml, nbgrader_config.py, solutions/ and the
released assignments/); a built package carries a copy of them as
autograder/kit_course/. An editable install reads them from the checkout
itself (authoring.course_layout), so nothing is copied into the source tree.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

KIT_COURSE = ("grading.toml", "nbgrader_config.py", "solutions", "assignments")


class BuildWithKitCourse(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        here = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "autograder" / "kit_course"
        shutil.rmtree(target, ignore_errors=True)
        for name in KIT_COURSE:
            source = here / name
            if source.is_dir():
                shutil.copytree(source, target / name, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
            elif source.is_file():
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / name)


setup(cmdclass={"build_py": BuildWithKitCourse})
