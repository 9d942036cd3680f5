#!/bin/sh
# pase_model.sh - pase's cost model against the simulator (issue 13): builds
# and runs build/bench/bench_pasemodel (its head comment says what each
# column is) from the repository root. With --md it prints the table of
# docs/benchmarks.md's "Model and simulator"; other arguments name cases,
# GRAPH@bB:K (a sample graph at batch B on K devices).
#
# usage: bench/pase_model.sh [--md] [GRAPH@bB:K ...]
set -e
cd "$(dirname "$0")/.."
make -s -j2 build/bench/bench_pasemodel >&2
exec build/bench/bench_pasemodel "$@"
