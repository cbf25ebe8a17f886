// SPDX-License-Identifier: GPL-2.0
/* rocepathd Prometheus metrics: collect, render, write atomically. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "rpd_log.h"
#include "metrics.h"
#include "rp_netlink.h"
#include "prom.h"
#include "reconcile.h"

#define L(n, v) { .name = (n), .value = (v) }

void rpd_metrics_init(struct rpd_metrics *m)
{
	memset(m, 0, sizeof(*m));
	m->plan_ok = m->reload_ok = true;
}

void rpd_metrics_free(struct rpd_metrics *m)
{
	free(m->over);
	memset(m, 0, sizeof(*m));
}

void rpd_metrics_note_plan(struct rpd_metrics *m, int ret)
{
	m->plan_ok = ret >= 0;
	if (ret > 0)
		m->plan_generation++;
}

void rpd_metrics_note_reload(struct rpd_metrics *m, bool ok)
{
	m->reload_ok = ok;
	if (ok)
		m->reloads_ok++;
	else
		m->reloads_failed++;
}

/* ---- rendering ---------------------------------------------------------- */

/* Per-flow counters: attribute, metric name, help. */
static const struct {
	int attr;
	const char *name, *help;
} flow_counters[] = {
	{ ROCEPATH_A_FLOW_TX_PACKETS, "rocepath_flow_tx_packets_total",
	  "RoCEv2 packets sent on the flow." },
	{ ROCEPATH_A_FLOW_TX_BYTES, "rocepath_flow_tx_bytes_total",
	  "RoCEv2 bytes sent on the flow (IP packet length)." },
	{ ROCEPATH_A_FLOW_RX_PACKETS, "rocepath_flow_rx_packets_total",
	  "RoCEv2 packets received on the flow." },
	{ ROCEPATH_A_FLOW_RX_BYTES, "rocepath_flow_rx_bytes_total",
	  "RoCEv2 bytes received on the flow (IP packet length)." },
	{ ROCEPATH_A_FLOW_RX_ECT, "rocepath_flow_rx_ect_packets_total",
	  "Received packets marked ECN-capable (ECT(0) or ECT(1))." },
	{ ROCEPATH_A_FLOW_RX_CE, "rocepath_flow_rx_ce_packets_total",
	  "Received packets marked Congestion Experienced." },
	{ ROCEPATH_A_FLOW_CNP_TX, "rocepath_flow_cnp_sent_total",
	  "Congestion notification packets sent for the flow (notification point)." },
	{ ROCEPATH_A_FLOW_CNP_RX, "rocepath_flow_cnp_received_total",
	  "Congestion notification packets received for the flow (reaction point)." },
};

/* Module statistics exported as they are: attribute, name, type, help. */
static const struct {
	int attr;
	const char *name;
	enum rp_prom_type type;
	const char *help;
} stats_exported[] = {
	{ ROCEPATH_A_STATS_FLOWS, "rocepath_module_flows", RP_PROM_GAUGE,
	  "Flows the module tracks." },
	{ ROCEPATH_A_STATS_FLOWS_MAX, "rocepath_module_flows_max", RP_PROM_GAUGE,
	  "The module's max_flows: the bound of the per-flow series." },
	{ ROCEPATH_A_STATS_FLOW_EVICTIONS, "rocepath_module_flow_evictions_total",
	  RP_PROM_COUNTER, "Flows evicted to make room for new ones." },
	{ ROCEPATH_A_STATS_RULES, "rocepath_module_rules", RP_PROM_GAUGE,
	  "Pin rules installed." },
	{ ROCEPATH_A_STATS_RULES_MAX, "rocepath_module_rules_max", RP_PROM_GAUGE,
	  "The module's max_rules: the bound of the per-rule series." },
	{ ROCEPATH_A_STATS_QPS, "rocepath_module_qps", RP_PROM_GAUGE,
	  "Live RoCE QPs the module tracks." },
	{ ROCEPATH_A_STATS_QPS_PINNED, "rocepath_module_qps_pinned_total",
	  RP_PROM_COUNTER, "QPs whose UDP source port a rule chose." },
	{ ROCEPATH_A_STATS_RULE_MISSES, "rocepath_module_rule_misses_total",
	  RP_PROM_COUNTER, "QPs no rule matched (default port kept)." },
	{ ROCEPATH_A_STATS_CNP_TX, "rocepath_module_cnp_sent_total",
	  RP_PROM_COUNTER, "CNPs sent, all flows." },
	{ ROCEPATH_A_STATS_CNP_RX, "rocepath_module_cnp_received_total",
	  RP_PROM_COUNTER, "CNPs received, all flows." },
};

static void u32str(char *buf, size_t len, uint32_t v)
{
	snprintf(buf, len, "%u", v);
}

/*
 * The per-flow series are labelled dev, local, remote, sport, dqpn. An
 * rx-only record has no dqpn (rp_flow_has_dqpn()): its label is empty,
 * which Prometheus takes as no label, so that every series of a family
 * has the same label names and dqpn="0" stays QP 0's.
 */
static void render_flows(struct rp_prom *p, const struct rp_flows *fs)
{
	char loc[RP_ADDR_STRLEN], rem[RP_ADDR_STRLEN], sport[8], dqpn[12];
	struct rp_prom_label l[5] = {
		L("dev", NULL), L("local", loc), L("remote", rem),
		L("sport", sport), L("dqpn", dqpn),
	};
	size_t i, k;

#define FLOW_LABELS(f) do {						\
		l[0].value = (f)->ibdev;				\
		rp_addr_fmt(&(f)->local, loc, sizeof(loc));		\
		rp_addr_fmt(&(f)->remote, rem, sizeof(rem));		\
		u32str(sport, sizeof(sport), (f)->sport);		\
		if (rp_flow_has_dqpn(f))				\
			u32str(dqpn, sizeof(dqpn), (f)->dqpn);		\
		else							\
			dqpn[0] = '\0';					\
	} while (0)

	for (k = 0; k < sizeof(flow_counters) / sizeof(flow_counters[0]); k++) {
		rp_prom_family(p, flow_counters[k].name, RP_PROM_COUNTER,
			       flow_counters[k].help);
		for (i = 0; i < fs->n; i++) {
			const struct rp_flow *f = &fs->v[i];

			if (!RP_HAS(f, flow_counters[k].attr))
				continue;
			FLOW_LABELS(f);
			rp_prom_u64(p, l, 5, f->val[flow_counters[k].attr]);
		}
	}
	rp_prom_family(p, "rocepath_flow_dcqcn_rate_bytes_per_second", RP_PROM_GAUGE,
		       "Software DCQCN reaction point: current rate of the flow.");
	for (i = 0; i < fs->n; i++) {
		const struct rp_flow *f = &fs->v[i];
		uint64_t Bps;

		/* Base unit bytes: kb/s * 1000 / 8. */
		if (RP_HAS(f, ROCEPATH_A_FLOW_RATE_KBPS))
			Bps = f->val[ROCEPATH_A_FLOW_RATE_KBPS] * 125;
		else if (RP_HAS(f, ROCEPATH_A_FLOW_RATE_MBPS))
			Bps = f->val[ROCEPATH_A_FLOW_RATE_MBPS] * 125000;
		else
			continue;
		FLOW_LABELS(f);
		rp_prom_u64(p, l, 5, Bps);
	}
	rp_prom_family(p, "rocepath_flow_dcqcn_alpha_ratio", RP_PROM_GAUGE,
		       "Software DCQCN reaction point: alpha of the flow, 0..1 (module value / 1024).");
	for (i = 0; i < fs->n; i++) {
		const struct rp_flow *f = &fs->v[i];

		if (!RP_HAS(f, ROCEPATH_A_FLOW_ALPHA))
			continue;
		FLOW_LABELS(f);
		rp_prom_f64(p, l, 5, f->val[ROCEPATH_A_FLOW_ALPHA] / 1024.0);
	}
#undef FLOW_LABELS
}

static void render_dcqcn(struct rp_prom *p, const struct rp_dcqcns *ds)
{
	struct rp_prom_label l[2] = { L("dev", NULL), L("param", NULL) };

	rp_prom_family(p, "rocepath_dcqcn_parameter", RP_PROM_GAUGE,
		       "DCQCN parameter of the device, named and scaled as mlx5's cc_params (see rocepath(8)).");
	for (size_t i = 0; i < ds->n; i++) {
		const struct rp_dcqcn *d = &ds->v[i];

		for (int a = 0; a <= ROCEPATH_A_DCQCN_MAX; a++) {
			if (!rp_dcqcn_name(a) || !RP_HAS(d, a))
				continue;
			l[0].value = d->ibdev;
			l[1].value = rp_dcqcn_name(a);
			rp_prom_u64(p, l, 2, d->val[a]);
		}
	}
}

static void rule_labels(const struct rp_pin *r, struct rp_prom_label *l,
			char *rem, char *rq, char *lq)
{
	rp_addr_fmt(&r->remote, rem, RP_ADDR_STRLEN);
	if (RP_HAS(r, ROCEPATH_A_PIN_RQPN))
		u32str(rq, 12, r->rqpn);
	else
		rq[0] = '\0';
	if (RP_HAS(r, ROCEPATH_A_PIN_LQPN))
		u32str(lq, 12, r->lqpn);
	else
		lq[0] = '\0';
	l[0].value = r->ibdev;
	l[1].value = rem;
	l[2].value = rq;
	l[3].value = lq;
}

static uint64_t rule_live_qps(const struct rp_pin *r)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->nsport_qps; i++)
		n += r->sport_qps[i];
	return n;
}

static void render_rules(struct rp_prom *p, const struct rp_pins *ps)
{
	char rem[RP_ADDR_STRLEN], rq[12], lq[12];
	struct rp_prom_label l[4] = {
		L("dev", NULL), L("remote", NULL), L("rqpn", NULL), L("lqpn", NULL),
	};
	size_t i;

	rp_prom_family(p, "rocepath_rule_ports", RP_PROM_GAUGE,
		       "UDP source ports of the pin rule (its path set); empty dev/rqpn/lqpn = any.");
	for (i = 0; i < ps->n; i++) {
		rule_labels(&ps->v[i], l, rem, rq, lq);
		rp_prom_u64(p, l, 4, ps->v[i].nsports);
	}
	rp_prom_family(p, "rocepath_rule_live_qps", RP_PROM_GAUGE,
		       "Live QPs the pin rule placed on its ports.");
	for (i = 0; i < ps->n; i++) {
		rule_labels(&ps->v[i], l, rem, rq, lq);
		rp_prom_u64(p, l, 4, rule_live_qps(&ps->v[i]));
	}
}

static void gauge(struct rp_prom *p, const char *name, const char *help,
		  uint64_t v)
{
	rp_prom_family(p, name, RP_PROM_GAUGE, help);
	rp_prom_u64(p, NULL, 0, v);
}

static void ok_failed(struct rp_prom *p, const char *name, const char *help,
		      uint64_t ok, uint64_t failed)
{
	struct rp_prom_label l = L("result", "ok");

	rp_prom_family(p, name, RP_PROM_COUNTER, help);
	rp_prom_u64(p, &l, 1, ok);
	l.value = "failed";
	rp_prom_u64(p, &l, 1, failed);
}

/*
 * The digests as labels of one series of value 1, so that hosts that
 * disagree show in one query: count(count by (plan_digest)
 * (rocepath_plan_info)) > 1.
 */
static void plan_info(struct rp_prom *p, const struct rpd_plan_info *in)
{
	static const char *const names[] = { "plan_digest", "input_digest",
		"topology_digest", "placement_digest", "probes_digest" };
	const uint64_t v[] = { in->plan, in->input, in->topology,
			       in->placement, in->probes };
	char val[5][RP_DIGEST_LEN];
	struct rp_prom_label l[5];

	for (int i = 0; i < 5; i++) {
		l[i].name = names[i];
		l[i].value = rp_digest_fmt(v[i], val[i]);
	}
	rp_prom_family(p, "rocepath_plan_info", RP_PROM_GAUGE,
		       "1, labelled with the digests (FNV-1a 64) of the running plan and of its inputs.");
	rp_prom_u64(p, l, 5, 1);
}

static void render_daemon(struct rp_prom *p, const struct rpd_metrics_data *d)
{
	gauge(p, "rocepath_module_loaded",
	      "1 when the rocepath module answered the last collection.", d->module);
	gauge(p, "rocepath_plan_valid",
	      "1 when rocepathd has a good plan (its pins are the desired set).",
	      d->have_plan);
	gauge(p, "rocepath_plan_last_success",
	      "1 when the last plan attempt succeeded (0: files broken, last good plan kept).",
	      d->plan_ok);
	ok_failed(p, "rocepath_plans_total", "Plan computations by result.",
		  d->plans_ok, d->plans_failed);
	gauge(p, "rocepath_plan_generation",
	      "Plans that changed this host's pins since rocepathd started.",
	      d->plan_generation);
	gauge(p, "rocepath_pin_generation",
	      "Generation of the rule set rocepathd last installed or found installed.",
	      d->pin_generation);
	gauge(p, "rocepath_config_reload_success",
	      "1 when the last SIGHUP reload of the configuration succeeded (1 before any).",
	      d->reload_ok);
	ok_failed(p, "rocepath_config_reloads_total",
		  "SIGHUP reloads of the configuration by result.",
		  d->reloads_ok, d->reloads_failed);
	if (!d->have_plan)
		return;
	plan_info(p, &d->info);
	gauge(p, "rocepath_plan_pins", "Pin rules the plan gives this host.",
	      d->planned_pins);
	gauge(p, "rocepath_plan_flows", "Flows the plan placed, whole fabric.",
	      d->plan.flows);
	gauge(p, "rocepath_plan_unplaced_flows",
	      "Flows the plan could not place, whole fabric.", d->plan.unplaced);
	gauge(p, "rocepath_plan_max_link_flows",
	      "Flows on the plan's most loaded directed fabric link.",
	      d->plan.max_link_flows);
	gauge(p, "rocepath_plan_lower_bound_flows",
	      "No plan can load its most loaded link with fewer flows than this.",
	      d->plan.lower_bound);
	gauge(p, "rocepath_plan_ecmp_max_link_flows",
	      "Most loaded link with default QPN-derived ports (the ECMP baseline).",
	      d->plan.ecmp_max_link_flows);
}

int rpd_metrics_render(FILE *fp, const struct rpd_metrics_data *d)
{
	struct rp_prom p;

	rp_prom_begin(&p, fp);
	render_daemon(&p, d);
	if (d->module) {
		for (size_t i = 0; i < sizeof(stats_exported) / sizeof(stats_exported[0]); i++) {
			if (!RP_HAS(&d->stats, stats_exported[i].attr))
				continue;
			rp_prom_family(&p, stats_exported[i].name,
				       stats_exported[i].type, stats_exported[i].help);
			rp_prom_u64(&p, NULL, 0, d->stats.val[stats_exported[i].attr]);
		}
		render_rules(&p, &d->pins);
		render_dcqcn(&p, &d->dcqcns);
		render_flows(&p, &d->flows);
	}
	return rp_prom_end(&p);
}

/* ---- writing ------------------------------------------------------------ */

static int render_to(FILE *fp, void *d)
{
	return rpd_metrics_render(fp, d);
}

/* node_exporter runs as its own user: rp_write_atomic() makes it 0644. */
int rpd_metrics_write_file(const char *path, const struct rpd_metrics_data *d)
{
	return rp_write_atomic(path, false, render_to, (void *)d);
}

/* ---- the QP check --------------------------------------------------------- */

static bool over_has(const struct rpd_metrics *m, const char *key)
{
	for (size_t i = 0; i < m->nover; i++)
		if (!strcmp(m->over[i], key))
			return true;
	return false;
}

int rpd_metrics_check_qps(struct rpd_metrics *m, const struct rp_pins *pins)
{
	char (*now)[128] = NULL, rem[RP_ADDR_STRLEN];
	size_t n = 0, i;
	int fresh = 0;

	if (pins->n) {
		now = calloc(pins->n, sizeof(*now));
		if (!now)
			return -ENOMEM;
	}
	for (i = 0; i < pins->n; i++) {
		const struct rp_pin *r = &pins->v[i];
		uint64_t live = rule_live_qps(r);

		/* Exact rules (rqpn/lqpn) hold one QP by design. */
		if (RP_HAS(r, ROCEPATH_A_PIN_RQPN) || RP_HAS(r, ROCEPATH_A_PIN_LQPN) ||
		    !r->nsports || live <= r->nsports)
			continue;
		rp_addr_fmt(&r->remote, rem, sizeof(rem));
		snprintf(now[n], sizeof(now[n]), "remote %s%s%s", rem,
			 r->ibdev[0] ? " dev " : "", r->ibdev);
		if (!over_has(m, now[n])) {
			rpd_warn("pin %s: %llu live QPs share %zu ports: the QPs per connection (NCCL_IB_QPS_PER_CONNECTION) exceed the placement's qps_per_connection, so paths are shared (see rocepath nccl-env)",
				 now[n], (unsigned long long)live, r->nsports);
			fresh++;
		}
		n++;
	}
	for (i = 0; i < m->nover; i++) {
		bool still = false;

		for (size_t j = 0; j < n && !still; j++)
			still = !strcmp(now[j], m->over[i]);
		if (!still)
			rpd_info("pin %s: live QPs no longer exceed its ports", m->over[i]);
	}
	free(m->over);
	m->over = now;
	m->nover = n;
	return fresh;
}

/* ---- the periodic step ---------------------------------------------------- */

static void data_free(struct rpd_metrics_data *d)
{
	rp_pins_free(&d->pins);
	rp_flows_free(&d->flows);
	rp_dcqcns_free(&d->dcqcns);
}

int rpd_metrics_tick(struct rpd_metrics *m, const char *path, struct rp_nl *nl,
		     const struct rpd_reconciler *r,
		     const struct rpd_plan_info *info)
{
	struct rpd_metrics_data d;
	int ret = 0;

	memset(&d, 0, sizeof(d));
	if (nl && !rp_pin_dump(nl, &d.pins)) {
		d.module = true;
		rpd_metrics_check_qps(m, &d.pins);
	}
	if (!path)
		goto out;
	if (!rp_dir_of_exists(path)) {
		if (!m->dir_missing_logged)
			rpd_info("metrics: directory of %s does not exist (no node_exporter textfile collector?); not writing metrics until it does",
				 path);
		m->dir_missing_logged = true;
		goto out;
	}
	m->dir_missing_logged = false;
	if (d.module && (rp_stats_get(nl, &d.stats) ||
			 rp_dcqcn_dump(nl, NULL, &d.dcqcns) ||
			 rp_flow_dump(nl, NULL, &d.flows))) {
		/* A module going away mid-collection: report it as absent. */
		data_free(&d);
		memset(&d, 0, sizeof(d));
	}
	d.have_plan = r->have_desired && info;
	if (d.have_plan) {
		d.plan = info->sum;
		d.info = *info;
	}
	d.planned_pins = r->desired.n;
	d.plan_generation = m->plan_generation;
	d.pin_generation = r->installed_gen;
	d.plan_ok = m->plan_ok;
	d.reload_ok = m->reload_ok;
	d.plans_ok = r->st.plans_ok;
	d.plans_failed = r->st.plans_failed;
	d.reloads_ok = m->reloads_ok;
	d.reloads_failed = m->reloads_failed;
	ret = rpd_metrics_write_file(path, &d);
	if (ret && !m->write_failed_logged)
		rpd_warn("metrics: writing %s: %s", path, strerror(-ret));
	m->write_failed_logged = ret != 0;
out:
	data_free(&d);
	return ret;
}
