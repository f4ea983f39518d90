#!/bin/sh
# The gate corpora (tests/gate/corpus/) on the policy `confpol init --claude`
# writes: explain, the gate on the policy and the gate on the artifact agree
# on every command, each class gates at least its floor and the everyday
# commands are asked at most the floor's number of times
# (tests/gate/corpus/floor).  Every miss and false positive is printed.
set -u
: "${CONFPOL:?}" "${TOP:?}"
command -v python3 >/dev/null || { echo "python3 is missing"; exit 77; }
python3 "$TOP/tests/gate/corpus.py" "$CONFPOL" "$TOP" --floor "$TOP/tests/gate/corpus/floor"
