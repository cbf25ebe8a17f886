#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rocepath VM, stage 2: PID 1 of every guest after switch_root.
# Sets up the host name, the test link eth0 (192.0.2.<i>/24, 2001:db8::<i>/64,
# soft-RoCE rxe0 on top), the control link eth1 (198.51.100.<i>/24, used only
# by the agent that runs on_host commands) and then
#   guest 1 (driver): waits for the other guests' agents, runs the jobs
#     the host wrote to $RUN_DIR/job one after another, streams job K's
#     output to $RUN_DIR/h1.out.K and writes "RPVM-RESULT <token> <K> <rc>"
#     to ttyS1 (arm64: the virtio port named by rpvm.result) -- the only
#     place the host takes a result from, so a panic or a hang can never
#     pass;
#   guests 2..N: run scripts/vm/agent.py until the host stops them.
# PID 1 must never exit: every path ends in poweroff.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# The C locale, not C.UTF-8: a program that calls setlocale() then opens
# no locale files, which under TCG saves some 20 ms of every cat, grep,
# sed, awk or bash the tests start (thousands in a run). Python still
# speaks UTF-8 (its UTF-8 mode is on under C).
export LC_ALL=C HOME=/root TERM=dumb
# A Python that dies of a fatal signal prints where, in Python, on its
# stderr, which the test shows: once pin_ynl.py died of a segfault with
# no trace at all (other programs' segfaults: guest-kcheck.sh).
export PYTHONFAULTHANDLER=1
umask 022

console() { local u; read -r u _ </proc/uptime; echo "rpvm-h${idx:-?}: [$u] $*" >/dev/console; }
halt() {
	sync
	busybox poweroff -f
	sleep 30
}
die() {
	console "error: $*"
	halt
}

for arg in $(</proc/cmdline); do
	case $arg in
	rpvm.*=*) k=${arg%%=*}; v=${arg#*=}; printf -v "RPVM_${k#rpvm.}" '%s' "$v" ;;
	esac
done
top=${RPVM_top:?}
idx=${RPVM_idx:?}
nhosts=${RPVM_n:?}
run=${RPVM_run:?}
token=${RPVM_token:?}
ttimeout=${RPVM_timeout:-300}
read -r rel </proc/sys/kernel/osrelease

: >/etc/machine-id
# Marks a test guest: selftests/ynl_client starts its server only here.
: >/run/rpvm.guest
# jq 1.6 compiles its builtins at every start: 0.22 s of TCG a call,
# against 0.03 s for gojq (Debian's jq in Go), and the tests call jq
# hundreds of times a run. Where gojq is installed, jq in the guests is
# gojq (the root's upper layer is a tmpfs: nothing changes on the host).
[ -x /usr/bin/gojq ] && ln -sf /usr/bin/gojq /usr/local/bin/jq
console "stage 2 started"
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

# A fabric run (run.sh -f): guests 1..N-1 are the topology's hosts, in its
# order, with its names and addresses; guest N forwards (fabric.py).
fabric= fabric_role=
declare -A fab_name fab_ip
if [ -s "$run/fabric" ]; then
	fabric=1
	[ "$idx" = "$nhosts" ] && fabric_role=fabric
	while read -r key a b c _; do
		case $key in
		host) fab_name[$a]=$b fab_ip[$a]=$c ;;
		mode) fab_mode=$a ;;
		esac
	done <"$run/fabric"
fi
myname=h$idx
[ -n "$fabric" ] && myname=${fab_name[$idx]:-fabric}
echo "$myname" >/proc/sys/kernel/hostname
echo "$myname" >/etc/hostname
{
	echo "127.0.0.1 localhost"
	echo "::1 localhost"
	for ((i = 1; i <= nhosts; i++)); do
		if [ -n "$fabric" ]; then
			[ -n "${fab_ip[$i]:-}" ] && echo "${fab_ip[$i]} ${fab_name[$i]}"
			continue
		fi
		echo "192.0.2.$i h$i"
		echo "2001:db8::$i h$i"
	done
} >/etc/hosts
ulimit -l unlimited	# RDMA memory registration
ulimit -c 0

export ROCEPATH_TOP=$top
export ROCEPATH_KO=$top/build/$rel/rocepath.ko
case $rel in
*-arm64)
	# The cross-built userspace (scripts/cross-arm64.sh), not the host's.
	export RP_CLI=$top/build/arm64/daemon/rocepath
	export RPD_BIN=$top/build/arm64/daemon/rocepathd/rocepathd
	export ROCEPATH_SELFTEST_BIN=$top/build/arm64/selftests
	;;
esac
export ROCEPATH_KREL=$rel
export HOST_INDEX=$idx NHOSTS=$nhosts
export HOST_IP4=192.0.2.$idx HOST_IP6=2001:db8::$idx
if [ "$idx" = 1 ]; then
	export PEER_IP4=192.0.2.2 PEER_IP6=2001:db8::2
else
	export PEER_IP4=192.0.2.1 PEER_IP6=2001:db8::1
fi
if [ -n "$fabric" ]; then
	# No IPv6 across the fabric: it routes the hosts' IPv4 addresses.
	HOST_IP4=${fab_ip[$idx]:-} HOST_IP6= PEER_IP6=
	PEER_IP4=${fab_ip[$((idx == 1 ? 2 : 1))]:-}
	export FABRIC_HOST=$nhosts FABRIC_HOSTS=$((nhosts - 1))
	export FABRIC_TOPOLOGY
	FABRIC_TOPOLOGY=$(sed -n 's/^topology //p' "$run/fabric")
fi
export IBDEV=rxe0 NETDEV=eth0 RUN_DIR=$run
export RPVM_TIMEOUT=$ttimeout RPVM_AGENT_PORT=7000
# Test tunables passed from the host (run.sh: settings env=, ROCEPATH_VM_PASSENV).
# shellcheck disable=SC1091
[ -s "$run/env" ] && . "$run/env"
cd "$top" || die "cannot cd to $top"

# Name the NICs by MAC, whatever order they were probed in. Few forks:
# under TCG every exec of a dynamic binary costs tens of milliseconds.
mac_test=$(printf '52:54:00:12:34:%02x' "$idx")
mac_ctl=$(printf '52:54:00:12:35:%02x' "$idx")
t= c=
for d in /sys/class/net/*; do
	read -r a 2>/dev/null <"$d/address" || continue
	[ "$a" = "$mac_test" ] && t=${d##*/}
	[ "$a" = "$mac_ctl" ] && c=${d##*/}
done
[ -n "$c" ] || die "no NIC with MAC $mac_ctl"
if [ "$fabric_role" = fabric ]; then
	# The fabric guest has no test NIC: its NICs (found again by MAC)
	# go into the leaves; out of eth1's way first.
	n=0
	for d in /sys/class/net/*; do
		read -r a 2>/dev/null <"$d/address" || continue
		case $a in
		52:54:00:12:36:*) ip link set "${d##*/}" name "fab$n"; n=$((n + 1)) ;;
		esac
	done
	[ "$c" = eth1 ] || ip link set "$c" name eth1 || die "cannot name the control NIC eth1"
	echo 1 >/proc/sys/net/ipv6/conf/eth1/disable_ipv6
	ip -batch - <<-EOT || die "network set-up failed"
		link set lo up
		link set eth1 up
		addr add 198.51.100.$idx/24 dev eth1
	EOT
	read -r _ ftopo <<<"$(grep '^topology ' "$run/fabric")"
	read -r _ fmode <<<"$(grep '^mode ' "$run/fabric")"
	read -r _ frouting <<<"$(grep '^routing ' "$run/fabric")"
	# FRR's daemons live in this guest only: stopped on any way out.
	trap '/usr/bin/python3 "$top/scripts/vm/fabric.py" stop >/dev/console 2>&1' EXIT
	/usr/bin/python3 "$top/scripts/vm/fabric.py" setup "$ftopo" "$fmode" "${frouting:-kernel}" \
		>/dev/console 2>&1 || die "fabric set-up failed"
	console "fabric up ($fmode hash, ${frouting:-kernel} routing)"
	/usr/bin/python3 "$top/scripts/vm/agent.py" serve \
		"198.51.100.$idx" "$RPVM_AGENT_PORT" /run/rpvm.ready >/dev/console 2>&1 &
	agent=$!
	: >/run/rpvm.ready
	wait "$agent"
	die "agent exited"
fi
[ -n "$t" ] || die "no NIC with MAC $mac_test"
if [ "$t" != eth0 ] || [ "$c" != eth1 ]; then
	ip link set "$t" name rpvmt && ip link set "$c" name rpvmc
	ip link set rpvmt name eth0 && ip link set rpvmc name eth1
fi
echo 1 >/proc/sys/net/ipv6/conf/eth1/disable_ipv6
if [ -n "$fabric" ]; then
	# The leaf answers ARP for every other host (proxy ARP) and routes.
	ip -batch - <<-EOT || die "network set-up failed"
		link set lo up
		link set eth0 up
		link set eth1 up
		addr add $HOST_IP4/24 dev eth0
		addr add 198.51.100.$idx/24 dev eth1
	EOT
else
	ip -batch - <<-EOT || die "network set-up failed"
		link set lo up
		link set eth0 up
		link set eth1 up
		addr add 192.0.2.$idx/24 dev eth0
		addr add 2001:db8::$idx/64 dev eth0 nodad
		addr add 198.51.100.$idx/24 dev eth1
	EOT
fi
console "network up"

# The agent starts early (python is slow to start under TCG) and holds
# every command until /run/rpvm.ready exists.
if [ "$idx" != 1 ]; then
	/usr/bin/python3 "$top/scripts/vm/agent.py" serve \
		"198.51.100.$idx" "$RPVM_AGENT_PORT" /run/rpvm.ready >/dev/console 2>&1 &
	agent=$!
fi

modprobe -a rdma_rxe ib_uverbs rdma_ucm || die "modprobe rdma_rxe ib_uverbs rdma_ucm failed"
rdma link add rxe0 type rxe netdev eth0 || die "rdma link add rxe0 type rxe netdev eth0 failed"
console "rxe0 up"

# Debug kernels: the jiffies each job started at, which the kernel
# checks after a job use to tell whose a kmemleak report is
# (scripts/vm/guest-kcheck.sh); made now, so that it belongs to the state
# every job must leave as it found it.
kmemleak=
[ -w /sys/kernel/debug/kmemleak ] && kmemleak=1 && : >/run/rpvm.kmarks
# Every exec traced, counted per job (scripts/vm/guest-execs.sh).
# shellcheck source=scripts/vm/guest-execs.sh
. "$top/scripts/vm/guest-execs.sh" && execs_setup
# Twice a job died of a signal no test sends it: a SIGTERM that timeout
# passed on (nl_fuzz, debug lane), a SIGHUP (dcqcn_measured, 6.12). The
# kernel's signal_generate event, into the same buffer, names the sender
# of every hang-up, interrupt, quit and terminate signal; a job that dies
# of a signal shows the last of them (sigs_sent).
sigev=$execs_trace/events/signal/signal_generate
{ echo 'sig == 1 || sig == 2 || sig == 3 || sig == 15' >"$sigev/filter" &&
	echo 1 >"$sigev/enable"; } 2>/dev/null || sigev=
sigs_sent() { # the last signals the event saw in this job, as comments
	local l last=()
	[ -n "$sigev" ] || return 0
	# in bash: the job's exec count is taken after this
	while read -r l; do
		[[ $l == *"signal_generate:"* ]] || continue
		last+=("#   $l")
		[ "${#last[@]}" -le 20 ] || last=("${last[@]:1}")
	done <"$execs_trace/trace"
	echo "# vm: the last hang-up, interrupt, quit and terminate signals sent during the job:"
	printf '%s\n' "${last[@]}"
}

if [ "$idx" != 1 ]; then
	: >/run/rpvm.ready
	console "up, agent ready"
	wait "$agent"
	die "agent exited"
fi

# Driver: wait until every other guest's agent answers.
. "$top/selftests/lib.sh" >/dev/null 2>&1 || die "cannot source selftests/lib.sh"
for ((i = 2; i <= nhosts; i++)); do
	ok=
	for ((n = 0; n < 600; n++)); do
		if [ "$(RPVM_QUIET=1 on_host "$i" 'echo rpvm-ok' 2>/dev/null)" = rpvm-ok ]; then
			ok=1
			break
		fi
		sleep 0.2
	done
	[ -n "$ok" ] || die "agent on h$i did not answer"
done
read -r up _ </proc/uptime
echo "$up" >"$run/h1.ready"
console "up after $up s, running the job"

# The jobs, one line each as run.sh wrote them: "TIMEOUT NAME COMMAND",
# COMMAND bash-quoted. Several jobs (run.sh -b) run one after another in
# these guests; each gets its own output file, timing marks and result
# line, the kernel scan, and the check that it left nothing behind.
mapfile -t jobs <"$run/job"
result=/dev/ttyS1
if [ -n "${RPVM_result:-}" ]; then
	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = "$RPVM_result" ] && result=/dev/${p##*/}
	done
fi

# A guest that logged a kernel bug fails the test even if it passed, and
# on a debug kernel so does a kmemleak report
# (scripts/vm/guest-kcheck.sh). The guests scan side by side: each has its
# own vCPU, and a kmemleak scan of a debug guest under TCG is slow. A
# report against job K, the one that just ran, goes to $run/hI.kbugs; one
# against an earlier job (kmemleak sees a leak one scan late) is added to
# that job's output and its result sent again as a failure, which the
# host takes as the job's (run.sh reads the last result of each job).
# After a job ("scan"), each guest first counts what the job launched
# (guest-execs.sh), before the scan's own programs start. The scripts
# are sourced in a subshell, not run by a bash of their own: a bash
# start costs some 90 ms under TCG.
# "scan" and "log" come after job K, with and without a kmemleak scan;
# "rescan" and "final" after the last job, when its own scan was a "log".
kscan() { # scan|log|rescan|final K
	local i j count="" own="" kmode=$1
	case $1 in
	scan | log) own=1 ;;
	rescan) kmode=scan ;;
	esac
	for ((i = 1; i <= nhosts; i++)); do
		[ -n "$own" ] && count="execs_count '$run/execs-h$i.$2';"
		if [ "$i" = 1 ]; then
			[ -z "$own" ] || execs_count "$run/execs-h1.$2"
			# shellcheck source=/dev/null # run as a script, not a library
			. "$top/scripts/vm/guest-kcheck.sh" "$kmode" "$2"
		else
			RPVM_QUIET=1 on_host "$i" "${count:+. '$top/scripts/vm/guest-execs.sh' && $count}
				( . '$top/scripts/vm/guest-kcheck.sh' $kmode $2 )"
		fi >"$run/h$i.kall" 2>&1 &
	done
	wait
	for ((i = 1; i <= nhosts; i++)); do
		: >"$run/h$i.kbugs"
		[ -s "$run/h$i.kall" ] || continue
		awk -v h="h$i" '$1 == "crash" { sub(/^crash [0-9]+ /, ""); print "# vm: a program crashed on " h ": " $0 }' \
			"$run/h$i.kall" >>"$run/h1.out.$2"
		for j in $(awk '$1 ~ /^[0-9]+$/ { print $1 }' "$run/h$i.kall" | sort -un); do
			if [ -n "$own" ] && [ "$j" = "$2" ]; then
				awk -v j="$j" '$1 == j { sub(/^[0-9]+ /, ""); print }' "$run/h$i.kall" >"$run/h$i.kbugs"
				continue
			fi
			{
				echo "# vm: kernel problem on h$i, allocated during this job, reported after job $2:"
				awk -v j="$j" '$1 == j { sub(/^[0-9]+ /, ""); print }' "$run/h$i.kall" |
					sed 's/^/#   /' | head -n 120
			} >>"$run/h1.out.$j"
			sync
			echo "RPVM-RESULT $token $j 1" >"$result"
		done
	done
}

# What a test must leave as it found it, on every guest
# (scripts/vm/guest-state.sh): rocepath.ko not loaded, no process it
# started still running, the addresses, links, routes, rules, qdiscs,
# nftables, namespaces, RDMA links, mounts and what /run holds. Compared
# with the state before the first job; a difference fails the job and
# ends the batch, as any failed job does (run.sh then reports the jobs
# after it as not run, for a fresh boot).
state_of() { # GUEST [BEFORE]: its state, or what differs from BEFORE
	if [ "$1" = 1 ]; then
		setsid -w bash "$top/scripts/vm/guest-state.sh" ${2:+"$2"}
	else
		RPVM_QUIET=1 on_host "$1" "( . '$top/scripts/vm/guest-state.sh' ${2:+"'$2'"} )"
	fi >"$run/state-h$1" 2>&1
}
states() { # [diff]: every guest's state (in $run/state-hI), side by side
	local i
	for ((i = 1; i <= nhosts; i++)); do
		state_of "$i" ${1:+"$run/state0-h$i"} &
	done
	wait
}
if [ "${#jobs[@]}" -gt 1 ]; then
	states
	for ((i = 1; i <= nhosts; i++)); do
		mv "$run/state-h$i" "$run/state0-h$i"
	done
fi

# Phase marks in guest uptime for run.sh's timing line: here the job's
# start and end and the scans' end, lib.sh the test's own (RPVM_TIMING).
mark() { local u; read -r u _ </proc/uptime; echo "$1 $u" >>"$run/timing-h1.$k"; }
# A fabric batch's job K has its own topology file and hash
# ($run/fabric.K, run.sh): the fabric guest switches to that hash first.
job_fabric() { # K: sets job_topo; 1 when the fabric did not switch
	local key val mode=${fab_mode:-}
	job_topo=${FABRIC_TOPOLOGY:-}
	[ -s "$run/fabric.$1" ] || return 0
	while read -r key val; do
		case $key in
		topology) job_topo=$val ;;
		mode) mode=$val ;;
		esac
	done <"$run/fabric.$1"
	[ "$mode" != "${fab_mode:-}" ] || return 0
	echo "# vm: the fabric's hash: $mode (was ${fab_mode:-})"
	RPVM_QUIET=1 on_host "$nhosts" "python3 scripts/vm/fabric.py mode $mode" 2>&1 | sed 's/^/#   /'
	[ "${PIPESTATUS[0]}" = 0 ] || return 1
	fab_mode=$mode
}
for ((k = 1; k <= ${#jobs[@]}; k++)); do
	read -r tmo name job <<<"${jobs[$((k - 1))]}"
	out=$run/h1.out.$k
	: >"$out"
	# Markers on every console: run.sh gives a console report to the
	# job whose markers surround it.
	console "rpvm-job $k $name"
	job_ok=1
	job_fabric "$k" >>"$out" || job_ok=
	# shellcheck source=/dev/null # run as a script, not a library
	[ -z "$kmemleak" ] || (. "$top/scripts/vm/guest-kcheck.sh" mark "$k")
	for ((i = 2; i <= nhosts; i++)); do
		RPVM_QUIET=1 on_host "$i" "echo 'rpvm-h$i: rpvm-job $k $name' >/dev/console
			${kmemleak:+( . '$top/scripts/vm/guest-kcheck.sh' mark $k )}
			. '$top/scripts/vm/guest-execs.sh' && execs_start" >/dev/null 2>&1
	done
	execs_start
	mark job
	t_job=$SECONDS
	# timeout puts the job in a process group of its own. Were timeout a
	# child of this shell, PID 1, the kernel would count that group as
	# orphaned (a parent that is init links no group to its session), and
	# when a process of an orphaned group exits while another is stopped
	# (lib.sh's __kill_tree stops a tree before it kills it) the kernel
	# sends the whole group SIGHUP: the test died of it (exit 129), or
	# timeout passed it on. A subshell in between is the group's link.
	if [ -n "$job_ok" ]; then
		(
			[ -z "$job_topo" ] || export FABRIC_TOPOLOGY=$job_topo
			RPVM_TIMEOUT=$tmo RPVM_TIMING=$run/timing-h1.$k timeout -k 10 "$tmo" \
				bash -c "cd \"\$ROCEPATH_TOP\" && exec $job" </dev/null >>"$out" 2>&1
			exit $?
		)
		rc=$?
	else
		echo "# vm: not run: the fabric did not switch to its hash" >>"$out"
		rc=1
	fi
	mark job-end
	# 137 is also what timeout returns when a signal from elsewhere made
	# it pass SIGTERM on and then, 10 s later, SIGKILL: say which it was.
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		if [ $((SECONDS - t_job + 1)) -ge "$tmo" ]; then
			echo "# vm: test timed out after $tmo s" >>"$out"
		else
			echo "# vm: test killed (exit $rc) after $((SECONDS - t_job)) s of its $tmo s: not its timeout, a signal from elsewhere" >>"$out"
			sigs_sent >>"$out"
		fi
		rc=1
	elif [ "$rc" -gt 128 ]; then
		echo "# vm: test died of signal $((rc - 128)) after $((SECONDS - t_job)) s" >>"$out"
		sigs_sent >>"$out"
	fi
	# kmemleak: after every fifth job and the last (guest-kcheck.sh).
	kmode=log
	if [ -n "$kmemleak" ] && { [ $((k % 5)) = 0 ] || [ "$k" = "${#jobs[@]}" ]; }; then
		kmode=scan
	fi
	kscan "$kmode" "$k"
	for ((i = 1; i <= nhosts; i++)); do
		if [ -s "$run/h$i.kbugs" ]; then
			echo "# vm: kernel problem on h$i:" >>"$out"
			sed 's/^/#   /' "$run/h$i.kbugs" | head -n 120 >>"$out"
			rc=1
		fi
	done
	left=
	if [ "${#jobs[@]}" -gt 1 ]; then
		states diff
		for ((i = 1; i <= nhosts; i++)); do
			[ -s "$run/state-h$i" ] || continue
			echo "# vm: the test left h$i changed:" >>"$out"
			sed 's/^/#   /' "$run/state-h$i" | head -n 60 >>"$out"
			left=1
		done
		[ -z "$left" ] || rc=1
	fi
	mark scans-end
	sync
	echo "RPVM-RESULT $token $k $rc" >"$result"
	# The guests are no longer as the next job expects: run.sh reports
	# the rest as not run. So after a failed test: what broke it may be
	# state no check sees (an RDMA device whose queues stand still), and
	# the next test, failing of it, would hide where the fault began.
	[ -z "$left" ] || break
	[ "$rc" = 0 ] || [ "$rc" = 4 ] || break
	# -xdev: a tree checked out below /tmp is mounted there (init), and
	# emptying /tmp through that mount deleted the checkout on the host.
	find /tmp -xdev -mindepth 1 -delete 2>/dev/null &
	for ((i = 2; i <= nhosts; i++)); do
		RPVM_QUIET=1 on_host "$i" "find /tmp -xdev -mindepth 1 -delete" >/dev/null 2>&1 &
	done
	wait
done
# The last job's leaks need a scan after the one that followed it; a
# batch that ended early may have scanned nothing since its last jobs.
if [ -n "$kmemleak" ]; then
	k=$((k > ${#jobs[@]} ? ${#jobs[@]} : k))
	[ "$kmode" = scan ] || kscan rescan "$k"
	kscan final "$k"
fi
sync
halt
