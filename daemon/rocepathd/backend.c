// SPDX-License-Identifier: GPL-2.0
/* rocepathd backend: planner + netlink library adapters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <json-c/json.h>
#include <linux/rocepath.h>

#include "backend.h"
#include "digest.h"
#include "rpd_log.h"
#include "mlx5.h"
#include "rp_netlink.h"
#include "plan.h"
#include "plan_json.h"	/* rp_json_load_file() */
#include "plan_probe.h"
#include "probe_run.h"
#include "replan_state.h"

void rpd_kernel_init(struct rpd_kernel *k, bool dry_run)
{
	memset(k, 0, sizeof(*k));
	k->dry_run = dry_run;
	k->replan.persist = !dry_run;
	k->sysfs_ib = RPD_SYSFS_IB;
	k->debugfs_mlx5 = RPD_DEBUGFS_MLX5;
	memset(&k->dry_installed, 0, sizeof(k->dry_installed));
}

void rpd_kernel_free(struct rpd_kernel *k)
{
	if (k->nl)
		rp_nl_close(k->nl);
	k->nl = NULL;
	rp_pins_free(&k->dry_installed);
	rpd_replan_free(&k->replan);
}

int rpd_plan_files(const struct rpd_config *cfg, struct rp_pins *out,
		   char *summary, size_t slen, char *err, size_t errlen)
{
	return rpd_plan_files_sum(cfg, NULL, out, NULL, summary, slen, err,
				  errlen);
}

static uint64_t be64(uint64_t h, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = v >> (56 - 8 * i);
	return rp_fnv1a64(h, b, sizeof(b));
}

/* What @plan came from and the plan itself, as digests. */
static void plan_info(struct rpd_plan_info *info, const struct rp_topo *t,
		      const char *place, size_t len,
		      const struct rp_probes *ps, const struct rp_plan *plan)
{
	info->sum = *rp_plan_summary(plan);
	info->topology = rp_topo_digest(t);
	info->placement = rp_fnv1a64(RP_FNV1A64_INIT, place, len);
	info->probes = rp_probes_digest(ps);
	info->input = be64(be64(be64(RP_FNV1A64_INIT, info->topology),
				info->placement), info->probes);
	info->plan = rp_plan_digest(plan);
	info->probed = rp_topo_measured(t);
}

void rpd_replan_free(struct rpd_replan *rp)
{
	rpd_replan_state_free(&rp->st);
	free(rp->dir);
	rp->dir = NULL;
}

/* The consequence, said with every from-scratch fallback. */
#define SCRATCH_WHY \
	"planning from scratch; where the other hosts re-planned from a previous " \
	"placement this host's ports differ from theirs (links may be less " \
	"balanced than planned) until the next placement change"

/* Loads the recorded state once per state directory; a bad file is empty. */
static void replan_load(struct rpd_replan *rp, const struct rpd_config *cfg)
{
	char err[768];
	int ret;

	if (rp->dir && !strcmp(rp->dir, cfg->state_dir))
		return;
	free(rp->dir);
	rp->dir = strdup(cfg->state_dir);
	ret = rpd_replan_state_load(cfg->state_dir, &rp->st, err, sizeof(err));
	if (ret == -ENOENT)
		rpd_info("no re-plan state in %s yet", cfg->state_dir);
	else if (ret)
		rpd_warn("ignoring the re-plan state: %s", err);
}

/*
 * The previous placement's plan for a stable re-plan of @cur (NULL when
 * planning from scratch), which refers to *pp (free it after the plan);
 * *prev and *prev_len get the placement used, which points into @rp or
 * @own_prev.
 */
static struct rp_plan *replan_prev(struct rpd_replan *rp,
				   const struct rpd_config *cfg,
				   const struct rp_topo *t, const char *cur,
				   size_t cur_len, struct rp_place **pp,
				   char **own_prev, const char **prev,
				   size_t *prev_len, const char **src)
{
	struct rp_plan *plan = NULL;
	struct rp_err perr;
	char ebuf[768];
	bool same;
	int ret;

	*prev = NULL;
	*prev_len = 0;
	memset(&perr, 0, sizeof(perr));
	if (cfg->previous_placement) {
		/* the scheduler's record wins: it is the same on every host */
		*src = cfg->previous_placement;
		ret = rp_read_file(*src, own_prev, prev_len);
		if (ret) {
			rpd_warn("previous_placement %s: cannot read: %s; " SCRATCH_WHY,
				 *src, strerror(-ret));
			*prev_len = 0;
			return NULL;
		}
		*prev = *own_prev;
	} else {
		*src = "the placement of the last plan";
		same = rpd_replan_previous(&rp->st, cur, cur_len, prev, prev_len);
		if (!*prev) {
			if (!same)
				rpd_warn("no previous placement recorded in %s/%s: " SCRATCH_WHY,
					 cfg->state_dir, RPD_REPLAN_STATE_FILE);
			return NULL;
		}
		if (same)
			*src = "the previous placement of the last plan";
	}
	if (!rp_place_parse("previous placement", *prev, *prev_len, t, pp, &perr))
		rp_plan_compute(t, *pp, &plan, &perr);
	if (!plan) {
		rpd_warn("%s (%s) does not plan on this topology: %s; " SCRATCH_WHY,
			 "previous placement", *src,
			 rp_err_str(&perr, ebuf, sizeof(ebuf)));
		*prev = NULL;
		*prev_len = 0;
	}
	return plan;
}

#define RPD_PROBE_CACHE "probes.json"

int rpd_reprobe_add(struct rpd_reprobe *r, const char *netdev)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->netdev[i], netdev))
			return 0;
	if (r->n == RPD_REPROBE_MAX)
		return -ENOSPC;
	snprintf(r->netdev[r->n++], sizeof(r->netdev[0]), "%s", netdev);
	return 0;
}

/* A refused budget is the config's error, said as one. */
static void budget_err(const struct rpd_config *cfg, const char *why,
		       char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: key 'probe_budget_pps': %s", cfg->path, why);
}

/* The slot this host was given, once per plan that probes. */
static void log_slot(const struct rp_probe_slot *sl)
{
	char buf[160];

	rp_probe_slot_fmt(sl, buf, sizeof(buf));
	rpd_info("probe budget %u answers/s per switch: %s; waited %.1f s for it",
		 sl->budget_pps, buf, sl->waited_ms / 1000.0);
}

/*
 * Answers for the measured switches of t, for this host's flows: from the
 * cache in the state directory while the topology file is the same, else
 * probed (and cached), in this host's slot when probe_budget_pps is set.
 * Without @rp (--check) nothing is sent, but a budget that cannot probe
 * every flow in time is refused all the same. A port that got no answer
 * fails the plan, naming the pair and the port: the caller keeps the last
 * good pins. rp->cancel ends the probing early (-ECANCELED), keeping the
 * links still to probe again for the next plan.
 */
static int probe_for_plan(const struct rpd_config *cfg, const struct rp_topo *t,
			  const struct rp_place *p, struct rpd_replan *rp,
			  struct rp_probes *ps, char *err, size_t errlen)
{
	struct rp_probe_opts o = {
		.ttl = cfg->probe_ttl, .tries = cfg->probe_tries,
		.timeout_ms = cfg->probe_timeout_ms,
		.rate_pps = cfg->probe_rate_pps,
		.cancel = rp ? rp->cancel : NULL,
	};
	struct rpd_reprobe *rr = rp ? &rp->reprobe : NULL;
	struct rp_probe_report rep = { 0 };
	struct rp_probe_slot sl;
	struct rp_err perr;
	char cache[4096];
	size_t had;
	int ret;

	snprintf(cache, sizeof(cache), "%s/%s", cfg->state_dir, RPD_PROBE_CACHE);
	rp_probe_cache_load(t, cache, ps);
	memset(&perr, 0, sizeof(perr));
	if (!rp) {
		if (!cfg->probe_budget_pps)
			return 0;
		ret = rp_probe_budget_check(t, p, cfg->host, cfg->probe_rate_pps,
					    cfg->probe_budget_pps, &sl, perr.msg,
					    sizeof(perr.msg));
		if (ret == -EDOM)
			budget_err(cfg, perr.msg, err, errlen);
		else if (ret)
			snprintf(err, errlen, "probe budget for %s: %s", cfg->host,
				 perr.msg);
		return ret;
	}
	for (size_t i = 0; rr && i < rr->n; i++) {
		unsigned int nics;
		size_t gone = rp_probes_forget_link(t, cfg->host, rr->netdev[i],
						    ps, &nics);

		rpd_info("link %s came up: the flows of its %u NIC(s) are probed again (%zu cached answers dropped)",
			 rr->netdev[i], nics, gone);
	}
	had = ps->n;
	rpd_info("probing from %s: %zu answers cached, the ports still wanted are probed now",
		 cfg->host, had);
	ret = rp_probe_host(t, p, cfg->host, &o, cfg->probe_budget_pps, &sl,
			    ps, &rep, &perr);
	if (ret == -EDOM) {
		budget_err(cfg, perr.msg, err, errlen);
		goto out;
	}
	if (ret) {
		snprintf(err, errlen, "probing from %s: %s", cfg->host, perr.msg);
		goto out;
	}
	if (cfg->probe_budget_pps && rep.ports)
		log_slot(&sl);
	rpd_info("probed %u ports (%u packets, %u answered) in %.2f s, %u from the cache",
		 rep.ports, rep.packets, rep.answered, rep.seconds, rep.cached);
	if (rep.unexpected) {
		char why[400];

		rp_probe_unexpected_fmt(t, &rep, why, sizeof(why));
		rpd_warn("%s", why);
	}
	if (ps->n != had && mkdir(cfg->state_dir, 0755) && errno != EEXIST)
		rpd_warn("probe cache: cannot create %s: %s", cfg->state_dir,
			 strerror(errno));
	else if (ps->n != had && (ret = rp_probes_save(t, ps, cache)))
		rpd_warn("probe cache %s: cannot write: %s", cache, strerror(-ret));
	ret = 0;
	for (size_t i = 0; i < rep.nfails; i++)
		rpd_warn("probe %s -> %s sport %u: %s", rep.fails[i].src_ip,
			 rep.fails[i].dst_ip, rep.fails[i].sport, rep.fails[i].why);
	if (rep.nfails) {
		snprintf(err, errlen, "probe %s -> %s sport %u: %s (%zu ports unanswered)",
			 rep.fails[0].src_ip, rep.fails[0].dst_ip,
			 rep.fails[0].sport, rep.fails[0].why, rep.nfails);
		ret = -EHOSTUNREACH;
	} else if (rep.short_pairs) {
		snprintf(err, errlen, "probing from %s: %u pairs found too few ports onto their assigned spines",
			 cfg->host, rep.short_pairs);
		ret = -EHOSTUNREACH;
	} else if (rr) {
		rr->n = 0;	/* kept until their flows got every answer */
	}
out:
	rp_probe_report_free(&rep);
	return ret;
}

int rpd_budget_check(const struct rpd_config *cfg, char *err, size_t errlen)
{
	struct rp_place *p = NULL;
	struct rp_topo *t = NULL;
	struct rp_probe_slot sl;
	struct rp_err perr;
	int ret = 0;

	if (!cfg->probe_budget_pps)
		return 0;
	memset(&perr, 0, sizeof(perr));
	/* files that do not load are the plan's to report, not the config's */
	if (rp_topo_load(cfg->topology, &t, &perr) || !rp_topo_measured(t) ||
	    rp_place_load(cfg->placement, t, &p, &perr))
		goto out;
	ret = rp_probe_budget_check(t, p, cfg->host, cfg->probe_rate_pps,
				    cfg->probe_budget_pps, &sl, perr.msg,
				    sizeof(perr.msg));
	if (ret == -EDOM)
		budget_err(cfg, perr.msg, err, errlen);
	else
		ret = 0;
out:
	rp_place_free(p);
	rp_topo_free(t);
	return ret;
}

static bool bytes_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	return (!a && !b) || (a && b && alen == blen && !memcmp(a, b, alen));
}

/* After a good plan: @cur was planned with @prev (NULL: from scratch). */
static void replan_record(struct rpd_replan *rp, const struct rpd_config *cfg,
			  const char *cur, size_t len, const char *prev,
			  size_t prev_len)
{
	char err[768];

	if (bytes_eq(rp->st.placement, rp->st.placement_len, cur, len) &&
	    bytes_eq(rp->st.previous, rp->st.previous_len, prev, prev_len))
		return;
	if (rpd_replan_state_set(&rp->st, cur, len, prev, prev_len)) {
		rpd_warn("out of memory recording the re-plan state");
		rpd_replan_state_free(&rp->st);
		return;
	}
	if (rp->persist &&
	    rpd_replan_state_save(cfg->state_dir, &rp->st, err, sizeof(err)))
		rpd_warn("%s; after a restart this host plans as if it had no previous placement",
			 err);
}

int rpd_plan_files_sum(const struct rpd_config *cfg, struct rpd_replan *rp,
		       struct rp_pins *out, struct rpd_plan_info *info,
		       char *summary, size_t slen, char *err, size_t errlen)
{
	struct rpd_replan check = { 0 };	/* --check: read, never write */
	const char *prev = NULL, *src = NULL;
	struct rp_plan *plan = NULL, *prev_plan = NULL;
	const struct rp_plan_summary *s;
	char *text = NULL, *own_prev = NULL;
	struct rp_pins pins = { 0 };
	struct rp_place *p = NULL, *pp = NULL;
	struct rp_topo *t = NULL;
	struct rp_probes ps = { 0 };
	size_t len = 0, prev_len = 0;
	struct rp_err perr;
	bool live;
	int ret;

	memset(&perr, 0, sizeof(perr));
	err[0] = '\0';
	ret = rp_topo_load(cfg->topology, &t, &perr);
	/* planned from these bytes, and these bytes are what is recorded */
	if (!ret)
		ret = rp_json_load_file(cfg->placement, &text, &len, &perr);
	if (!ret)
		ret = rp_place_parse(cfg->placement, text, len, t, &p, &perr);
	if (!ret && cfg->stable_replan) {
		if (!rp)
			rp = &check;
		replan_load(rp, cfg);
		prev_plan = replan_prev(rp, cfg, t, text, len, &pp, &own_prev,
					&prev, &prev_len, &src);
	}
	live = rp && rp != &check;
	if (!ret && rp_topo_measured(t))
		ret = probe_for_plan(cfg, t, p, live ? rp : NULL, &ps, err,
				     errlen);
	if (!ret)
		ret = rp_plan_compute_probed(t, p, prev_plan, &ps, &plan, &perr);
	rp_plan_free(prev_plan);
	rp_place_free(pp);
	if (ret) {
		if (!err[0])
			rp_err_str(&perr, err, errlen);
		if (!err[0])
			snprintf(err, errlen, "planning %s + %s: %s", cfg->topology,
				 cfg->placement, strerror(-ret));
		goto out;
	}
	ret = rp_plan_host_pins(plan, cfg->host, &pins);
	if (ret) {
		if (ret == -ENOENT)
			snprintf(err, errlen, "%s: host \"%s\" is not in the topology",
				 cfg->topology, cfg->host);
		else
			snprintf(err, errlen, "host pins for %s: %s", cfg->host,
				 strerror(-ret));
		goto out;
	}
	for (size_t i = 0; i < pins.n && !ret; i++)
		ret = rp_pins_add(out, &pins.v[i]);
	if (ret) {
		snprintf(err, errlen, "host pins for %s: %s", cfg->host,
			 strerror(-ret));
		goto out;
	}
	s = rp_plan_summary(plan);
	if (info)
		plan_info(info, t, text, len, &ps, plan);
	if (s && summary)
		snprintf(summary, slen,
			 "fabric: %u flows, %u unplaced, max link load %u flows, lower bound %u, ECMP baseline %u; %s%s",
			 s->flows, s->unplaced, s->max_link_flows, s->lower_bound,
			 s->ecmp_max_link_flows,
			 prev ? "stable re-plan from " : "planned from scratch",
			 prev ? src : "");
	if (cfg->stable_replan && rp != &check)
		replan_record(rp, cfg, text, len, prev, prev_len);
out:
	rp_pins_free(&pins);
	rp_plan_free(plan);
	rp_probes_free(&ps);
	rp_place_free(p);
	rp_topo_free(t);
	rpd_replan_free(&check);
	free(own_prev);
	free(text);
	return ret;
}

static int be_plan(void *ctx, const struct rpd_config *cfg, struct rp_pins *out,
		   char *summary, size_t slen, char *err, size_t errlen)
{
	struct rpd_kernel *k = ctx;
	struct rpd_plan_info info;
	int ret;

	memset(&info, 0, sizeof(info));
	ret = rpd_plan_files_sum(cfg, &k->replan, out, &info, summary, slen,
				 err, errlen);
	if (!ret)
		k->planned = info;
	return ret;
}

static void be_plan_applied(void *ctx)
{
	struct rpd_kernel *k = ctx;

	k->plan_info = k->planned;
}

static int be_pin_dump(void *ctx, struct rp_pins *out, uint32_t *gen)
{
	struct rpd_kernel *k = ctx;
	int ret;

	if (k->dry_run) {
		*gen = k->dry_gen;
		return rp_pins_copy(out, &k->dry_installed);
	}
	if (!k->nl)
		return -ENOENT;
	rp_pins_free(out);
	ret = rp_pin_dump(k->nl, out);
	if (!ret)
		*gen = out->generation;
	return ret;
}

static int be_pin_replace(void *ctx, const struct rp_pins *set,
			  uint32_t expect_gen, uint32_t *new_gen, char *err,
			  size_t errlen)
{
	struct rpd_kernel *k = ctx;
	int ret;

	if (k->dry_run) {
		char buf[512];

		for (size_t i = 0; i < set->n; i++) {
			rp_pin_format(&set->v[i], buf, sizeof(buf));
			rpd_info("dry-run: pin %s", buf);
		}
		*new_gen = ++k->dry_gen;
		return rp_pins_copy(&k->dry_installed, set);
	}
	if (!k->nl)
		return -ENOENT;
	ret = rp_pin_replace(k->nl, set->v, set->n, expect_gen ? &expect_gen : NULL,
			     new_gen);
	if (ret && rp_nl_errmsg(k->nl))
		snprintf(err, errlen, "%s", rp_nl_errmsg(k->nl));
	return ret;
}

static int be_dev_dump(void *ctx, struct rp_devs *out)
{
	struct rpd_kernel *k = ctx;

	rp_devs_free(out);
	if (k->dry_run)
		return 0;
	if (!k->nl)
		return -ENOENT;
	return rp_dev_dump(k->nl, NULL, out);
}

static int be_dcqcn_set(void *ctx, const char *ibdev, const struct rpd_dcqcn_values *v,
			char *err, size_t errlen)
{
	struct rpd_kernel *k = ctx;
	struct rp_dcqcn d;
	int ret;

	if (k->dry_run)
		return 0;
	if (!k->nl)
		return -ENOENT;
	memset(&d, 0, sizeof(d));
	snprintf(d.ibdev, sizeof(d.ibdev), "%s", ibdev);
	RP_SET(&d, ROCEPATH_A_DCQCN_IBDEV);
	for (int i = 0; i < RP_DCQCN_NPARAMS; i++) {
		int attr = rp_dcqcn_params[i].attr;

		if (!(v->set & (1ULL << i)))
			continue;
		d.val[attr] = v->val[i];
		RP_SET(&d, attr);
	}
	ret = rp_dcqcn_set(k->nl, &d);
	if (ret && rp_nl_errmsg(k->nl))
		snprintf(err, errlen, "%s", rp_nl_errmsg(k->nl));
	return ret;
}

static int be_mlx5(void *ctx, const struct rp_dev *dev, const struct rpd_dcqcn_values *v)
{
	struct rpd_kernel *k = ctx;

	if (k->dry_run)
		return 0;
	return rpd_mlx5_cc_write(k->sysfs_ib, k->debugfs_mlx5, dev->ibdev, v);
}

void rpd_backend_init(struct rpd_backend *be, struct rpd_kernel *k)
{
	*be = (struct rpd_backend){
		.ctx = k,
		.plan = be_plan,
		.plan_applied = be_plan_applied,
		.pin_dump = be_pin_dump,
		.pin_replace = be_pin_replace,
		.dev_dump = be_dev_dump,
		.dcqcn_set = be_dcqcn_set,
		.mlx5_cc_write = be_mlx5,
	};
}
