"""Authoring: the skeletons of a new assignment (`autograder new-assignment`) and the translation catalogs'
new entries (`autograder i18n sync`).

Instructor-side tools that write into a copy of the repository; nothing here runs at grading time.
The files' text lives in `skeletons/` as data, filled by `string.Template`.
"""
