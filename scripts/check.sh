#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every test of the project (`make check`), as TAP, in five stages:
#   build   the module for both test kernels, the CLI/daemon, the unit tests
#   static  ynl-gen --check, checkpatch --strict (kmod/, include/), sparse on
#           both test kernels, cppcheck on daemon/, the include rules
#           between layers and the module's object cycles on the builds
#           above (scripts/layers-check.sh), dkms build (6.12)
#   unit    each daemon/tests/bin/test_* under valgrind (leaks fail); the
#           static checks and these run as one queue: beside the VM tests,
#           one job at a time at nice 19, their results after the vm stage's
#           (ROCEPATH_CHECK_BESIDE=0: before it, as many jobs at a time as
#           there are cores; ROCEPATH_CHECK_JOBS sets another number)
#   vm      each selftests/Makefile TEST_PROGS entry on each test kernel
#           (6.1, then 6.12), through scripts/vm/run.sh: those that boot
#           the default way in one boot per kernel (run.sh -b), those of
#           one fabric in another, the others alone (with --lanes 2 the
#           fabrics and those first, then the shared boots in two lanes)
#   arm64   (make check) the smoke subset's results; its set-up
#           (scripts/deps-arm64.sh) runs from the start at nice 19, beside
#           the rest
# A failed stage or test does not stop the others. Counting: one result per
# static check, per build, per unit-test case (TEST() in the binary), per
# selftest subtest (its TAP lines) on each kernel; a test binary or selftest
# that fails without a failing TAP line (crash, panic, hang, valgrind error)
# counts one more failure. Skips are never counted as passes.
# Before it, a table of where the VM tests' time went (boot, set-up, body,
# teardown, scans per run; Documentation/testing.rst "Where the time goes").
# The last line is exactly "N passed, N failed, N skipped"; the exit code
# is non-zero iff something failed.
#
# Usage: scripts/check.sh [--arch x86_64|arm64] [--kernel 6.1|6.12|REL]...
#                         [--only NAME[,NAME...]]... [--extra SELFTEST]...
#                         [--lanes 1|2] [--list] [-h]
#   --arch    arm64: the modules cross-built for Debian's arm64 kernels, the
#             CLI and daemon cross-built, VM tests in arm64 guests
#             (scripts/deps-arm64.sh first; make check-arm64)
#   --kernel  VM tests (and sparse) on these kernels only (default: both)
#   --only    run only the named items: a stage (static, build, unit, vm),
#             a static check (ynl, checkpatch, sparse, cppcheck, layers, dkms), a unit
#             test binary (test_pins), a selftest (pin_wire, pin_wire.sh)
#             or arm64 (the smoke subset in ROCEPATH_ARM64_SMOKE).
#             The build stage always runs: everything else needs it.
#   --extra   one more VM selftest (a path under selftests/, e.g.
#             debug/unload_stress.sh), run after the others on each kernel
#   --lanes   1 (the default here, also ROCEPATH_CHECK_LANES): the
#             kernels' shared boots one after the other; 2 (make check's
#             default): the first kernels' shared boot, then the arm64
#             smoke subset, at nice 10 (ROCEPATH_LANE_NICE) beside the
#             last kernel's (Documentation/testing.rst, "Two lanes").
#             Tests with a boot of their own (fabrics, kernel parameters)
#             run alone, first.
#   --list    print the item names and exit

set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${ROCEPATH_CACHE:-$TOP/.cache}
cd "$TOP" || exit 1
# Kbuild turns warnings into errors only when asked: CI asks, DKMS does not.
export ROCEPATH_WERROR=1

usage() {
	sed -n '/^# Usage:/,/^$/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

arch=x86_64
kernels=()
only=()
extra=()
list=
lanes=${ROCEPATH_CHECK_LANES:-1}
while [ $# -gt 0 ]; do
	case $1 in
	--arch) [ $# -ge 2 ] || usage; arch=$2; shift 2 ;;
	--arch=*) arch=${1#*=}; shift ;;
	--kernel | -k) [ $# -ge 2 ] || usage; kernels+=("$2"); shift 2 ;;
	--kernel=*) kernels+=("${1#*=}"); shift ;;
	--only) [ $# -ge 2 ] || usage; IFS=, read -r -a o <<<"$2"; only+=("${o[@]}"); shift 2 ;;
	--only=*) IFS=, read -r -a o <<<"${1#*=}"; only+=("${o[@]}"); shift ;;
	--extra) [ $# -ge 2 ] || usage; extra+=("$2"); shift 2 ;;
	--extra=*) extra+=("${1#*=}"); shift ;;
	--lanes) [ $# -ge 2 ] || usage; lanes=$2; shift 2 ;;
	--lanes=*) lanes=${1#*=}; shift ;;
	--list) list=1; shift ;;
	-h | --help) usage ;;
	*) echo "check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1 6.12)
case $lanes in
1 | 2) ;;
*) echo "check: --lanes wants 1 or 2, got '$lanes'" >&2; exit 2 ;;
esac

[ -f "$CACHE/kernels.env" ] || { echo "check: no $CACHE/kernels.env: run scripts/deps.sh (or make deps)" >&2; exit 1; }
KREL_61= KREL_612=
. <(grep -E '^KREL_(61|612)=' "$CACHE/kernels.env")
case $arch in
x86_64) ;;
arm64)
	[ -f "$CACHE/arm64/kernels.env" ] || { echo "check: no $CACHE/arm64/kernels.env: run scripts/deps-arm64.sh" >&2; exit 1; }
	KREL_61_ARM64= KREL_612_ARM64=
	. <(grep -E '^KREL_(61|612)_ARM64=' "$CACHE/arm64/kernels.env")
	KREL_61=$KREL_61_ARM64 KREL_612=$KREL_612_ARM64
	;;
*) echo "check: --arch wants x86_64 or arm64, got '$arch'" >&2; exit 2 ;;
esac
krel() {
	case $1 in
	6.1) echo "$KREL_61" ;;
	6.12) echo "$KREL_612" ;;
	*) echo "$1" ;;
	esac
}
kbuild_dir() { # REL: installed headers or a project-built kernel's tree
	[ -d "/lib/modules/$1/build" ] && echo "/lib/modules/$1/build" && return
	[ -d "$CACHE/arm64/usr/src/linux-headers-$1" ] && echo "$CACHE/arm64/usr/src/linux-headers-$1" && return
	[ -d "$CACHE/kernels/$1/build" ] && echo "$CACHE/kernels/$1/build"
}
for k in "${kernels[@]}"; do
	[ -n "$(krel "$k")" ] && [ -n "$(kbuild_dir "$(krel "$k")")" ] ||
		{ echo "check: unknown kernel '$k' or its headers are missing: run scripts/deps.sh" >&2; exit 1; }
done

selftests=$(make -s -C selftests list 2>/dev/null)
unit_bins() {
	local f
	for f in daemon/tests/test_*.c; do
		[ -e "$f" ] && basename "$f" .c
	done
}

if [ -n "$list" ]; then
	echo "static: ynl checkpatch sparse cppcheck layers dkms"
	echo "build: module-<rel> userspace unit-tests (always run)"
	echo "unit:" $(unit_bins)
	echo "vm (${kernels[*]}):" $selftests
	exit 0
fi

# wanted STAGE NAME: is the item selected by --only?
wanted() {
	local o
	[ ${#only[@]} = 0 ] && return 0
	for o in "${only[@]}"; do
		[ "$o" = "$1" ] || [ "$o" = "$2" ] || [ "$o.sh" = "$2" ] || [ "${o%.sh}" = "${2%.sh}" ] &&
			return 0
	done
	return 1
}

named() { # TEST: does --only name TEST itself (not only its stage)?
	local o
	for o in "${only[@]}"; do
		[ "${o%.sh}" = "${1%.sh}" ] && return 0
	done
	return 1
}

n=0 npass=0 nfail=0 nskip=0
t_start=$(date +%s)
echo "TAP version 13"

# Stage 5's arm64 smoke subset (below) is wanted when make check names the
# tests, on x86-64, unless --only leaves it out. Its set-up, mostly
# downloads and unpacking, runs from the start, beside the other stages.
arm64_wanted() {
	[ "$arch" = x86_64 ] && [ -n "${ROCEPATH_ARM64_SMOKE:-}" ] &&
		{ [ ${#only[@]} = 0 ] || named arm64; }
}
arm64_dir=
deps_pid=
lane_pid=
queue_pids=() queue_dir=
if arm64_wanted; then
	arm64_dir=$(mktemp -d) || exit 1
	(
		# at nice 19: the builds and tests in front need the cores first
		nice -n 19 scripts/deps-arm64.sh >"$arm64_dir/deps.out" 2>&1
		echo $? >"$arm64_dir/deps.rc.new"
		mv "$arm64_dir/deps.rc.new" "$arm64_dir/deps.rc"
	) </dev/null &
	deps_pid=$!
fi
arm64_deps_wait() { # deps-arm64.sh's output and exit code, once it is done
	while [ ! -f "$arm64_dir/deps.rc" ]; do
		sleep 2
	done
	cat "$arm64_dir/deps.out"
	return "$(cat "$arm64_dir/deps.rc")"
}
arm64_smoke() {
	env ROCEPATH_ARM64_SMOKE= ROCEPATH_ALL_KERNELS=1 \
		scripts/check.sh --arch arm64 --kernel 6.12 --only "$ROCEPATH_ARM64_SMOKE"
}
# An interrupted run takes its background work with it: run.sh powers its
# guests off on TERM.
stop_jobs() { # PID...: each background job and the programs it started
	local p
	for p; do
		[ -n "$p" ] || continue
		pkill -TERM -P "$p" 2>/dev/null
		kill "$p" 2>/dev/null
	done
}
stop_background() {
	# its TERM trap stops its own jobs' programs
	[ -z "$queue_bg_pid" ] || { kill "$queue_bg_pid" 2>/dev/null; wait "$queue_bg_pid" 2>/dev/null; }
	stop_jobs "$lane_pid" "$deps_pid" "${queue_pids[@]}"
	[ -z "$arm64_dir" ] || rm -rf "$arm64_dir"
	[ -z "$queue_dir" ] || rm -rf "$queue_dir"
}
trap stop_background EXIT

tap() { # RESULT(pass|fail|skip) DESC [REASON]
	n=$((n + 1))
	case $1 in
	pass) npass=$((npass + 1)); echo "ok $n $2" ;;
	fail) nfail=$((nfail + 1)); echo "not ok $n $2" ;;
	skip) nskip=$((nskip + 1)); echo "ok $n $2 # SKIP${3:+ $3}" ;;
	esac
}
comment() { sed 's/^/#   /'; }
replay() { # OUTPUT RC: a command's output and exit code, kept from its run
	cat "$1"
	return "$2"
}
stage() { echo "# ---- $* ----"; }

# item DESC CMD...: one result from a command's exit status (4: skip, its
# last output line is the reason). Output is shown only on failure or skip.
item() {
	local desc=$1 out rc t0
	shift
	t0=$(date +%s)
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = 0 ]; then
		tap pass "$desc (${REPLAY_SECS:-$(($(date +%s) - t0))}s)"
	elif [ "$rc" = 4 ]; then
		tap skip "$desc" "$(printf '%s\n' "$out" | tail -n1)"
	else
		printf '%s\n' "$out" | tail -n 60 | comment
		tap fail "$desc"
	fi
}

# A whole TAP-producing test: per-line results, plus one failure when the
# exit code says fail but no "not ok" line did (crash, panic, hang, leak).
tap_test() { # PREFIX CMD...
	local prefix=$1 before_fail=$nfail before_n=$n rc=1 line t0
	shift
	t0=$(date +%s)
	# The loop runs in this shell, so the counters survive; the command's
	# exit code arrives as a marker line after its output.
	while IFS= read -r line; do
		if [[ $line == __RC__:* ]]; then
			rc=${line#__RC__:}
			continue
		fi
		case $line in
		"# vm: timing: "*) timing_rows+=("$prefix ${line#"# vm: timing: "}") ;;
		"# first run: # vm: timing: "*) timing_rows+=("$prefix ${line#"# first run: # vm: timing: "} retry=1") ;;
		"# vm: step: "*) step_rows+=("$prefix ${line#"# vm: step: "}") ;;
		"# vm: launched: "*) launched_rows+=("${line#"# vm: launched: "}") ;;
		esac
		__tap_line "$prefix" "$line"
	done < <("$@" 2>&1 </dev/null; printf '\n__RC__:%d\n' $?)
	echo "# $prefix: exit $rc after ${REPLAY_SECS:-$(($(date +%s) - t0))} s"
	if [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$nfail" = "$before_fail" ]; then
		tap fail "$prefix: exited with $rc (crash, panic, hang or leak; see above)"
	elif [ "$n" = "$before_n" ]; then
		case $rc in
		0) tap pass "$prefix" ;;
		4) tap skip "$prefix" "exit 4, no reason given" ;;
		esac
	fi
	return 0
}

__tap_line() {
	local prefix=$1 line=$2 desc reason
	case $line in
	"TAP version"* | "") ;;
	"ok "* | "not ok "*)
		desc=$(sed -E 's/^(not )?ok [0-9]+ ?(- )?//' <<<"$line")
		if [[ $line == "not ok "* ]]; then
			tap fail "$prefix: $desc"
		elif [[ $desc =~ \#[[:space:]]*[Ss][Kk][Ii][Pp] ]]; then
			reason=$(sed -E 's/.*#[[:space:]]*[Ss][Kk][Ii][Pp][[:space:]]*//' <<<"$desc")
			desc=$(sed -E 's/[[:space:]]*#[[:space:]]*[Ss][Kk][Ii][Pp].*//' <<<"$desc")
			tap skip "$prefix: $desc" "$reason"
		else
			tap pass "$prefix: $desc"
		fi
		;;
	"1..0"*)
		reason=$(sed -E 's/^1\.\.0[[:space:]]*#?[[:space:]]*([Ss][Kk][Ii][Pp])?[[:space:]]*//' <<<"$line")
		tap skip "$prefix" "$reason"
		;;
	"1.."*) ;;
	*) printf '#   %s\n' "$line" ;;
	esac
}

# The VM tests' timing table, from run.sh's "# vm: timing:" lines (one
# per run; an emulator-fault retry's first run is its own row, marked).
# Seconds: boot = QEMU start to every guest's agent up (host wall);
# setup = job start to the test's first check; body = to its exit;
# teardown = deferred cleanup to the job's end; scans = the kernel-log
# (and kmemleak) scans of every guest after the job; other = the rest of
# the run (power-off, polling). Then the sums per kernel and overall, and
# the phases by cost. Documentation/testing.rst, "Where the time goes".
timing_rows=()
timing_table() {
	[ ${#timing_rows[@]} -gt 0 ] || return 0
	echo "# ---- timing (s) ----"
	printf '%s\n' "${timing_rows[@]}" | awk '
	# execs: programs the guests launched (not seconds; a trailing "+"
	# when a trace buffer lost some).
	BEGIN { nc = split("boot setup body teardown scans other total execs", col, " "); nt = nc - 1 }
	function num(x) { return x == "-" || x == "" ? 0 : x + 0 }
	function row(k, t, v,   i, s) {
		s = sprintf("# %-6s %-26s", k, t)
		for (i = 1; i <= nc; i++)
			s = s sprintf(" %8s", v[col[i]])
		print s
	}
	{
		k = $1; sub(/\/.*/, "", k); t = substr($1, length(k) + 2)
		delete v; known = 0
		for (i = 2; i <= NF; i++) {
			split($i, kv, "="); v[kv[1]] = kv[2]
			if (kv[1] != "total" && kv[1] != "retry" && kv[1] != "execs") known += num(kv[2])
		}
		v["other"] = sprintf("%.1f", num(v["total"]) - known)
		if (v["retry"]) t = t " (1st run)"
		if (!(k in seen)) { seen[k] = 1; ks[++nk] = k }
		for (i = 1; i <= nc; i++) { sum[k, col[i]] += num(v[col[i]]); all[col[i]] += num(v[col[i]]) }
		rows[++nr] = k SUBSEP t
		for (i = 1; i <= nc; i++) cell[nr, i] = v[col[i]] == "" ? "-" : v[col[i]]
	}
	END {
		h["x"] = ""; for (i = 1; i <= nc; i++) h[col[i]] = col[i]
		row("kernel", "test", h)
		for (r = 1; r <= nr; r++) {
			split(rows[r], kt, SUBSEP)
			for (i = 1; i <= nc; i++) c[col[i]] = cell[r, i]
			row(kt[1], kt[2], c)
		}
		for (j = 1; j <= nk; j++) {
			for (i = 1; i <= nc; i++) c[col[i]] = sprintf("%.0f", sum[ks[j], col[i]])
			row(ks[j], "(sum)", c)
		}
		for (i = 1; i <= nc; i++) c[col[i]] = sprintf("%.0f", all[col[i]])
		row("all", "(sum)", c)
		# The phases by cost, biggest first (total and execs excluded).
		s = ""
		for (n = 1; n < nt; n++) {
			b = 0
			for (i = 1; i < nt; i++)
				if (!(i in used) && (!b || all[col[i]] > all[col[b]])) b = i
			used[b] = 1
			s = s sprintf("%s%s %.0f s (%.0f%%)", n > 1 ? ", " : "", col[b], all[col[b]],
				all["total"] > 0 ? 100 * all[col[b]] / all["total"] : 0)
		}
		print "# phases by cost: " s
	}'
	if [ "$lanes" = 2 ] && { [ ${#kernels[@]} -gt 1 ] || arm64_wanted; }; then
		echo "# (--lanes 2: the shared boots ran side by side, so the sums exceed the time they took)"
	fi
}

# The programs the VM tests launched most, over every run, from
# run.sh's "# vm: launched:" lines (each run's five most launched).
launched_rows=()
launched_table() {
	[ ${#launched_rows[@]} -gt 0 ] || return 0
	printf '%s\n' "${launched_rows[@]}" | tr ',' '\n' |
		awk 'NF == 2 { n[$1] += $2 } END { for (p in n) print n[p], p }' |
		sort -k1,1rn -k2,2 | head -n 8 |
		awk '{ s = s sprintf("%s%s %d", NR > 1 ? ", " : "", $2, $1) } END { print "# launched most (of each run'"'"'s five): " s }'
}

# The slowest steps of the VM tests, from run.sh's "# vm: step:" lines
# (every step of 5 s or more: the time from one result of a test to the
# next, scripts/vm/profile.sh): where the table above names a slow test,
# these name the checks that make it slow.
step_rows=()
step_table() {
	[ ${#step_rows[@]} -gt 0 ] || return 0
	echo "# ---- slowest steps (s; the time up to each result) ----"
	# "KERNEL/TEST SECS TEST N DESC" -> "SECS KERNEL/TEST N DESC"
	printf '%s\n' "${step_rows[@]}" | sort -rn -k2,2 | head -n 25 |
		awk '{ p = $1; s = $2; r = $4; $1 = $2 = $3 = $4 = ""; sub(/^ +/, "")
		       printf "# %7.1f  %-26s %4s  %s\n", s, p, r, $0 }'
}

#
# Stage 1: builds (always: later stages need them).
#
stage build
for k in "${kernels[@]}"; do
	item "build: rocepath.ko for $(krel "$k")" scripts/kbuild.sh "$(krel "$k")"
done
item "build: userspace (make -C daemon)" make -s -C daemon -j2
[ "$arch" = arm64 ] &&
	item "build: arm64 CLI, daemon and selftest helpers (scripts/cross-arm64.sh)" scripts/cross-arm64.sh
item "build: unit tests (make -C daemon tests)" make -s -C daemon -j2 tests
item "build: selftest helpers (make -C selftests)" make -s -C selftests
item "build: packaging files (scripts/deb.sh quick; make check-deb installs the .debs)" scripts/deb.sh quick

#
# Stage 2: static checks, queued with stage 3's unit tests. Each of these
# jobs is one program on one core (cppcheck takes two) and none needs
# another's result, but one after the other they left a core idle for
# about two minutes: the queue runs $host_jobs at a time (the cores),
# buffering each job's output, and the results follow in queue order.
#
# Where VM tests run too, the queue runs beside them instead, one job at a
# time at nice 19, and its results follow theirs: a lane of two guests
# leaves the two cores some 40 % idle, and that is enough for the queue.
#
queue_kind=() queue_desc=() queue_cmd=()
host_jobs=${ROCEPATH_CHECK_JOBS:-$(nproc)}
queue_bg_pid=
queue() { # KIND DESC CMD...: static (an item), unit (a TAP test), unbuilt
	queue_kind+=("$1")
	queue_desc+=("$2")
	shift 2
	queue_cmd+=("$(printf '%q ' "$@")")
}
queue_one() { # K: job K, its output into K.out, "RC SECONDS" into K.rc
	local t0 rc
	t0=$(date +%s)
	eval "${queue_cmd[$1]}" >"$queue_dir/$1.out" 2>&1 </dev/null
	rc=$?
	echo "$rc $(($(date +%s) - t0))" >"$queue_dir/$1.rc"
}
queue_run() {
	local k p done_pid left
	for ((k = 0; k < ${#queue_cmd[@]}; k++)); do
		while [ ${#queue_pids[@]} -ge "$host_jobs" ]; do
			done_pid=
			wait -n -p done_pid "${queue_pids[@]}"
			left=()
			for p in "${queue_pids[@]}"; do
				[ "$p" = "$done_pid" ] || left+=("$p")
			done
			queue_pids=("${left[@]}")
		done
		queue_one "$k" &
		queue_pids+=($!)
	done
	[ ${#queue_pids[@]} = 0 ] || wait "${queue_pids[@]}"
	queue_pids=()
}
queue_results() { # KIND: the results of that kind's jobs, in queue order
	local k rc secs
	for ((k = 0; k < ${#queue_cmd[@]}; k++)); do
		case ${queue_kind[$k]} in
		"$1") ;;
		unbuilt) [ "$1" = unit ] && tap fail "${queue_desc[$k]}"; continue ;;
		*) continue ;;
		esac
		read -r rc secs <"$queue_dir/$k.rc" 2>/dev/null || { rc=1 secs=; echo "no exit code" >>"$queue_dir/$k.out"; }
		if [ "$1" = static ]; then
			REPLAY_SECS=$secs item "${queue_desc[$k]}" replay "$queue_dir/$k.out" "$rc"
		else
			REPLAY_SECS=$secs tap_test "${queue_desc[$k]}" replay "$queue_dir/$k.out" "$rc"
		fi
	done
}
if wanted static ynl; then
	queue static "static: ynl-gen --check (generated UAPI/policy match the spec)" scripts/ynl-gen.sh --check
fi

checkpatch() {
	local cp=$CACHE/linux-src/scripts/checkpatch.pl f rc=0 files
	[ -f "$cp" ] || { echo "checkpatch.pl missing: run scripts/deps.sh"; return 4; }
	files=$(ls kmod/*.c kmod/*.h 2>/dev/null | grep -v '^kmod/netlink-gen\.'; find include -name '*.h')
	[ -n "$files" ] || { echo "no files to check"; return 4; }
	for f in $files; do
		perl "$cp" --strict --no-tree --quiet --show-types -f "$f" || rc=1
	done
	return $rc
}
if wanted static checkpatch; then
	queue static "static: checkpatch --strict kmod/ include/ (generated files exempt)" checkpatch
fi

sparse_check() { # REL
	local out
	command -v sparse >/dev/null || { echo "sparse not installed: run scripts/deps.sh"; return 4; }
	out=$(scripts/kbuild.sh "$1" C=2 2>&1)
	local rc=$?
	printf '%s\n' "$out"
	[ "$rc" = 0 ] || return 1
	# Generated code (kmod/netlink-gen.*, owned by ynl-gen-c.py) is exempt,
	# as for checkpatch; its warnings are shown, not counted.
	if grep -E '(warning|error):' <<<"$out" | grep -q 'kmod/netlink-gen\.'; then
		echo "note: sparse warnings in generated kmod/netlink-gen.* above are not counted"
	fi
	! grep -E '(warning|error):' <<<"$out" | grep -vq 'kmod/netlink-gen\.'
}
for k in "${kernels[@]}"; do
	if wanted static sparse; then
		queue static "static: sparse (C=2) on $(krel "$k"), no warnings (generated files exempt)" sparse_check "$(krel "$k")"
	fi
done

cppcheck_daemon() {
	command -v cppcheck >/dev/null || { echo "cppcheck not installed: run scripts/deps.sh"; return 4; }
	cppcheck --quiet -j "$(nproc)" --enable=warning,style,performance,portability --std=c11 \
		--error-exitcode=1 --inline-suppr -D_GNU_SOURCE \
		-I include/uapi -I daemon/lib -I daemon/planner -I daemon/probe -I daemon/rocepathd \
		-I "$CACHE/linux-src/tools/testing/selftests" \
		--suppress=missingIncludeSystem --suppress='*:*/kselftest*.h' \
		--suppress=unusedStructMember --suppress=variableScope \
		--suppress=constParameter --suppress=constVariable \
		--suppress=constParameterPointer --suppress=constVariablePointer \
		--suppress=knownConditionTrueFalse --suppress=shadowFunction \
		daemon/
}
if wanted static cppcheck; then
	queue static "static: cppcheck daemon/ (no findings)" cppcheck_daemon
fi

if wanted static layers; then
	queue static "static: rules between layers: includes, links, kmod object cycles (scripts/layers-check.sh)" scripts/layers-check.sh
fi

if wanted static dkms; then
	queue static "static: dkms build against $KREL_612 headers" scripts/dkms-check.sh "$KREL_612"
fi

#
# Stage 3: unit tests under valgrind.
#
unit_one() { # BIN
	if command -v valgrind >/dev/null; then
		valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
			--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
			--suppressions="$TOP/scripts/valgrind.supp" --trace-children=no "$1"
	else
		echo "# valgrind not installed (run scripts/deps.sh): running without leak check"
		"$1"
	fi
}
for t in $(unit_bins); do
	wanted unit "$t" || continue
	if [ -x "daemon/tests/bin/$t" ]; then
		queue unit "unit/$t" unit_one "daemon/tests/bin/$t"
	else
		queue unbuilt "unit/$t: daemon/tests/bin/$t was not built" false
	fi
done

queue_print() {
	stage static
	queue_results static
	stage unit
	queue_results unit
}
vm_wanted() { # does the VM stage run a test?
	local t
	for t in $selftests; do
		wanted vm "$t" && return 0
	done
	return 1
}
queue_dir=$(mktemp -d) || exit 1
if [ ${#queue_cmd[@]} -gt 0 ] && [ "${ROCEPATH_CHECK_BESIDE:-1}" = 1 ] && vm_wanted; then
	(
		renice -n 19 -p "$BASHPID" >/dev/null
		host_jobs=${ROCEPATH_CHECK_JOBS:-1}
		# stop_background's TERM: take the running jobs along
		trap 'stop_jobs "${queue_pids[@]}"; exit 143' TERM
		queue_run
	) </dev/null &
	queue_bg_pid=$!
	echo "# static checks and unit tests: beside the VM tests at nice 19, their results after them"
else
	queue_run
	queue_print
fi

#
# Stage 4: VM selftests on each kernel.
#
# One run of a VM test, buffered so that a run lost to the emulator can be
# retried without counting its TAP lines: QEMU's TCG now and then delivers
# an exception with an impossible EFLAGS (a double fault, or a #DB when the
# stale flags hold TF) under rxe load, also in guests that never loaded
# rocepath, and QEMU 7.2 now and then stops draining a guest's
# virtio-net transmit ring (Documentation/module-safety.rst). scripts/vm/run.sh
# names that case "emulator-fault"; it is retried once and both runs stay
# in the log. Any other failure counts at once. A long test can say how far
# it got with "# rpvm-resume: VALUE" lines: the retry gets the last one as
# RPVM_RESUME and need not redo that part (the unload stress's cycles).
vm_test() { # KERNEL TEST [FIRST_OUTPUT FIRST_RC]: the second two, a batch's run of it
	local out rc try resume envs=()
	out=$(mktemp) || return 1
	for try in 1 2; do
		if [ "$try" = 1 ] && [ $# -ge 4 ]; then
			cp "$3" "$out"
			rc=$4
		else
			env "${envs[@]}" scripts/vm/run.sh -a "$arch" -k "$1" "selftests/$2" >"$out" 2>&1 </dev/null
			rc=$?
		fi
		if [ "$try" = 1 ] && [ "$rc" != 0 ] && [ "$rc" != 4 ] &&
			grep -q '^# vm: emulator-fault:' "$out"; then
			sed 's/^/# first run: /' "$out"
			resume=$(sed -n 's/^# rpvm-resume: *//p' "$out" | tail -n1)
			[ -z "$resume" ] ||
				envs=(RPVM_RESUME="$resume" ROCEPATH_VM_PASSENV="${ROCEPATH_VM_PASSENV:-} RPVM_RESUME")
			echo "# vm: $1/$2: lost to an emulator fault, running it again${resume:+ from where it got to ($resume)}"
			continue
		fi
		break
	done
	cat "$out"
	rm -f "$out"
	return "$rc"
}

# Tests that boot alike share one boot of the guests (run.sh -b): each
# runs after the one before, with the kernel scan and the check that it
# left the guests as it found them (Documentation/testing.rst, "Batches").
# Each test's output and exit code then go to tap_test as a lone run's
# would. A test lost to an emulator fault runs again alone, as vm_test
# retries; tests the batch never ran (an earlier one hung, panicked or
# left state behind) run in a fresh batch. ROCEPATH_CHECK_BATCH=0 boots
# the guests for every test.
batchable() { # TEST: no boot of its own (kernel parameters, a fabric)
	[ "${ROCEPATH_CHECK_BATCH:-1}" != 0 ] && ! grep -qE '^# rpvm-(fabric|cmdline):' "selftests/$1"
}
# Fabric tests share a boot when their topologies build the same fabric
# (run.sh -b; each test keeps its own topology file and hash). FRR's
# routing is not switched between tests: such a test boots alone.
fabric_group() { # TEST: a name for the fabric it boots; fails for none
	local topo routing
	[ "${ROCEPATH_CHECK_BATCH:-1}" != 0 ] || return 1
	read -r topo _ routing _ <<<"$(sed -n 's/^# rpvm-fabric: *//p' "selftests/$1" | head -n1)"
	[ -n "$topo" ] && [ "${routing:-kernel}" = kernel ] || return 1
	python3 scripts/vm/fabric.py key "$topo" 2>/dev/null
}
vm_batch() { # KERNEL TEST...
	local k=$1 dir
	shift
	if [ $# = 1 ]; then
		tap_test "$apfx$k/${1%.sh}" vm_test "$k" "$1"
		return
	fi
	dir=$(mktemp -d) || return 1
	batch_boot "$k" "$dir" "$@"
	batch_results "$k" "$dir" "$@"
}
batch_boot() { # KERNEL DIR TEST...: the shared boot; its results stay in DIR
	local k=$1 dir=$2
	shift 2
	echo "# vm: $k: ${#} tests in one boot: ${*%.sh}"
	scripts/vm/run.sh -a "$arch" -k "$k" -b "$dir" "${@/#/selftests/}" 2>&1 </dev/null
}
batch_results() { # KERNEL DIR TEST...: each test's result from the boot in DIR
	local k=$1 dir=$2 i t rc lost=()
	shift 2
	i=0
	for t in "$@"; do
		i=$((i + 1))
		rc=$(cat "$dir/$i.rc" 2>/dev/null)
		if [ -z "$rc" ]; then
			# run.sh gave up before any guest booted: each alone says why.
			tap_test "$apfx$k/${t%.sh}" vm_test "$k" "$t"
		elif [ "$rc" = lost ]; then
			lost+=("$t")
		elif [ "$rc" != 0 ] && [ "$rc" != 4 ] && grep -q '^# vm: emulator-fault:' "$dir/$i.out"; then
			tap_test "$apfx$k/${t%.sh}" vm_test "$k" "$t" "$dir/$i.out" "$rc"
		else
			tap_test "$apfx$k/${t%.sh}" replay "$dir/$i.out" "$rc"
		fi
	done
	rm -rf "$dir"
	if [ ${#lost[@]} -gt 0 ]; then
		echo "# vm: $k: ${lost[*]%.sh}: not run in that boot, in a fresh one now"
		vm_batch "$k" "${lost[@]}"
	fi
}

# A test whose "# rpvm-check-kernels: K..." line does not name this kernel
# is skipped here, to keep make check within its time; ROCEPATH_ALL_KERNELS=1
# (make check-all, make check-fabric) runs it everywhere. "none" names no
# kernel: such a test runs only there, or where --only names it.
check_kernels() { # TEST: the kernels its "# rpvm-check-kernels:" line names
	sed -n 's/^# rpvm-check-kernels: *//p' "selftests/$1" | head -n1
}

# A kernel is named by its series: "6.12" takes 6.12.117+deb12-amd64 and
# the debug lane's 6.12.117-rocepath-debug too.
kernel_wanted() { # KERNEL TEST
	local ks series
	ks=$(check_kernels "$2")
	[ -z "$ks" ] || [ "${ROCEPATH_ALL_KERNELS:-0}" = 1 ] && return 0
	[ "$ks" = none ] && named "$2" && return 0
	series=$(sed -E 's/^([0-9]+\.[0-9]+)([.+-].*)?$/\1/' <<<"$1")
	[[ " $ks " == *" $1 "* ]] || [[ " $ks " == *" $series "* ]]
}

# The shared boots side by side (--lanes 2), from side[]: "KERNEL TEST...".
# Each kernel's but the last runs in the background, one after the other,
# then the arm64 smoke subset when make check asks for it; the last
# kernel's runs meanwhile in the foreground. run.sh starts one run's
# guests at a time. The background's log follows once both are done, then
# the results in kernel order, as from one lane, retries after them.
side=()
side_by_side() { # (nk, not n: tap() counts in the global n)
	local nk=${#side[@]} j k tests dirs=() bgdir bgk=()
	[ "$nk" -gt 0 ] || return 0
	if [ "$nk" = 1 ] && ! arm64_wanted; then
		read -r k tests <<<"${side[0]}"
		# shellcheck disable=SC2086
		vm_batch "$k" $tests
		run_extra "$k"
		return
	fi
	for ((j = 0; j < nk; j++)); do
		dirs+=("$(mktemp -d)") || return 1
	done
	bgdir=$(mktemp -d) || return 1
	(
		# The background lane takes what the foreground's guests leave
		# idle (some 40 % of two cores): at nice 10 their vCPUs run
		# first, and neither lane starves the other as at one priority.
		renice -n "${ROCEPATH_LANE_NICE:-10}" -p "$BASHPID" >/dev/null
		for ((j = 0; j < nk - 1; j++)); do
			read -r k tests <<<"${side[$j]}"
			# shellcheck disable=SC2086
			batch_boot "$k" "${dirs[$j]}" $tests
		done
		if arm64_wanted; then
			echo "# arm64 smoke subset, after scripts/deps-arm64.sh"
			arm64_deps_wait >/dev/null &&
				{ arm64_smoke >"$arm64_dir/smoke.out" 2>&1; echo $? >"$arm64_dir/smoke.rc"; }
		fi
	) >"$bgdir/log" 2>&1 </dev/null &
	lane_pid=$!
	for ((j = 0; j < nk - 1; j++)); do
		bgk+=("${side[$j]%% *}")
	done
	echo "# vm: in a lane beside the boot below: the shared boot of" \
		"${bgk[*]:-no kernel}${arm64_dir:+, then the arm64 smoke subset} (their log follows)"
	read -r k tests <<<"${side[$((nk - 1))]}"
	# shellcheck disable=SC2086
	batch_boot "$k" "${dirs[$((nk - 1))]}" $tests
	wait "$lane_pid"
	lane_pid=
	sed 's/^/# side lane: /' "$bgdir/log"
	rm -rf "$bgdir"
	for ((j = 0; j < nk; j++)); do
		read -r k tests <<<"${side[$j]}"
		# shellcheck disable=SC2086
		batch_results "$k" "${dirs[$j]}" $tests
		run_extra "$k"
	done
}
run_extra() { # KERNEL: the --extra tests, each alone
	local t
	for t in "${extra[@]}"; do
		wanted vm "$(basename "$t")" || continue
		tap_test "$apfx$1/${t%.sh}" vm_test "$1" "$t"
	done
}

stage vm
# Results of arm64 guests are named arm64-6.12/TEST.
apfx=
[ "$arch" = arm64 ] && apfx=arm64-
for k in "${kernels[@]}"; do
	batch=() fabrics=()
	declare -A fabric_tests=()
	for t in $selftests; do
		wanted vm "$t" || continue
		if ! kernel_wanted "$k" "$t"; then
			if [ "$(check_kernels "$t")" = none ]; then
				tap skip "$k/${t%.sh}" "not in make check (its time); make check-all, make check-fabric or --only ${t%.sh} runs it"
			else
				tap skip "$k/${t%.sh}" "runs on $(check_kernels "$t") only in make check; make check-all runs it on every kernel"
			fi
			continue
		fi
		if batchable "$t"; then
			batch+=("$t")
		elif g=$(fabric_group "$t"); then
			[ -n "${fabric_tests[$g]:-}" ] || fabrics+=("$g")
			fabric_tests[$g]+=" $t"
		else
			tap_test "$apfx$k/${t%.sh}" vm_test "$k" "$t"
		fi
	done
	for g in "${fabrics[@]}"; do
		# shellcheck disable=SC2086 # a list of test names
		vm_batch "$k" ${fabric_tests[$g]}
	done
	unset fabric_tests
	if [ "$lanes" = 2 ]; then
		[ ${#batch[@]} = 0 ] && run_extra "$k" || side+=("$k ${batch[*]}")
	else
		[ ${#batch[@]} = 0 ] || vm_batch "$k" "${batch[@]}"
		run_extra "$k"
	fi
done
side_by_side
if [ -n "$queue_bg_pid" ]; then
	wait "$queue_bg_pid"
	queue_bg_pid=
	queue_print
fi

#
# Stage 5: the arm64 smoke subset (make check sets ROCEPATH_ARM64_SMOKE to
# the tests): the module, CLI and daemon cross-built, these tests in arm64
# guests on Debian's arm64 6.12, so that a change that breaks the newest
# GPU hosts fails make check. make check-arm64 runs the whole arm64 lane.
# Not with --only, unless it names "arm64".
#
if arm64_wanted; then
	stage arm64
	before_fail=$nfail
	item "arm64: Debian's arm64 kernels, cross tools and guest root (scripts/deps-arm64.sh, from the start)" \
		arm64_deps_wait
	if [ "$nfail" = "$before_fail" ]; then
		if [ -f "$arm64_dir/smoke.rc" ]; then
			tap_test arm64 replay "$arm64_dir/smoke.out" "$(cat "$arm64_dir/smoke.rc")"
		else
			tap_test arm64 arm64_smoke
		fi
	fi
fi

echo "1..$n"
timing_table
launched_table
step_table
echo "# total time $(($(date +%s) - t_start))s"
echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]
