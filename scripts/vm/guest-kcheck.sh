#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own verdict on one guest, run by guest-init.sh on every
# guest after each job of a run:
#   guest-kcheck.sh mark K     job K starts (debug kernels: note jiffies)
#   guest-kcheck.sh scan K     after job K: its kernel problems
#   guest-kcheck.sh log K      the same without a kmemleak scan
#   guest-kcheck.sh final K    after the last job K: kmemleak's last word
# "scan", "log" and "final" print each report line as "J LINE", J the job
# the report belongs to, and empty the log (and kmemleak's list) so that
# the next scan shows only what came after; a segfault in user space,
# no kernel problem, as "crash J LINE".
#
# kmemleak reports an object only when it was unreferenced, at least 5 s
# old and unchanged since the scan before: one scan after a job finds
# what the job before it leaked, not its own leaks (a single scan missed
# rp_stub_leak.ko's leak). Scanning twice after every job cost the debug
# lane about 30 s a job; instead each job's scan is the second one for
# the job before, a report is given to the job that was running when
# the object was allocated (its jiffies against the marks below), and
# the last job gets a second scan of its own ("final"). Since a report
# finds its job by the marks, not by when it shows, guest-init.sh has
# kmemleak scan only after every fifth job and the last ("log" after the
# others): each scan took 9 to 14 s of a debug guest under TCG.

marks=/run/rpvm.kmarks
leaks=/sys/kernel/debug/kmemleak

# Each report is shown whole: the pattern line and what follows it.
bugs='BUG[: ]|WARNING:|Oops|general protection|Call Trace|UBSAN|KASAN|KFENCE|list_(add|del) corruption|Objects remaining|refcount_t|soft lockup|hung_task|rcu.*stall|suspicious RCU|lock held when returning|unreferenced object'

# The file is read whole first. Bash's read takes a chunk and seeks back
# to the line's end; a seek makes the kernel lay the file out anew, and
# the timers in it had changed, so the line at that offset was another
# or half of one. Marks came out empty now and then, and an empty mark
# took every later report: a leak of the first job went to the fifth.
jiffies() {
	local l t
	t=$(</proc/timer_list) || return 1
	while read -r l; do
		case $l in "jiffies: "*) echo "${l#jiffies: }"; return 0 ;; esac
	done <<<"$t"
	return 1
}

mode=${1:-} job=${2:-}
case $job in '' | *[!0-9]*) echo "usage: $0 mark|scan|log|final JOB" >&2; exit 2 ;; esac

case $mode in
mark)
	[ -w "$leaks" ] || exit 0
	# A mark without jiffies would take every later report.
	j=$(jiffies) || { echo "guest-kcheck: no jiffies in /proc/timer_list" >&2; exit 1; }
	echo "$job $j" >>"$marks"
	exit 0
	;;
scan | log) ;;
final)
	[ -w "$leaks" ] || exit 0
	sleep 6
	;;
*) echo "usage: $0 mark|scan|log|final JOB" >&2; exit 2 ;;
esac

if [ "$mode" != log ] && [ -w "$leaks" ]; then
	echo scan >"$leaks"
	# A leak's job: the last one marked at or before its allocation;
	# one from before the first mark (the boot) counts against job 1.
	awk -v marks="$marks" '
		BEGIN { while ((getline l < marks) > 0) { split(l, f, " "); n++; mk[n] = f[1]; mj[n] = f[2] } }
		/^unreferenced object/ { if (nb) flush(); j = 1; left = 13 }
		/^  comm .* jiffies [0-9]+/ && left {
			at = $NF + 0
			for (i = 1; i <= n; i++)
				if (mj[i] + 0 <= at)
					j = mk[i]
		}
		left { buf[++nb] = $0; left--; if (!left) flush() }
		function flush(  i) { for (i = 1; i <= nb; i++) print j, buf[i]; nb = 0 }
		END { if (nb) flush() }' "$leaks"
	echo clear >"$leaks"
fi
# The kernel's echo of its command line is no report, though it names
# rcupdate.rcu_cpu_stall_suppress_at_boot (scripts/vm/run.sh).
# A program that died of a segfault is the test's to judge, but the
# kernel's line on it (where, in which library) is the only trace and
# went with the log: it is passed on as "crash J LINE" (with the "Code:"
# line when one follows it: 6.1's did, the debug 6.12's did not), for
# guest-init.sh to add to the job's output.
dmesg | awk -v j="$job" -v re="$bugs" '
	/[Cc]ommand line: / { next }
	$0 ~ re { left = 13 }
	left { print j, $0; left--; next }
	/: segfault at / { print "crash", j, $0; code = 1; next }
	code && /Code: / { print "crash", j, $0 }
	{ code = 0 }'
dmesg -C
