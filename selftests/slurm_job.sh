#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Real Slurm (Debian's slurmctld, slurmd, munge) on the two guests, with
# scripts/slurm/rocepath-slurmctld as PrologSlurmctld/EpilogSlurmctld:
# `srun -N2` starts a job, the prolog adds it to the placement, both
# hosts' rocepathd install the job's pins, RDMA traffic inside the job
# leaves on the planned ports, the epilog removes the job and its pins;
# a job asking for a rail the topology lacks still runs, the placement
# stays unchanged and the reason is in the Slurm log. Slow lane
# (make check-slurm): needs the slurm packages on the host.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/daemon_lib.sh"

SCRIPT=$ROCEPATH_TOP/scripts/slurm/rocepath-slurmctld
SLOG=/var/log/slurm

require_module
require_cmd slurmctld slurmd munged srun scontrol ib_write_bw tcpdump python3
require_rpd

defer rpd_save_logs
defer rpd_stop 1
defer rpd_stop 2
defer slurm_stop

slurm_stop() {
	local n
	for n in 1 2; do
		on_host $n "pkill -F /run/slurmd.pid 2>/dev/null; pkill -F /run/slurmctld.pid 2>/dev/null
			pkill -x munged 2>/dev/null
			cp $SLOG/*.log '$RUN_DIR/' 2>/dev/null; for f in $SLOG/*.log; do
				cp \$f '$RUN_DIR/h$n-'\$(basename \$f) 2>/dev/null; done; true" >/dev/null
	done
}

# slurm.conf and munge on both guests (each has its own /etc overlay).
slurm_conf="ClusterName=rp
SlurmctldHost=h1(198.51.100.1)
NodeName=h1 NodeAddr=198.51.100.1 CPUs=1 State=UNKNOWN
NodeName=h2 NodeAddr=198.51.100.2 CPUs=1 State=UNKNOWN
PartitionName=p Nodes=h1,h2 Default=YES MaxTime=INFINITE State=UP
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=/var/lib/slurm/ctld
SlurmdSpoolDir=/var/lib/slurm/d
SelectType=select/linear
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$SLOG/slurmctld.log
SlurmdLogFile=$SLOG/slurmd.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
PrologSlurmctld=$SCRIPT
EpilogSlurmctld=$SCRIPT"

for n in 1 2; do
	rpd_setup $n || ksft_skip_all "cannot load $ROCEPATH_KO on h$n"
	on_host $n "echo '{\"jobs\": []}' >$RPD_DIR/placement.json
		mkdir -p /etc/slurm $SLOG /var/lib/slurm/ctld /var/lib/slurm/d /run/munge
		# The guest sees the build host's log (overlay): only this run's lines.
		: >$SLOG/rocepath-slurmctld.log
		chown munge:munge /run/munge; chmod 0755 /run/munge
		cat >/etc/slurm/slurm.conf <<'CONF'
$slurm_conf
CONF
		# No systemd (and so no dbus) in the guests: slurmd makes its
		# cgroup v2 scope itself.
		mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
		mkdir -p /sys/fs/cgroup/system.slice
		printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' >/etc/slurm/cgroup.conf
		runuser -u munge -- /usr/sbin/munged" ||
		ksft_skip_all "cannot set up slurm/munge on h$n"
	rpd_start $n
done
# The controller's rocepath-slurmctld config: the placement lives on h1;
# post_command copies it to h2 (through the project share and h2's agent).
cat >"$RUN_DIR/push-placement.sh" <<PUSH
#!/bin/bash
cp $RPD_DIR/placement.json '$RUN_DIR/placement.shared'
export ROCEPATH_TOP='$ROCEPATH_TOP' RPVM_AGENT_PORT=$RPVM_AGENT_PORT RPVM_TIMEOUT=20 HOST_INDEX=1
source '$ROCEPATH_TOP/selftests/lib.sh'
on_host 2 "cp '$RUN_DIR/placement.shared' $RPD_DIR/.p && mv $RPD_DIR/.p $RPD_DIR/placement.json"
PUSH
on_host 1 "mkdir -p /etc/rocepath; cat >/etc/rocepath/slurm.json <<CONF
{\"placement\": \"$RPD_DIR/placement.json\", \"topology\": \"$RPD_DIR/topology.json\",
 \"defaults\": {\"rails\": [0], \"qps_per_connection\": 2},
 \"log_file\": \"$SLOG/rocepath-slurmctld.log\",
 \"post_command\": \"bash $RUN_DIR/push-placement.sh\"}
CONF
$PY -c \"import json; json.load(open('/etc/rocepath/slurm.json'))\"" || ksft_fail "slurm.json on h1 is not valid JSON"
on_host 1 "slurmctld" || ksft_skip_all "slurmctld did not start"
for n in 1 2; do
	on_host $n "slurmd -N h$n" || ksft_skip_all "slurmd did not start on h$n"
done
for n in 1 2; do
	rpd_wait_log $n 'ready: ' || ksft_skip_all "rocepathd not ready on h$n"
done
cluster_up() {
	on_host 1 "for i in \$(seq 60); do
		[ \$(sinfo -h -t idle -o %D 2>/dev/null || echo 0) = 2 ] && exit 0; sleep 1; done
		sinfo; exit 1"
}
ksft_test "slurmctld + 2 slurmd idle" cluster_up || ksft_exit

# The job: waits for its pins (the prolog ran before it started), then
# h1 sends to h2 with 2 QPs; task 1 serves. Captured at each receiver:
# h1's writes at h2, h2's acknowledgements (its QPs' ports) at h1.
rpd_capture_start 2 192.0.2.1 >/dev/null
rpd_capture_start 1 192.0.2.2 >/dev/null
gs=$(rpd_gid 2) && gc=$(rpd_gid 1)
cat >"$RUN_DIR/job.sh" <<JOB
#!/bin/bash
t0=\$(date +%s.%N)
for i in \$(seq 100); do
	'$RP_CLI' pin show | grep -q 'remote 192.0.2.' && break; sleep 0.1
done
echo "\$(hostname): pins after \$(awk "BEGIN{print \$(date +%s.%N) - \$t0}") s in the job: \$('$RP_CLI' pin show)"
if [ "\$SLURM_PROCID" = 1 ]; then
	timeout 60 ib_write_bw -d $IBDEV -x $gs -q 2 -s 4096 -n 20 -F -u $RC_TIMEOUT >/dev/null
else
	# The server may take seconds to listen on a loaded host: retry the
	# connection (a refused one sends no RoCE packets).
	for i in \$(seq 15); do
		sleep 2
		timeout 60 ib_write_bw -d $IBDEV -x $gc -q 2 -s 4096 -n 20 -F -u $RC_TIMEOUT 192.0.2.2 >/dev/null \
			2>"$RUN_DIR/bw.err" && exit 0
		grep -q "Couldn't connect" "$RUN_DIR/bw.err" || { cat "$RUN_DIR/bw.err"; exit 1; }
	done
	exit 1
fi
JOB
chmod +x "$RUN_DIR/job.sh"
job_run() {
	on_host 1 "t0=\$(date +%s.%N); srun -N2 -n2 -t 2 --comment 'train rocepath:qps=2' '$RUN_DIR/job.sh' 2>&1
		echo \"srun exit \$? after \$(awk \"BEGIN{print \$(date +%s.%N) - \$t0}\") s\""
}
# h2's clock against h1's (both guests set theirs from the RTC, to the
# second): the offset of h2's date from the midpoint of an agent round
# trip, good to half of it; the shortest of 5. For the figure below.
clock_offset() {
	local a b c i
	for i in 1 2 3 4 5; do
		a=$(date +%s.%N); b=$(on_host 2 "date +%s.%N"); c=$(date +%s.%N)
		echo "$a $b $c"
	done | awk '{ e = ($3 - $1) / 2; if (!n++ || e < best) { best = e; off = $2 - ($1 + $3) / 2 } }
		END { printf "%.3f %.3f", off, best }'
}
# Seconds from the job's start (slurmctld allocates the nodes and runs
# PrologSlurmctld; h1's clock) until each host's rocepathd logged its
# pins, from the logs' millisecond stamps. A figure, not a check.
job_start_figure() {
	local t_srun=$1 off err t_start t1 t2
	read -r off err <<<"$(clock_offset)"
	t_start=$(on_host 1 "sed -n 's/^\[\(.*\)\] sched: _slurm_rpc_allocate_resources JobId=1 .*/\1/p' \
		$SLOG/slurmctld.log | head -n1")
	t1=$(on_host 1 "grep -m1 'pins installed: [1-9]' $RPD_DIR/rocepathd.log | cut -d' ' -f1")
	t2=$(on_host 2 "grep -m1 'pins installed: [1-9]' $RPD_DIR/rocepathd.log | cut -d' ' -f1")
	[ -n "$t_start" ] && [ -n "$t1" ] && [ -n "$t2" ] || { log "job start figure: no log line"; return; }
	# slurmctld stamps local time, rocepathd UTC ("Z"): date reads both.
	t_start=$(date -d "$t_start" +%s.%N) t1=$(date -d "$t1" +%s.%N) t2=$(date -d "$t2" +%s.%N)
	log "$(awk "BEGIN{printf \"srun -> job start %.2f s; job start -> pins installed: h1 %.2f s, h2 %.2f s (h2 clock offset %+.3f s, +-%.3f)\",
		$t_start - $t_srun, $t1 - $t_start, $t2 - $off - $t_start, $off, $err}")"
}
t_srun=$(date +%s.%N)
out=$(job_run)
job_start_figure "$t_srun"
echo "$out" | sed 's/^/# /'
py -c "
import json
json.dump({'jobs': [{'id': 'slurm-1', 'pattern': 'ring', 'qps_per_connection': 2,
           'rails': [0], 'hosts': ['h1', 'h2']}]}, open('$RUN_DIR/placement-job.json', 'w'))"
want=$(rpd_plan_ports h1 h2 "$RUN_DIR/placement-job.json" | paste -sd,)
want21=$(rpd_plan_ports h2 h1 "$RUN_DIR/placement-job.json" | paste -sd,)
got=$(rpd_capture_ports 2 | paste -sd,)
got21=$(rpd_capture_ports 1 | paste -sd,)
log "h1 -> h2 inside the job on ports $got (plan for the job: $want)"
log "h2 -> h1 inside the job on ports $got21 (plan for the job: $want21)"
echo "$out" | grep -q 'srun exit 0' && ksft_pass "srun -N2 job ran" || ksft_fail "srun -N2 job ran"
[ "$(echo "$out" | grep -c 'pins after')" = 2 ] && ! echo "$out" | grep 'pins after' | grep -q 'pin show)$\|: $' &&
	ksft_pass "both hosts had the job's pins when it started" ||
	ksft_fail "both hosts had the job's pins when it started"
[ -n "$got" ] && [ "$got" = "$want" ] && ksft_pass "RDMA traffic in the job left h1 on the planned ports" ||
	ksft_fail "RDMA traffic in the job left h1 on the planned ports"
[ -n "$got21" ] && [ "$got21" = "$want21" ] && ksft_pass "and h2's replies left h2 on its planned ports" ||
	ksft_fail "and h2's replies left h2 on its planned ports"
on_host 1 "grep 'rocepath-slurmctld' $SLOG/rocepath-slurmctld.log" | sed 's/^/# h1: /'

# The epilog removed the job: placement empty, pins gone on both hosts.
job_removed() {
	local n
	on_host 1 "for i in \$(seq 50); do grep -q slurm- $RPD_DIR/placement.json || exit 0; sleep 0.2; done; exit 1" || return 1
	for n in 1 2; do
		for i in $(seq 30); do
			[ -z "$(rpd_pins $n)" ] && continue 2
			sleep 0.5
		done
		echo "h$n still has pins: $(rpd_pins $n)"
		return 1
	done
}
ksft_test "job end: epilog removed it; no pins left on either host" job_removed

# A job asking for a rail the topology lacks: runs anyway, placement unchanged.
bad_rail() {
	local before after
	before=$(on_host 1 "md5sum <$RPD_DIR/placement.json")
	on_host 1 "srun -N2 -n2 -t 1 --comment 'rocepath:rails=7' true" || return 1
	after=$(on_host 1 "md5sum <$RPD_DIR/placement.json")
	[ "$before" = "$after" ] || { echo "placement changed"; return 1; }
	on_host 1 "grep 'no NIC on rail(s) \[7\]' $SLOG/rocepath-slurmctld.log"
}
ksft_test "job with an unknown rail: runs, placement unchanged, reason in the Slurm log" bad_rail

ksft_exit
