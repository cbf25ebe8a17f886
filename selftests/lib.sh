# SPDX-License-Identifier: GPL-2.0
#
# Helpers for rocepath selftests, sourced by selftests/<name>.sh. The tests run
# on guest 1 of scripts/vm/run.sh (see Documentation/testing.rst) with
# ROCEPATH_TOP, ROCEPATH_KO, HOST_INDEX, HOST_IP4/6, PEER_IP4/6, IBDEV, NETDEV
# and RUN_DIR set. Idioms follow tools/testing/selftests/net/lib.sh:
# TAP output, exit 4 (KSFT_SKIP) when the test cannot run, cleanup via defer.
#
#   ksft_pass [DESC] / ksft_fail DESC / ksft_skip DESC   one TAP result line
#   ksft_test DESC CMD...       run CMD, pass or fail DESC by its exit code
#   ksft_exit                   trailing plan + totals; exit 1 if anything
#                               failed, 4 if everything skipped, else 0
#   ksft_skip_all REASON        the whole test cannot run: exit 4
#   body_starts                 the set-up ends here, not at the first
#                               result (the timing table's phases)
#   log MSG                     "# MSG" on stdout
#   require_cmd CMD...          skip the test when a command is missing
#   require_module              skip the test when $ROCEPATH_KO is not built
#   defer CMD...                run CMD at exit (last deferred runs first)
#   defer_last CMD...           run CMD at exit after all of those
#                               (both from the test's own shell: in a
#                               subshell they say so and return 1)
#   on_host N CMD...            run a shell command on guest N, print its
#                               output, return its exit code
#   on_host_bg N NAME CMD...    start it in the background
#   wait_bg N NAME [SECONDS]    wait for it, print its output, return its code
#   kill_bg N NAME              stop it (the remote command is killed too)
#   retry N DELAY CMD...        run CMD until it succeeds, at most N times
#   wait_listen N [PORT]        wait until guest N listens on TCP PORT
#                               (18515: an RDMA test server)
#   kmsg_mark / kmsg_bugs       remember the kernel log position / print
#                               WARN, BUG, oops, leak lines logged since
#   rp_load N [PARAMS...]       (re)load rocepath.ko on guest N
#   rp_unload N                 unload it from guest N; true when it is
#                               not loaded afterwards
#   rp_load_both [PARAMS...]    load it on guests 1 and 2, unloaded at exit
#   ynl ARGS...                 the kernel's YNL CLI on the rocepath spec
#                               (guest 1); $YNL_CMD is the same command line
#                               for on_host strings
#   ynl_stage N [FILE...]       copy the YNL CLI, its lib/, ynl_cli.py,
#                               ynl_client, the spec (and FILEs) to a
#                               directory of
#                               guest N that uid 65534 can read and print
#                               that directory
#   ynl_unpriv N                print a YNL command line that runs as uid
#                               65534 on guest N from those copies
#   ip_hex ADDR                 an address as YNL shows and takes binary
#                               attributes (hex bytes)

# on_host runs a command for the test's own guest in a subshell of the
# test, where all of this is defined already; sourced again there, this
# file would set its EXIT trap, and that subshell's exit would stop the
# test's background jobs (their directory is named by $$, the same).
[ "${__rp_lib_pid:-}" != "$$" ] || return 0
__rp_lib_pid=$$
__rp_lib_bashpid=$BASHPID # the test's own shell: defer and the timing marks

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

# Polling loops launch sleep(1), and the helpers mkdir(1) and rm(1),
# hundreds of times a run; under TCG an exec costs some 30 ms on the
# production kernels, 0.25 to 0.45 s on the debug kernel. Debian's
# bash-builtins has all three as loadable builtins, alike for what the
# tests use (fractional seconds, -p, -m, -f, -rf); without the package
# they stay programs. Only in the shells that source this file: every
# bash loading them (BASH_ENV) would cost a quarter of an exec each.
for __b in sleep mkdir rm; do
	[ -f "/usr/lib/bash/$__b" ] && enable -f "/usr/lib/bash/$__b" "$__b" 2>/dev/null
done
unset __b

: "${ROCEPATH_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${HOST_INDEX:=1}"
: "${RPVM_AGENT_PORT:=7000}"
: "${RPVM_TIMEOUT:=300}"
: "${RUN_DIR:=/tmp}"
# The rocepath CLI the tests drive; `make -C daemon` builds it.
: "${RP_CLI:=$ROCEPATH_TOP/daemon/rocepath}"

# The kernel's YNL CLI (from the linux-source the deps step unpacked) on
# the rocepath spec. --no-schema: validating the spec against the schema
# takes ~10 s per process under TCG; the static checks validate it once.
# ynl_cli.py runs it with libyaml's loader (a fifth of each call).
export YNL_DIR=$ROCEPATH_TOP/.cache/linux-src/tools/net/ynl
YNL_CLI=$YNL_DIR/cli.py
export YNL_SPEC=$ROCEPATH_TOP/Documentation/netlink/specs/rocepath.yaml
# ynl_client (built with the helpers) gives each call to a warm Python in
# the guest (ynl_server.py): 0.1 s instead of 1.7 s under TCG, the same
# output and exit code; without it, python3 runs each call.
__ynl_client=${ROCEPATH_SELFTEST_BIN:-$ROCEPATH_TOP/build/selftests}/ynl_client
if [ -x "$__ynl_client" ] && [ ! "$ROCEPATH_TOP/selftests/ynl_client.c" -nt "$__ynl_client" ]; then
	YNL_RUN=$__ynl_client
else
	YNL_RUN=python3
fi
YNL_CMD="$YNL_RUN $ROCEPATH_TOP/selftests/ynl_cli.py $YNL_CLI --spec $YNL_SPEC --no-schema"
# py ARGS: `python3 ARGS` by the same warm Python (ynl_client --python),
# for the tests' JSON and pcap one-liners; $PY in a command another shell
# runs (on_host, bash -c). Under TCG a JSON one-liner takes 0.13 s against
# 0.37 s cold on 6.12, and 0.59 s against 1.76 s on the debug kernel.
# Long-running Python (monitors, the fuzzer) keeps python3: a worker is
# killed, not signalled, when its caller is.
if [ "$YNL_RUN" = python3 ]; then
	PY=python3
else
	PY="$YNL_RUN --python"
fi
py() { $PY "$@"; }

# Phase marks for the timing table (scripts/check.sh, testing.rst "Where
# the time goes"): guest-init.sh names a file in RPVM_TIMING for the job;
# only the test's own shell writes to it, each mark once, in guest uptime.
# The variable is taken out of the environment so that a helper that
# sources this file again (on_host on this guest) cannot add marks.
__rp_timing=${RPVM_TIMING:-}
unset RPVM_TIMING
declare -A __rp_timing_done=()
__rp_timing_mark() { # NAME: "NAME UPTIME" the first time only
	local u
	[ -n "$__rp_timing" ] && [ "$BASHPID" = "$__rp_lib_bashpid" ] || return 0
	[ -z "${__rp_timing_done[$1]:-}" ] || return 0
	__rp_timing_done[$1]=1
	read -r u _ </proc/uptime
	echo "$1 $u" >>"$__rp_timing"
}

# The set-up ends at the first result, or here for a test whose first
# result comes only after its main work (pin_unload's cycles).
body_starts() { __rp_timing_mark body; }

# Each result's guest uptime too, in "$__rp_timing.checks" ("UPTIME N
# DESC"): scripts/vm/profile.sh turns the gaps into the slowest steps of
# a test, which the phase marks alone cannot name.
__rp_timing_check() { # DESC
	local u
	[ -n "$__rp_timing" ] && [ "$BASHPID" = "$__rp_lib_bashpid" ] || return 0
	read -r u _ </proc/uptime
	echo "$u $__ksft_n $*" >>"$__rp_timing.checks"
}

__ksft_n=0
__ksft_pass=0
__ksft_fail=0
__ksft_skip=0
__ksft_header=

__ksft_tap_header() {
	# The first result ends the set-up (load, daemon, staging).
	__rp_timing_mark body
	[ -n "$__ksft_header" ] && return
	__ksft_header=1
	echo "TAP version 13"
}

log() {
	echo "# $*"
}

# __rp_indent PREFIX: stdin's lines with PREFIX, as sed 's/^/PREFIX/'
# without its exec (each costs 50 to 70 ms under TCG).
__rp_indent() {
	local l
	while IFS= read -r l || [ -n "$l" ]; do
		printf '%s%s\n' "$1" "$l"
	done
}

ksft_pass() {
	__ksft_tap_header
	__ksft_n=$((__ksft_n + 1))
	__ksft_pass=$((__ksft_pass + 1))
	echo "ok $__ksft_n ${*:-$(basename "$0" .sh)}"
	__rp_timing_check "${*:-$(basename "$0" .sh)}"
}

ksft_fail() {
	__ksft_tap_header
	__ksft_n=$((__ksft_n + 1))
	__ksft_fail=$((__ksft_fail + 1))
	echo "not ok $__ksft_n ${*:-$(basename "$0" .sh)}"
	__rp_timing_check "${*:-$(basename "$0" .sh)}"
}

ksft_skip() {
	__ksft_tap_header
	__ksft_n=$((__ksft_n + 1))
	__ksft_skip=$((__ksft_skip + 1))
	echo "ok $__ksft_n ${*:-$(basename "$0" .sh)} # SKIP"
	__rp_timing_check "${*:-$(basename "$0" .sh)}"
}

# ksft_test DESC CMD...: CMD's output is shown as TAP comments.
ksft_test() {
	local desc=$1 out rc
	shift
	__rp_timing_mark body
	out=$("$@" 2>&1)
	rc=$?
	[ -z "$out" ] || __rp_indent "#   " <<<"$out"
	if [ "$rc" = 0 ]; then
		ksft_pass "$desc"
	elif [ "$rc" = "$KSFT_SKIP" ]; then
		ksft_skip "$desc"
	else
		ksft_fail "$desc"
	fi
	return "$rc"
}

ksft_exit() {
	__ksft_tap_header
	__rp_timing_mark teardown
	echo "1..$__ksft_n"
	echo "# Totals: pass:$__ksft_pass fail:$__ksft_fail skip:$__ksft_skip"
	if [ "$__ksft_fail" -gt 0 ]; then
		exit "$KSFT_FAIL"
	elif [ "$__ksft_pass" = 0 ] && [ "$__ksft_skip" -gt 0 ]; then
		exit "$KSFT_SKIP"
	fi
	exit "$KSFT_PASS"
}

ksft_skip_all() {
	__ksft_tap_header
	__rp_timing_mark teardown
	echo "1..0 # SKIP $*"
	exit "$KSFT_SKIP"
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || ksft_skip_all "$c is not installed"
	done
}

require_cli() {
	[ -x "$RP_CLI" ] || ksft_skip_all "rocepath not built ($RP_CLI): make -C daemon"
}

require_ynl() {
	[ -f "$YNL_CLI" ] || ksft_skip_all "YNL cli.py missing: run scripts/deps.sh"
	require_cmd python3
}

require_module() {
	[ -f "${ROCEPATH_KO:-}" ] ||
		ksft_skip_all "rocepath.ko not built for $(uname -r) (${ROCEPATH_KO:-ROCEPATH_KO unset}): run scripts/kbuild.sh $(uname -r)"
}

# helper_prog VAR NAME [LIBS...]: sets VAR to selftest helper NAME (NAME.c
# here) as `make -C selftests` built it on the host (for arm64 guests,
# cross-built), or as compiled into RUN_DIR when that build is missing or
# older than the source; skips the test when it cannot be built.
helper_prog() {
	local var=$1 name=$2 src=$ROCEPATH_TOP/selftests/$2.c
	local bin=${ROCEPATH_SELFTEST_BIN:-$ROCEPATH_TOP/build/selftests}/$2

	shift 2
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		require_cmd gcc
		bin=$RUN_DIR/$name
		gcc -O2 -o "$bin" "$src" "$@" >&2 ||
			ksft_skip_all "cannot build $name (libibverbs-dev?)"
	fi
	printf -v "$var" '%s' "$bin"
}

# churn_prog: sets CHURN to pin_qp_churn (QPs created, moved to RTR and
# destroyed in a loop).
churn_prog() {
	helper_prog CHURN pin_qp_churn -libverbs
}

# Cleanup, as in net/lib.sh: deferred commands run in reverse at exit,
# then background jobs still running are stopped.
__defer_cmds=()
defer() {
	__defer_in_test defer "$*" || return
	__defer_cmds+=("$*")
}

# defer_last CMD...: run CMD after every deferred command and background
# job, in the order given (what their clean-up still needs, e.g. the
# module under a daemon that a deferred command stops).
__defer_last_cmds=()
defer_last() {
	__defer_in_test defer_last "$*" || return
	__defer_last_cmds+=("$*")
}

# A subshell ($(...), a pipeline's part, on_host 1) has its own copy of
# the lists and no EXIT trap: what it defers would never run, and the
# test would leave its state behind with nothing said where it went.
__defer_in_test() { # defer|defer_last CMD
	[ "$BASHPID" = "$__rp_lib_bashpid" ] && return 0
	echo "# lib: $1 in a subshell would be lost at its exit, not run: $2" >&2
	return 1
}

__lib_cleanup() {
	local i
	__rp_timing_mark teardown
	for ((i = ${#__defer_cmds[@]} - 1; i >= 0; i--)); do
		eval "${__defer_cmds[$i]}" >/dev/null 2>&1
	done
	__defer_cmds=()
	__bg_kill_all
	for ((i = 0; i < ${#__defer_last_cmds[@]}; i++)); do
		eval "${__defer_last_cmds[$i]}" >/dev/null 2>&1
	done
	__defer_last_cmds=()
}
trap __lib_cleanup EXIT

retry() {
	local n=$1 delay=$2 i
	shift 2
	for ((i = 1; i <= n; i++)); do
		"$@" && return 0
		[ "$i" -lt "$n" ] && sleep "$delay"
	done
	return 1
}

# wait_listen N [PORT]: wait until something on guest N listens on TCP
# PORT (default 18515: the rdma-core examples' and perftest's), at most
# 120 s. A client started before its server listens is refused, and
# under TCG on a loaded host a server can take longer to get there than
# a client's tries last; so the client starts once the server listens.
wait_listen() {
	local n=$1 port=${2:-18515}
	on_host "$n" "for ((i = 0; i < 600; i++)); do
		[ -z \"\$(ss -Hltn 'sport = :$port')\" ] || exit 0
		sleep 0.2
	done
	echo 'nothing listens on TCP port $port of h$n after 120 s'
	exit 1"
}

# on_host N CMD...: the words of CMD are joined with spaces and run by
# bash -c on guest N (like ssh), with the guest's test environment, in
# $ROCEPATH_TOP, stdin from /dev/null; stdout and stderr are merged.
# Commands are killed after ON_HOST_TIMEOUT (default: the test's
# timeout) seconds and then return 124; 255 means the agent is unreachable.
on_host() {
	local n=$1
	shift
	local cmd="$*"
	local t=${ON_HOST_TIMEOUT:-$RPVM_TIMEOUT}

	if [ "$n" = "$HOST_INDEX" ]; then
		# At the default the test's own timeout kills the command with the
		# test, so timeout(1) would only add an exec (0.25 to 0.45 s each
		# on the debug kernel; one of the most launched programs). For
		# the same reason the command runs in a subshell, not bash -c
		# (a bash start is some 90 ms under TCG): it sees what bash -c
		# would, except the test's unexported variables and functions,
		# which no command here relies on being unset.
		if [ -n "${ON_HOST_TIMEOUT:-}" ]; then
			(cd "$ROCEPATH_TOP" && timeout -k 5 "$t" bash -c "$cmd" </dev/null 2>&1)
		else
			(cd "$ROCEPATH_TOP" && set -- && eval "$cmd") </dev/null 2>&1
		fi
		return
	fi

	local LC_ALL=C fd magic rc len out
	if ! exec {fd}<>"/dev/tcp/198.51.100.$n/$RPVM_AGENT_PORT" 2>/dev/null; then
		[ -n "${RPVM_QUIET:-}" ] || echo "on_host: cannot reach the agent on h$n (198.51.100.$n:$RPVM_AGENT_PORT)" >&2
		return 255
	fi
	printf 'RPV1 %d %d\n%s' "$t" "${#cmd}" "$cmd" >&"$fd"
	if ! read -r -t $((t + 60)) magic rc len <&"$fd" || [ "$magic" != RPV1 ]; then
		exec {fd}>&-
		echo "on_host: lost the agent on h$n while running: $cmd" >&2
		return 255
	fi
	# The agent sends the header and the output in one write, then
	# closes: once the header is here, so is the rest. Most outputs are
	# small and read -N takes them without a head(1) exec; it reads a
	# socket a byte at a time, so large ones go to head. Under LC_ALL=C
	# -N counts bytes; a NUL byte is dropped, as $(...) would drop it.
	if [ "$len" -gt 4096 ]; then
		head -c "$len" <&"$fd"
	elif [ "$len" -gt 0 ]; then
		IFS= read -r -N "$len" -t 60 out <&"$fd"
		printf '%s' "$out"
	fi
	exec {fd}>&-
	return "$rc"
}

__bg_dir() {
	local d=${RPVM_BG_DIR:-/tmp/rocepath-bg.$$}
	mkdir -p "$d"
	echo "$d"
}

on_host_bg() {
	local n=$1 name=$2 d
	shift 2
	d=$(__bg_dir)
	rm -f "$d/$n.$name".{out,rc,pid}
	(
		trap - EXIT
		on_host "$n" "$@" >"$d/$n.$name.out" 2>&1
		echo $? >"$d/$n.$name.rc"
	) &
	echo $! >"$d/$n.$name.pid"
}

wait_bg() {
	local n=$1 name=$2 t=${3:-$RPVM_TIMEOUT} d pid rc step=0.1 t0=$SECONDS
	d=$(__bg_dir)
	read -r pid 2>/dev/null <"$d/$n.$name.pid" || {
		echo "wait_bg: no background job $name on h$n" >&2
		return 1
	}
	# Each sleep was a process (and still is without bash-builtins, see
	# the top of this file): at ten a second, the debug lane's fuzzing
	# guest that also waited sent 56% of its peer's messages per second,
	# 71% with this back-off; so the poll slows as it waits. The limit is
	# twice T of wall time: T was tuned against ten polls a second, whose
	# own cost stretched it by about that much under TCG.
	while [ ! -f "$d/$n.$name.rc" ] && [ $((SECONDS - t0)) -lt $((2 * t)) ]; do
		kill -0 "$pid" 2>/dev/null || { sleep 0.1; break; }
		sleep "$step"
		[ $((SECONDS - t0)) -lt 5 ] || step=0.5
		[ $((SECONDS - t0)) -lt 60 ] || step=1
	done
	if [ ! -f "$d/$n.$name.rc" ]; then
		kill_bg "$n" "$name"
		cat "$d/$n.$name.out" 2>/dev/null
		echo "wait_bg: $name on h$n did not finish within $((2 * t))s" >&2
		rm -f "$d/$n.$name".{out,rc,pid}
		return 124
	fi
	wait "$pid" 2>/dev/null
	cat "$d/$n.$name.out"
	read -r rc <"$d/$n.$name.rc"
	rm -f "$d/$n.$name".{out,rc,pid}
	return "$rc"
}

kill_bg() {
	local n=$1 name=$2 d pid
	d=$(__bg_dir)
	read -r pid 2>/dev/null <"$d/$n.$name.pid" || return 0
	__kill_tree "$pid"
	wait "$pid" 2>/dev/null
	rm -f "$d/$n.$name".{rc,pid}
}

# Remote jobs die with their connection; local ones need the whole tree.
# The children are read from /proc (CONFIG_PROC_CHILDREN, in Debian's
# kernels), not pgrep's exec at each level; the debug kernel has no such
# file, and pgrep stays its way.
__kill_tree() {
	local c t ids kids=()
	kill -STOP "$1" 2>/dev/null
	if [ -r "/proc/$1/task/$1/children" ]; then
		for t in "/proc/$1/task/"*/children; do
			# One line of PIDs without a newline: read fails, yet reads it.
			ids=()
			read -r -a ids 2>/dev/null <"$t"
			kids+=("${ids[@]}")
		done
	else
		mapfile -t kids < <(pgrep -P "$1")
	fi
	for c in "${kids[@]}"; do
		__kill_tree "$c"
	done
	kill -KILL "$1" 2>/dev/null
}

__bg_kill_all() {
	local d=${RPVM_BG_DIR:-/tmp/rocepath-bg.$$} f n name
	[ -d "$d" ] || return 0
	for f in "$d"/*.pid; do
		[ -e "$f" ] || continue
		f=$(basename "$f" .pid)
		n=${f%%.*}
		name=${f#*.}
		kill_bg "$n" "$name"
	done
	rm -rf "$d"
}

# Kernel log checks: kmsg_mark before, kmsg_bugs after (prints offending
# lines and returns 0 when there are any).
KMSG_BUG_RE='BUG[: ]|WARNING:|Oops|general protection|Call Trace|UBSAN|KASAN|list_(add|del) corruption|Objects remaining|refcount_t|leak|soft lockup|hung_task|rcu.*stall|Tainted:.*[DW]'
kmsg_mark() {
	__kmsg_mark=$(dmesg | wc -l)
}

kmsg_bugs() {
	dmesg | tail -n +$((${__kmsg_mark:-0} + 1)) | grep -E "$KMSG_BUG_RE"
}

# RDMA helpers. Under TCG soft-RoCE moves about 1.5 Mbit/s: keep traffic
# small. Servers start first (in the background on the peer), clients retry
# until the server answers.

# gid_spell ADDR: ADDR (IPv4 or IPv6) spelt as sysfs shows a GID, eight
# groups of four hex digits, IPv4 mapped (::ffff:a.b.c.d); fails on
# anything else. Bash alone: gid_index runs in every RDMA test, and
# Python costs 2.7 s a start on the debug kernel.
gid_spell() {
	local a=$1 g i n out=''
	local -a h=() t=()
	if [[ $a =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]]; then
		for i in 1 2 3 4; do
			[ "${BASH_REMATCH[i]}" -le 255 ] || return 1
		done
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' \
			"${BASH_REMATCH[@]:1:4}"
		return
	fi
	[[ $a =~ ^[0-9a-fA-F:]+$ && $a != *:::* ]] || return 1
	if [[ $a == *::* ]]; then
		[[ ${a#*::} != *::* ]] || return 1
		IFS=: read -ra h <<<"${a%%::*}"
		IFS=: read -ra t <<<"${a#*::}"
		n=$((8 - ${#h[@]} - ${#t[@]}))
		[ "$n" -ge 1 ] || return 1
		for ((i = 0; i < n; i++)); do
			h+=(0)
		done
		h+=("${t[@]}")
	else
		IFS=: read -ra h <<<"$a"
	fi
	[ "${#h[@]}" = 8 ] || return 1
	for g in "${h[@]}"; do
		[ "${#g}" -ge 1 ] && [ "${#g}" -le 4 ] || return 1
		printf -v g '%04x' "0x$g"
		out+=${out:+:}$g
	done
	echo "$out"
}

# gid_index IBDEV ADDR: the index of the RoCEv2 GID holding ADDR (IPv4 or
# IPv6); prints nothing and fails when there is none.
gid_index() {
	local base=/sys/class/infiniband/$1/ports/1 want f gid typ
	want=$(gid_spell "$2") || return 1
	for f in "$base"/gids/*; do
		read -r gid 2>/dev/null <"$f" && [ "$gid" = "$want" ] || continue
		read -r typ 2>/dev/null <"$base/gid_attrs/types/${f##*/}" || continue
		[[ $typ == *v2* ]] && { echo "${f##*/}"; return 0; }
	done
	return 1
}

# on_gid_index N ADDR: gid_index on guest N, for ADDR on its $IBDEV. ADDR
# is expanded there, so '$HOST_IP4' names guest N's own address.
on_gid_index() {
	on_host "$1" "source selftests/lib.sh; gid_index $IBDEV $2"
}

# rdma_pingpong [-6] [ARGS...]: ibv_rc_pingpong, server on guest 2, client
# here, 20 iterations unless ARGS say otherwise; -6 uses the IPv6 GIDs (the
# out-of-band TCP exchange stays on IPv4: the server listens on IPv4 only).
# Prints both sides' output.
rdma_pingpong() {
	local peer=$PEER_IP4 lgid rgid rc src
	if [ "${1:-}" = -6 ]; then
		shift
		lgid=$(gid_index "$IBDEV" "$HOST_IP6") || { echo "no RoCEv2 GID for $HOST_IP6"; return 1; }
		rgid=$(on_gid_index 2 "$PEER_IP6") ||
			{ echo "no RoCEv2 GID for $PEER_IP6 on h2"; return 1; }
	else
		lgid=$(gid_index "$IBDEV" "$HOST_IP4") || { echo "no RoCEv2 GID for $HOST_IP4"; return 1; }
		rgid=$(on_gid_index 2 "$PEER_IP4") ||
			{ echo "no RoCEv2 GID for $PEER_IP4 on h2"; return 1; }
	fi
	on_host_bg 2 pingpong "ibv_rc_pingpong -d $IBDEV -g $rgid -n 20 $*"
	wait_listen 2 || { kill_bg 2 pingpong; return 1; }
	retry 5 1 ibv_rc_pingpong -d "$IBDEV" -g "$lgid" -n 20 "$@" "$peer" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		kill_bg 2 pingpong
		rxe_report
		return "$rc"
	fi
	src=$(wait_bg 2 pingpong 60 2>&1) || rc=1
	printf '%s\n' "$src" | sed 's/^/h2: /'
	[ "$rc" = 0 ] || rxe_report
	return "$rc"
}

# ib_write_bw's RC timeout (-u): 4.096 us << 20, some 4 s, where
# perftest's 14 is 67 ms. A TCG guest held off the host's CPU (its vCPU
# busy, or a lane at nice 10) finds its timer expired before it reads the
# ACKs waiting for it, and resends what arrived: h1 counted 126 timeouts
# and h2 4,106 duplicates in a write that rxe on 6.1 then ended with
# "remote invalid request" (status 9). Lost packets are still resent,
# seconds later.
RC_TIMEOUT=20

# rdma_write_bw [ARGS...]: ib_write_bw (RC, 4 KiB x 50 unless ARGS say
# otherwise, timeout RC_TIMEOUT), server on guest 2, client here.
rdma_write_bw() {
	local lgid rgid rc out
	lgid=$(gid_index "$IBDEV" "$HOST_IP4") || { echo "no RoCEv2 GID for $HOST_IP4"; return 1; }
	rgid=$(on_gid_index 2 "$PEER_IP4") ||
		{ echo "no RoCEv2 GID for $PEER_IP4 on h2"; return 1; }
	on_host_bg 2 write_bw "ib_write_bw -d $IBDEV -x $rgid -s 4096 -n 50 -F -u $RC_TIMEOUT $*"
	wait_listen 2 || { kill_bg 2 write_bw; return 1; }
	retry 5 1 ib_write_bw -d "$IBDEV" -x "$lgid" -s 4096 -n 50 -F -u "$RC_TIMEOUT" "$@" "$PEER_IP4" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		kill_bg 2 write_bw
		rxe_report
		return "$rc"
	fi
	out=$(wait_bg 2 write_bw 60 2>&1) || rc=1
	printf '%s\n' "$out" | sed 's/^/h2: /'
	[ "$rc" = 0 ] || rxe_report
	return "$rc"
}

# rxe_report: both guests' non-zero rxe port counters, for a failure's log.
# They count since boot, over every test of a batch, but they tell a
# transport error (sequence errors, retries exceeded) from a refused
# connection.
rxe_report() {
	local n
	for n in 1 2; do
		log "h$n's rxe counters since boot (non-zero): $(on_host "$n" "rdma -j statistic show link $IBDEV/1" |
			jq -c '.[0] | with_entries(select(.key != "port" and (.value | type) == "number" and .value > 0))')"
	done
}

# ---- rocepath.ko ----

rp_load() {
	local n=$1
	shift
	on_host "$n" "rmmod rocepath 2>/dev/null; insmod $ROCEPATH_KO $*" >/dev/null
}

rp_unload() {
	on_host "$1" "rmmod rocepath 2>/dev/null; [ ! -d /sys/module/rocepath ]" >/dev/null
}

rp_load_both() {
	require_module
	rp_unload 1
	rp_unload 2
	defer rp_unload 2
	defer rp_unload 1
	rp_load 1 "$@" && rp_load 2 "$@"
}

# ---- YNL ----

ynl() {
	timeout 60 $YNL_CMD "$@"
}

# The checkout may sit below a directory only root can enter (a clone in
# /root): uid 65534 then cannot read .cache/linux-src or the spec there, so
# its YNL runs from copies in the guest's /tmp.
ynl_stage() {
	local d=/tmp/rocepath-ynl-unpriv n=$1

	shift
	[ "$YNL_RUN" = python3 ] || set -- "$YNL_RUN" "$@"
	on_host "$n" "rm -rf $d && mkdir -p $d && cp -r $YNL_CLI $YNL_DIR/lib $YNL_SPEC \
		$ROCEPATH_TOP/selftests/ynl_cli.py $* $d/ &&
		chmod -R a+rX $d" >/dev/null || return 1
	echo "$d"
}

ynl_unpriv() {
	local d run

	d=$(ynl_stage "$1") || return 1
	run=python3
	[ "$YNL_RUN" = python3 ] || run=$d/${YNL_RUN##*/}
	echo "setpriv --reuid=65534 --regid=65534 --clear-groups $run $d/ynl_cli.py $d/cli.py --spec $d/${YNL_SPEC##*/} --no-schema"
}

ip_hex() {
	local s
	s=$(gid_spell "$1") || { echo "ip_hex: not an address: $1" >&2; return 1; }
	s=${s//:/}
	if [[ $1 == *:* ]]; then
		echo "$s"
	else
		echo "${s:24}"
	fi
}
