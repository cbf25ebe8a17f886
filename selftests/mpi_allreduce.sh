#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The traffic a training job sends: Open MPI 4.1 runs MPI_Allreduce between
# the two guests, one rank each, over RC QPs on rxe, through libfabric
# (mtl ofi, "verbs;ofi_rxm": RC QPs connected by rdma_cm) and UCX (pml
# ucx, rc_verbs with UD wire-up; the hook pins RC QPs, UD's packets keep
# their own ports). mpirun starts the remote rank through
# the harness agent (mpi_rsh.sh: the guests run no sshd) and keeps its own
# traffic on the control link. With rocepath.ko on both guests and a
# 4-port path set pinned toward the peer on each, for each library:
#   - the sums are right (mpi_allreduce checks every element of every round);
#   - the library's RC QPs to the peer are in `qp show`, pinned on ports of
#     the set, and every RC packet on the wire (captured at both guests;
#     UD's, rdma_cm's MADs and UCX's wire-up, excepted) leaves on one of
#     those ports;
#   - `flow show` equals the wire: h1's records toward the peer, tx packets
#     per (sport, dqpn), and its rx packets from the peer;
#   - a second job keeps going while rocepath.ko is unloaded on both
#     guests, and its sums stay right.
# A library that cannot run MPI_Allreduce here without rocepath.ko either
# is skipped with the reason (its last error line); one that fails only
# with the module loaded fails the test.
# rpvm-check-kernels: 6.12
# rpvm-timeout: 900

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/cap_lib.sh"

require_module
require_cli
require_cmd mpirun tcpdump jq python3

# The MPI program, as make -C selftests built it on the host (mpicc in a
# TCG guest takes seconds), else built here.
MPI_PROG=$ROCEPATH_TOP/build/selftests/mpi_allreduce
if [ ! -x "$MPI_PROG" ] || [ "$ROCEPATH_TOP/selftests/mpi_allreduce.c" -nt "$MPI_PROG" ]; then
	require_cmd mpicc
	MPI_PROG=$RUN_DIR/mpi_allreduce
	mpicc -O2 -o "$MPI_PROG" "$ROCEPATH_TOP/selftests/mpi_allreduce.c" >&2 ||
		ksft_skip_all "cannot build mpi_allreduce.c (libopenmpi-dev?)"
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PCAP=$ROCEPATH_TOP/selftests/pin_pcap.py
SET1="50100 50101 50102 50103"	# h1 -> h2
SET2="50110 50111 50112 50113"	# h2 -> h1

# The launch: one rank per guest, the remote one started by mpi_rsh.sh;
# Open MPI's own TCP (run-time, BTL) on eth1, so that eth0 carries only
# the library's RoCEv2 traffic.
MPIRUN=(mpirun -np 2 --host h1,h2 --mca plm_rsh_agent "$ROCEPATH_TOP/selftests/mpi_rsh.sh"
	--mca oob_tcp_if_include eth1 --mca btl_tcp_if_include eth1 --mca btl self)
# Per library. libfabric: ofi_rxm sizes its MSG CQs for FI_UNIVERSE_SIZE
# peers (default 256), beyond rxe's 32767 CQEs: two ranks need 16 at most.
# UCX: Open MPI takes pml ucx only on devices named in pml_ucx_devices
# (default mlx*). UCX 1.13's UD drops a packet whose DGID is none of its
# GIDs, and takes the packet's L3 type from the completion's sl field, as
# mlx5 fills it; rxe puts the SL there (0: "GRH"), so UCX reads the IPv4
# header that rxe leaves in the GRH's second half as an IPv6 GRH, and
# drops all of the wire-up: every job died of "UD endpoint ... unhandled
# timeout error". UCX_UD_VERBS_ETH_DGID_CHECK=n turns that check off.
stack_args() {
	case $1 in
	ofi) echo "--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include verbs;ofi_rxm -x FI_UNIVERSE_SIZE=16" ;;
	ucx) echo "--mca pml ucx --mca pml_ucx_devices rxe* -x UCX_NET_DEVICES=$IBDEV:1 -x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_UD_VERBS_ETH_DGID_CHECK=n" ;;
	esac
}

# mpi_start NAME STACK ROUNDS PAUSE_MS [HOLD_FILE]: the job in the
# background, its output in $RUN_DIR/NAME.out (with HOLD_FILE, ROUNDS are
# the rounds after the file appears); mpi_wait NAME: its exit code, and
# the sums were right; mpi_round NAME: the last round rank 0 reported.
declare -A mpi_pid
mpi_start() {
	local -a args
	read -r -a args <<<"$(stack_args "$2")"
	timeout -k 5 300 "${MPIRUN[@]}" "${args[@]}" "$MPI_PROG" "$3" 512 "$4" ${5:+"$5"} \
		>"$RUN_DIR/$1.out" 2>&1 &
	mpi_pid[$1]=$!
}

mpi_wait() {
	local rc
	wait "${mpi_pid[$1]}"
	rc=$?
	grep -q '^sums ok' "$RUN_DIR/$1.out" && [ "$rc" = 0 ]
}

mpi_round() {
	sed -n 's/^round \([0-9]*\) ok$/\1/p' "$RUN_DIR/$1.out" | tail -n1
}

# mpi_until NAME ROUND: wait until rank 0 reported ROUND, or the job ended.
mpi_until() {
	local r end=$((SECONDS + 240))
	while :; do
		r=$(mpi_round "$1")
		[ "${r:-0}" -ge "$2" ] && return 0
		kill -0 "${mpi_pid[$1]}" 2>/dev/null || return 1
		[ $SECONDS -lt $end ] || return 1
		sleep 0.5
	done
}

# Why a job failed: its last error line (UCX's "Fatal:", Open MPI's
# "Error:", libfabric's warnings), without the backtraces.
mpi_why() {
	grep -aE 'Fatal:|Error:|ERROR|error:|Unable|cannot be selected' "$RUN_DIR/$1.out" |
		grep -v '^\[h[0-9]*:[0-9]*\] *\[' | tail -n1 | cut -c1-200
}

rp_up() {
	rp_load 1 && rp_load 2 &&
		on_host 1 "$RP_CLI pin add remote $PEER_IP4 sport ${SET1// /,}" >/dev/null &&
		on_host 2 "$RP_CLI pin add remote $HOST_IP4 sport ${SET2// /,}" >/dev/null
}
defer rp_unload 1
defer rp_unload 2

# qps_ok N PEER SET: guest N's RC QPs to PEER (saved in $RUN_DIR/NAME-qpN.json)
# exist and are all pinned on ports of SET.
qps_ok() {
	local f=$RUN_DIR/$1-qp$2.json
	jq -c --arg r "$3" '.[] | select(.remote == $r)' "$f" | sed 's/^/  qp: /'
	jq -e --arg r "$3" --arg set "$4" '
		[.[] | select(.remote == $r and .type == "rc")] as $q |
		($set | split(" ") | map(tonumber)) as $s |
		($q | length) > 0 and all($q[]; .pinned and (.sport as $p | $s | index($p)))' \
		"$f" >/dev/null
}

# wire_ok NAME-atN SRC SET: SRC's RC packets captured at the other guest
# all leave on ports of SET, and there are some. UD packets (rdma_cm's MADs
# to QP 1, UCX's wire-up) are left out: the hook pins RC QPs only.
wire_ok() {
	local lines
	lines=$(py "$PCAP" --no-ud "$RUN_DIR/$1.pcap" "$2")
	echo "$lines" | sed 's/^/  wire (sport dqpn packets): /'
	[ -n "$lines" ] || return 1
	echo "$lines" | awk -v set=" $3 " 'index(set, " " $1 " ") == 0 { bad = 1 } END { exit bad }'
}

# flow_ok NAME: h1's flow records toward the peer equal h1's own capture:
# tx packets per (sport, dqpn) and rx packets in all.
flow_ok() {
	local flows want got want_rx got_rx
	flows=$("$RP_CLI" -j flow show) || return 1
	want=$(py "$PCAP" "$RUN_DIR/$1-at1.pcap" "$HOST_IP4")
	got=$(jq -r --arg r "$PEER_IP4" '.[] | select(.remote == $r and .tx_packets > 0) |
		"\(.sport) \(.dqpn // "-") \(.tx_packets)"' <<<"$flows" | sort -k1,1n -k2,2n)
	want_rx=$(py "$PCAP" "$RUN_DIR/$1-at1.pcap" "$PEER_IP4" | awk '{ n += $3 } END { print n + 0 }')
	got_rx=$(jq --arg r "$PEER_IP4" '[.[] | select(.remote == $r) | .rx_packets] | add // 0' <<<"$flows")
	log "wire tx (sport dqpn packets): $(echo $want); flows: $(echo $got)"
	log "wire rx packets: $want_rx; flows: $got_rx"
	[ -n "$want" ] && [ "$want" = "$got" ] && [ "$want_rx" = "$got_rx" ]
}

# flows_settle: the connection manager's teardown (DREQ/DREP on QP1, and
# its retries on a slow host) outlives the job; the captures stop once h1's
# counters stood still for 3 s (at most 30 s), so both saw the same.
flows_settle() {
	local a b i
	a=$("$RP_CLI" -j flow show | jq -c '[.[] | [.sport, .tx_packets, .rx_packets]]')
	for ((i = 0; i < 10; i++)); do
		sleep 3
		b=$("$RP_CLI" -j flow show | jq -c '[.[] | [.sport, .tx_packets, .rx_packets]]')
		[ "$a" = "$b" ] && return 0
		a=$b
	done
	log "flow counters still moving after 30 s"
}

# labels_ok: the library's QPs came with a flow label (rdma_cm derives one
# from the connection's ports for RoCEv2) and the hook
# overrode it: flow_labels_overridden counts one per pinned QP.
labels_ok() {
	local st
	st=$("$RP_CLI" -j stats) || return 1
	jq -c '{qps_seen, qps_pinned, flow_labels_overridden}' <<<"$st" | sed 's/^/  stats: /'
	jq -e '.qps_pinned > 0 and .flow_labels_overridden == .qps_pinned' <<<"$st" >/dev/null
}

# One library, all checks.
run_stack() {
	local s=$1 what=$2 name=$1 r hold last

	rp_up || { ksft_fail "$what: rocepath.ko loaded and path sets pinned on both guests"; return; }
	"$RP_CLI" flow reset >/dev/null
	if ! cap_start_both "$name" "udp dst port 4791"; then
		cap_stop_both "$name"
		ksft_fail "$what: captures started"
		return
	fi
	mpi_start "$name" "$s" 12 300
	# The QPs live while the job runs: read them after a few rounds.
	mpi_until "$name" 3
	"$RP_CLI" -j qp show >"$RUN_DIR/$name-qp1.json"
	on_host 2 "$RP_CLI -j qp show" >"$RUN_DIR/$name-qp2.json"
	mpi_wait "$name"
	r=$?
	flows_settle
	cap_stop_both "$name"
	if [ "$r" != 0 ]; then
		log "$what failed with rocepath.ko: $(mpi_why "$name")"
		grep -avE '^\[h[0-9]+:[0-9]+\] +\[|^ *[0-9]+ +/|backtrace|^=+$' "$RUN_DIR/$name.out" |
			tail -n 12 | sed 's/^/#   /'
		# Does the library run here at all? The same job without the module.
		rp_unload 1
		rp_unload 2
		mpi_start "$name-bare" "$s" 2 0
		if mpi_wait "$name-bare"; then
			ksft_fail "$what: MPI_Allreduce sums right (fails only with rocepath.ko)"
		else
			ksft_skip "$what: cannot run MPI_Allreduce over rxe here, also without rocepath.ko: $(mpi_why "$name-bare")"
		fi
		return
	fi
	ksft_pass "$what: MPI_Allreduce sums right, 12 rounds"
	ksft_test "$what: h1's RC QPs to h2 in qp show, pinned on {$SET1}" qps_ok "$name" 1 "$PEER_IP4" "$SET1"
	ksft_test "$what: h2's RC QPs to h1 in qp show, pinned on {$SET2}" qps_ok "$name" 2 "$HOST_IP4" "$SET2"
	ksft_test "$what: the wire carries h1's packets only on {$SET1}" wire_ok "$name-at2" "$HOST_IP4" "$SET1"
	ksft_test "$what: the wire carries h2's packets only on {$SET2}" wire_ok "$name-at1" "$PEER_IP4" "$SET2"
	ksft_test "$what: flow show on h1 equals the wire" flow_ok "$name"
	ksft_test "$what: stats on h1 counts the flow labels overridden" labels_ok

	# rmmod while the collective runs: the QPs keep their ports (rxe holds
	# them) and the job must not notice. The job holds on until both
	# unloads are done, then runs 3 more rounds: with 16 rounds 400 ms
	# apart, the debug kernel's two rmmods outlasted the job's 13 after
	# round 3, and nothing ran after them.
	hold=$RUN_DIR/$name-rmmod.unloaded
	mpi_start "$name-rmmod" "$s" 3 400 "$hold"
	if ! mpi_until "$name-rmmod" 3; then
		mpi_wait "$name-rmmod"
		ksft_fail "$what: a job running across rmmod ($(mpi_why "$name-rmmod"))"
		return
	fi
	rp_unload 1 && rp_unload 2 || log "rmmod rocepath failed"
	r=$(mpi_round "$name-rmmod")
	touch "$hold"
	log "rocepath.ko unloaded on both guests after round $r"
	if mpi_wait "$name-rmmod" && last=$(mpi_round "$name-rmmod") && [ "$last" -gt "$r" ] &&
		[ ! -d /sys/module/rocepath ] && ! on_host 2 "test -d /sys/module/rocepath"; then
		ksft_pass "$what: the collective keeps working across rmmod on both guests (rounds $((r + 1))..$last after it, sums right)"
	else
		log "$(mpi_why "$name-rmmod")"
		ksft_fail "$what: the collective keeps working across rmmod on both guests"
	fi
}

run_stack ofi "libfabric verbs;ofi_rxm"
run_stack ucx "UCX rc_verbs"

ksft_exit
