"""nbgrader configuration for this course: solutions/ is the source, assignments/ the release.

Run nbgrader commands from this directory (or pass --CourseDirectory.root).
`autograder release` regenerates assignments/ with these settings.
"""

import os

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "assignments"

# JAX compiles on first use: give each cell time, and the kernel time to start.
c.ExecutePreprocessor.timeout = 300
c.ExecutePreprocessor.startup_timeout = 120
c.ExecutePreprocessor.interrupt_on_timeout = True

# Keep students' printed output from bloating submissions and feedback.
c.LimitOutput.max_lines = 500
c.LimitOutput.max_traceback = 100

# The check cells call the kit; the stub every solution region becomes.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
