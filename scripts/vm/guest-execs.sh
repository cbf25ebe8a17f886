# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What a job launched on one guest: every exec the kernel traced
# (sched_process_exec) from execs_start to execs_count, per program, for
# run.sh's timing line and check.sh's table. Under TCG an exec costs
# some 30 ms on a production kernel and 0.25-0.45 s on the debug one, a
# cold python3 about 0.4 s and 2.7 s: the count names the tests whose
# time goes into starting tools.
#
# Sourced, never run, and built-ins only, so that counting launches
# nothing: guest-init.sh sources it on guest 1, the agent's `bash -c`
# on the others. That bash's own exec comes before execs_start, or, at
# the count, is skipped by its pid.

execs_trace=/sys/kernel/tracing

# At boot: the event on, and room for a job's execs (an entry is some
# 40 bytes; the busiest test launches under 1,000 programs).
execs_setup() {
	[ -w "$execs_trace/events/sched/sched_process_exec/enable" ] || return 0
	echo 1024 >"$execs_trace/buffer_size_kb" &&
		echo 1 >"$execs_trace/events/sched/sched_process_exec/enable"
}

execs_start() {
	[ -w "$execs_trace/trace" ] || return 0
	: >"$execs_trace/trace"
}

# execs_count OUT: "PROGRAM N" lines, and "overrun N" when the buffer
# lost events (the count is then a lower bound).
execs_count() {
	local l p pid lost=0 me=$$ f
	local -A n=()

	[ -r "$execs_trace/trace" ] || return 0
	while read -r l; do
		[[ $l == *"sched_process_exec: filename="* ]] || continue
		pid=${l##* pid=}
		[ "${pid%% *}" = "$me" ] && continue
		p=${l##*filename=}
		p=${p%% *}
		p=${p##*/}
		n[$p]=$((${n[$p]:-0} + 1))
	done <"$execs_trace/trace"
	for f in "$execs_trace"/per_cpu/cpu*/stats; do
		while read -r l; do
			case $l in "overrun: "*) lost=$((lost + ${l#overrun: })) ;; esac
		done <"$f"
	done
	{
		for p in "${!n[@]}"; do
			echo "$p ${n[$p]}"
		done
		[ "$lost" = 0 ] || echo "overrun $lost"
	} >"$1"
}
