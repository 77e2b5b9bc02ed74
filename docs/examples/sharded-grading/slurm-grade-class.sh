#!/bin/bash
# Grade a whole class as a Slurm job array: one array task per shard, then a merge job.
#
#   sbatch docs/examples/sharded-grading/slurm-grade-class.sh              # submits both steps
#
# Run from a copy of this kit on a shared file system that every node sees, with the kit's
# virtual environment set up (`make test` or `python -m venv .venv && .venv/bin/pip install -e .`)
# and the submissions under SUBMISSIONS. The OS sandbox needs root and bubblewrap on the nodes;
# where jobs do not run as root, set SANDBOX=process (weaker isolation; every result records it).
# Each task grades shard $SLURM_ARRAY_TASK_ID of SHARDS (`autograder grade --shard K/N`); the merge
# job, which starts once every task has ended, combines them (`autograder merge`) into what one
# `autograder grade` of the whole class writes. See docs/ci-and-lms.md, "Grading on several machines".
#
# To change the number of shards, change both SHARDS and --array (0 to SHARDS-1).
#SBATCH --job-name=grade-class
#SBATCH --array=0-3
#SBATCH --cpus-per-task=4
#SBATCH --mem=8G
#SBATCH --time=03:00:00
#SBATCH --output=grade-class-%A-%a.log
set -euo pipefail

SHARDS=4                          # --array above lists shards 0 to SHARDS-1
SEED=${SEED:-2026}                # the same for every shard: the merge refuses different seeds
SUBMISSIONS=${SUBMISSIONS:-submitted}
OUT=${OUT:-out}
SANDBOX=${SANDBOX:-os}
cd "${SLURM_SUBMIT_DIR:-.}"

# Submitted by the first task only: the merge waits for every task of this array (afterany: it also
# runs when a task failed, and then refuses the incomplete set, saying which shard is missing).
if [ "${SLURM_ARRAY_TASK_ID}" = 0 ]; then
  sbatch --job-name=merge-class --dependency="afterany:${SLURM_ARRAY_JOB_ID}" --output="merge-class-%j.log" \
    --wrap=".venv/bin/autograder merge $(for k in $(seq 0 $((SHARDS - 1))); do printf '%s ' "$OUT/shard-$k"; done)--out $OUT/class --junit-xml $OUT/class/junit.xml"
fi

.venv/bin/autograder grade "$SUBMISSIONS" --out "$OUT/shard-${SLURM_ARRAY_TASK_ID}" \
  --shard "${SLURM_ARRAY_TASK_ID}/${SHARDS}" --seed "$SEED" --jobs "${SLURM_CPUS_PER_TASK:-1}" --sandbox "$SANDBOX"
