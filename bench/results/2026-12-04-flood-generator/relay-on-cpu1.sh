#!/bin/sh
# moonbridge on CPU 1 alone (run.sh's pinned runs), from the repository's root; exec keeps the
# PID that mbbench started and measures.
exec taskset -c 1 bin/moonbridge "$@"
