"""The clean room: where the programs students' functions export are parsed, compiled and run.

Never in the trusted grading worker: a grading worker starts one runner
(`runner.py`, forked by its zygote into the same OS confinement as a
submission's child) and sends it serialized programs and hidden inputs.
Nothing here runs student Python; what it runs is StableHLO with no custom
calls. The student package runs the same code in the student's own process.
"""
