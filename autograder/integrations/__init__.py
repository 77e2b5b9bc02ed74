"""Running the kit inside other grading systems.

- gradescope_zip: Gradescope's autograder zip for one assignment (setup.sh,
  run_autograder, the kit as a wheel); gradescope_scripts holds the text of
  the two scripts, gradescope_run the code its run_autograder runs.
- github_classroom: what a GitHub Classroom workflow reports, in the form
  the classroom-resources autograding actions read; the workflow template
  and its instructions are in the github_classroom/ folder beside it.
"""
