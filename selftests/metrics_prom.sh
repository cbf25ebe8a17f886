#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rocepathd's Prometheus textfile: after RDMA traffic the file holds the
# flows on the planned ports with non-zero counters, the rule and plan
# figures and the DCQCN profile; promtool finds nothing to complain about;
# Debian's node_exporter serves it through its textfile collector without
# a scrape error; readers never see a partial file; and a path set with
# more live QPs than ports makes rocepathd warn (NCCL QPs vs placement).
# What it tests is userspace, the same on every kernel: make check runs it
# on 6.12 only (pin_wire, pin_churn, pin_ynl and nl_fuzz test the module
# itself on 6.1 too); make check-all runs it on every kernel.
# rpvm-check-kernels: 6.12

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/daemon_lib.sh"

PROM_DIR=${PROM_DIR:-$ROCEPATH_TOP/.cache/prom}
PROMTOOL=$PROM_DIR/promtool
NODE_EXPORTER=$PROM_DIR/prometheus-node-exporter
TEXTFILE_DIR=$RPD_DIR/textfile
PROM=$TEXTFILE_DIR/rocepath.prom

require_module
require_cmd ib_write_bw python3
require_rpd
[ -x "$PROMTOOL" ] && [ -x "$NODE_EXPORTER" ] ||
	ksft_skip_all "no promtool/node_exporter in $PROM_DIR: run scripts/deps.sh (scripts/prom-tools.sh)"

defer rpd_save_logs
defer rpd_stop 1
defer rpd_stop 2

for n in 1 2; do
	rpd_setup $n || ksft_skip_all "cannot load $ROCEPATH_KO on h$n"
	# Metrics every second into a textfile directory of our own.
	on_host $n "mkdir -p $TEXTFILE_DIR && $PY -c \"
import json
c = json.load(open('$RPD_DIR/rocepathd.conf'))
c['metrics'] = {'path': '$PROM', 'interval_s': 1}
json.dump(c, open('$RPD_DIR/rocepathd.conf', 'w'))\""
	rpd_start $n
done
for n in 1 2; do
	rpd_wait_log $n 'ready: ' || ksft_skip_all "rocepathd did not become ready on h$n"
done

# Flows exist only once traffic ran; h1 sends to h2 on the 4 planned ports.
rpd_traffic 2 1 4 || ksft_fail "ib_write_bw -q 4 h1 -> h2"
want_ports=$(rpd_plan_ports h1 h2 | paste -sd,)
sleep 2	# at least one more write after the traffic

# 1. The file's content.
check_content() {
	on_host 1 "cat $PROM" >"$RUN_DIR/metrics.prom" || return 1
	# A bounded sample for the log (the run directory goes on success).
	grep -E '^rocepath_(plan_[a-z_]*flows|rule_[a-z_]*|flow_tx_[a-z_]*total)[{ ]' \
		"$RUN_DIR/metrics.prom" | head -n 10 | sed 's/^/sample: /'
	"$RP_CLI" -j plan topology "$RPD_EXAMPLE/topology.json" \
		placement "$RPD_EXAMPLE/placement.json" >"$RUN_DIR/plan.json" || return 1
	py - "$RUN_DIR/metrics.prom" "$RUN_DIR/plan.json" "$want_ports" <<'PY'
import json, re, sys
text, plan, want = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3]
samples = {}
for line in text.splitlines():
    if line.startswith('#') or not line:
        continue
    m = re.match(r'^([a-z_:]+)(\{(.*)\})? (\S+)$', line)
    if not m:
        sys.exit('bad line: ' + line)
    labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ''))
    samples.setdefault(m.group(1), []).append((labels, float(m.group(4))))
bad = []
tx = {l['sport']: v for l, v in samples.get('rocepath_flow_tx_packets_total', [])
      if l['remote'] == '192.0.2.2' and l['local'] == '192.0.2.1'}
got = ','.join(sorted(p for p, v in tx.items() if v > 0))
print(f'flows h1->h2 with tx packets on sports {got} (plan: {want})')
if got != want:
    bad.append('flow sports')
for name in ('rocepath_flow_tx_bytes_total', 'rocepath_flow_rx_packets_total',
             'rocepath_flow_rx_ect_packets_total', 'rocepath_flow_cnp_sent_total',
             'rocepath_flow_dcqcn_rate_bytes_per_second', 'rocepath_flow_dcqcn_alpha_ratio'):
    if name not in samples:
        bad.append('no ' + name)
rules = {l['remote']: v for l, v in samples.get('rocepath_rule_ports', [])}
if rules.get('192.0.2.2') != 4:
    bad.append(f'rule_ports {rules}')
s = plan['summary']
for key, name in (('max_link_flows', 'rocepath_plan_max_link_flows'),
                  ('lower_bound', 'rocepath_plan_lower_bound_flows'),
                  ('ecmp_max_link_flows', 'rocepath_plan_ecmp_max_link_flows')):
    v = samples.get(name, [({}, None)])[0][1]
    print(f'{name} {v} (plan: {s[key]})')
    if v != s[key]:
        bad.append(name)
ai = [v for l, v in samples.get('rocepath_dcqcn_parameter', []) if l['param'] == 'rp_ai_rate']
if ai != [7]:
    bad.append(f'rp_ai_rate {ai}')
for name, want_v in (('rocepath_module_loaded', 1), ('rocepath_plan_valid', 1),
                     ('rocepath_config_reload_success', 1)):
    if samples.get(name, [({}, None)])[0][1] != want_v:
        bad.append(name)
if bad:
    sys.exit('wrong: ' + '; '.join(bad))
PY
}
ksft_test "metrics file: flows on the planned ports, rule, plan and DCQCN figures" check_content

# 2. promtool's linter (names, units, _total, HELP) on the file.
ksft_test "promtool check metrics: the file is clean" \
	on_host 1 "'$PROMTOOL' check metrics <$PROM"

# 3. Debian's node_exporter serves it through the textfile collector.
scrape() {
	on_host 1 "setsid '$NODE_EXPORTER' --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory=$TEXTFILE_DIR --web.disable-exporter-metrics \
		--web.listen-address=127.0.0.1:19100 </dev/null >$RPD_DIR/node_exporter.log 2>&1 &
		echo \$! >$RPD_DIR/node_exporter.pid" || return 1
	on_host 1 "for i in \$(seq 100); do
			$PY -c 'import urllib.request as u; print(u.urlopen(\"http://127.0.0.1:19100/metrics\").read().decode())' \
				>$RPD_DIR/scrape.txt 2>/dev/null && break
			sleep 0.2
		done
		kill \$(cat $RPD_DIR/node_exporter.pid)
		grep -q '^node_textfile_scrape_error 0' $RPD_DIR/scrape.txt || { cat $RPD_DIR/node_exporter.log; exit 1; }
		grep -c '^rocepath_flow_tx_packets_total{' $RPD_DIR/scrape.txt &&
		'$PROMTOOL' check metrics <$RPD_DIR/scrape.txt"
}
ksft_test "node_exporter scrape: no textfile error, flows served, promtool clean" scrape

# 4. Readers racing the once-a-second writer always see a whole file.
atomic_reads() {
	on_host 1 "$PY - <<'PY'
import time
end, n, fams = time.time() + 4, 0, set()
while time.time() < end:
    t = open('$PROM').read()
    n += 1
    helps = sum(l.startswith('# HELP ') for l in t.splitlines())
    types = sum(l.startswith('# TYPE ') for l in t.splitlines())
    if not t.endswith('\n') or helps != types or 'rocepath_module_loaded' not in t:
        raise SystemExit(f'partial read #{n}: {len(t)} bytes')
    fams.add(helps)
print(f'{n} reads, all complete ({sorted(fams)} families)')
PY"
}
ksft_test "the file is replaced atomically (4 s of reads, none partial)" atomic_reads

# 5. More live QPs than the path set has ports: a warning on both hosts.
qp_warning() {
	local before1 before2 gs gc
	before1=$(rpd_log_count 1 'live QPs share')
	before2=$(rpd_log_count 2 'live QPs share')
	gs=$(rpd_gid 2) && gc=$(rpd_gid 1) || return 1
	on_host_bg 2 bw8 "timeout 90 ib_write_bw -d '$IBDEV' -x $gs -q 8 -s 4096 -D 4 -F -u $RC_TIMEOUT"
	sleep 1
	retry 20 1 on_host 1 "timeout 90 ib_write_bw -d '$IBDEV' -x $gc -q 8 -s 4096 -D 4 -F -u $RC_TIMEOUT 192.0.2.2" \
		>"$RUN_DIR/bw8.out" 2>&1 || { tail -n 5 "$RUN_DIR/bw8.out"; return 1; }
	wait_bg 2 bw8 90 >/dev/null 2>&1
	rpd_wait_log 1 'live QPs share' $((before1 + 1)) 4 &&
		rpd_wait_log 2 'live QPs share' $((before2 + 1)) 4 || return 1
	on_host 1 "grep 'live QPs share' $RPD_DIR/rocepathd.log | tail -n1"
}
ksft_test "8 QPs on a 4-port path set: rocepathd warns on both hosts" qp_warning

ksft_exit
