#!/bin/sh
# pipe_schedules.sh - the pipeline schedules' and the kernel overhead's
# numbers in docs/benchmarks.md ("Results: pipeline schedules and the price
# of small work"): whole backward blocks, zb-h1 and interleaved 1F1B on
# gpt2-small, V searched by 1f1b and hybrid (bert-large, vit-b16), and
# ResNet-50's micro-batch count with and without the kernel overhead.
# Prints markdown rows; each value is a makespan from a real run.
# Usage: sh bench/pipe_schedules.sh [DNNPART]
set -eu
D=${1:-./dnnpart}
G=sample_graphs/gpt2-small.json
R=sample_graphs/resnet50.json
B=sample_graphs/bert-large.json
V=sample_graphs/vit-b16.json
ms() { "$D" plan "$@" 2>/dev/null | awk '/^makespan/ {gsub(/[()]/, "", $4); printf "%.1f ms", $4 / 1000}'; }
label() { "$D" plan "$@" 2>/dev/null | awk '/^lowered/ {sub(/.*strategy /, ""); sub(/\)$/, ""); print}'; }
echo "| case | makespan | strategy |"
echo "|---|---|---|"
for sch in 1f1b zb-h1; do
	echo "| gpt2-small K=4 -M 8 --schedule $sch | $(ms $G -k 4 --algo 1f1b -M 8 --schedule $sch) | $(label $G -k 4 --algo 1f1b -M 8 --schedule $sch) |"
done
echo "| gpt2-small K=4 -M 8 --virtual-stages 3 | $(ms $G -k 4 --algo 1f1b -M 8 --virtual-stages 3) | $(label $G -k 4 --algo 1f1b -M 8 --virtual-stages 3) |"
echo "| gpt2-small K=4 1f1b (its search) | $(ms $G -k 4 --algo 1f1b) | $(label $G -k 4 --algo 1f1b) |"
for x in "$B bert-large" "$V vit-b16"; do
	set -- $x
	for a in 1f1b hybrid; do
		for k in 4 8; do
			echo "| $2 K=$k $a --virtual-stages 1 | $(ms $1 -k $k --algo $a --virtual-stages 1) | $(label $1 -k $k --algo $a --virtual-stages 1) |"
			echo "| $2 K=$k $a (V searched) | $(ms $1 -k $k --algo $a) | $(label $1 -k $k --algo $a) |"
		done
	done
done
for o in 0 5us; do
	for M in 16 64; do
		echo "| resnet50 --batch 64 K=4 1f1b -M $M --kernel-overhead $o | $(ms $R -k 4 --batch 64 --algo 1f1b -M $M --kernel-overhead $o) | $(label $R -k 4 --batch 64 --algo 1f1b -M $M --kernel-overhead $o) |"
	done
	echo "| resnet50 --batch 64 K=4 1f1b (its search) --kernel-overhead $o | $(ms $R -k 4 --batch 64 --algo 1f1b --kernel-overhead $o) | $(label $R -k 4 --batch 64 --algo 1f1b --kernel-overhead $o) |"
done
