"""The student distribution: checks that run without the answer key.

`autograder release --student-dist DIR` runs every assignment's suite once
against the reference solution, on public inputs drawn from a fixed seed,
and records what the suite asked of the solution and what the solution
answered (`recording`), and how the grader judged each answer: its
tolerances, and its hint for a wrong value (`probing`; both release side only). The student package ships that
record as data (`recorded`: JSON and an `.npz` of arrays, no pickles, no
code) and replays it against the student's functions (`replay`): the same
requests through the same in-process `Submission`, each answer compared with
the recorded one. Hidden inputs, the suites and the solutions stay with the
instructor's grader.
"""
