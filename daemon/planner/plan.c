// SPDX-License-Identifier: GPL-2.0
/*
 * The route planner: flows from the placement, spines (and on three tiers
 * superspines) assigned so that the most loaded directed fabric link
 * carries the minimum, then for every flow a UDP source port that the
 * switches' modelled hashes send down its links.
 * See Documentation/planner.rst for the algorithm and its bound.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_model.h"
#include "plan_probe.h"

/* Greedy passes (different pair orders) per bound before trying T + 1. */
#define RP_COLOUR_ATTEMPTS	8

/* Appends to the summary's reason, "; " between parts. */
static void reason_add(struct rp_plan_summary *s, size_t *n, const char *fmt,
		       ...) __attribute__((format(printf, 3, 4)));
static void reason_add(struct rp_plan_summary *s, size_t *n, const char *fmt,
		       ...)
{
	size_t sz = sizeof(s->bound_gap_reason);
	va_list ap;

	if (*n >= sz - 1)
		return;
	if (*n)
		*n += snprintf(s->bound_gap_reason + *n, sz - *n, "; ");
	if (*n >= sz - 1)
		return;
	va_start(ap, fmt);
	*n += vsnprintf(s->bound_gap_reason + *n, sz - *n, fmt, ap);
	va_end(ap);
}

/*
 * The summary's bound_gap (never clamped) and its reason: each part is
 * said only when it holds (planner.rst, "Output").
 */
static void gap_reason(struct rp_plan *pl, int T,
		       const struct rp_repair_stats *rs)
{
	struct rp_plan_summary *s = &pl->sum;
	unsigned int uncounted = 0;
	size_t n = 0;

	for (int i = 0; i < pl->nflows; i++)
		uncounted += pl->flows[i].pair >= 0 &&
			     !st_loaded(pl->flows[i].status);
	s->bound_gap = (int)s->max_link_flows - (int)s->lower_bound;
	s->bound_gap_reason[0] = 0;
	if (!s->bound_gap) {
		reason_add(s, &n, "the plan meets the bound");
		return;
	}
	if (s->bound_gap < 0) {
		reason_add(s, &n, "max_link_flows is below the bound because %u unplaced flows are not counted",
			   uncounted);
		return;
	}
	if (T > (int)s->lower_bound && (unsigned int)T <= s->max_link_flows)
		reason_add(s, &n, "the %s needs %d flows per link: the bound is not reachable on this fabric or was not found",
			   pl->f3 ? "route assignment" : "spine assignment", T);
	if (rs->full)
		reason_add(s, &n, "%u of %u%s flows on the busiest links have no path with room under the bound, whatever the port",
			   rs->full, rs->checked, rs->complete ? "" : " checked");
	if (rs->blocked)
		reason_add(s, &n, "%u of %u%s flows on the busiest links have a path with room under the bound that no free port of theirs takes, every port checked (correlated hashes)",
			   rs->blocked, rs->checked, rs->complete ? "" : " checked");
	if (rs->checked > rs->blocked + rs->full)
		reason_add(s, &n, "%u flows on the busiest links have a free port onto a path with room under the bound, but no repair moving up to %d flows at once lowers the busiest links (heuristic: the optimum may be lower)",
			   rs->checked - rs->blocked - rs->full,
			   RP_REPAIR_DEPTH + 1);
	if (!n)
		reason_add(s, &n, "unknown");
}

int rp_plan_compute(const struct rp_topo *t, const struct rp_place *p,
		    struct rp_plan **out, struct rp_err *err)
{
	return rp_plan_compute_stable(t, p, NULL, out, err);
}

int rp_plan_compute_stable(const struct rp_topo *t, const struct rp_place *p,
			   const struct rp_plan *prev, struct rp_plan **out,
			   struct rp_err *err)
{
	return rp_plan_compute_probed(t, p, prev, NULL, out, err);
}

int rp_plan_compute_probed(const struct rp_topo *t, const struct rp_place *p,
			   const struct rp_plan *prev,
			   const struct rp_probes *ps, struct rp_plan **out,
			   struct rp_err *err)
{
	int *upl = NULL, *dnl = NULL, *grp = NULL, *cnt = NULL;
	struct rp_repair_stats rs;
	uint16_t *used = NULL;
	struct rp_port_memo pm;
	struct rp_plan *pl;
	int ret, lb, T, gmax;

	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	pl->t = t;
	pl->p = p;
	pl->prev = prev;
	pl->probes = ps;
	ret = prev && prev->t != t ? -EINVAL : 0;
	if (!ret)
		ret = rp_plan_make_flows(pl);
	if (!ret)
		ret = rp_plan_make_bundles(pl);
	if (!ret)
		ret = rp_plan_make_upper(pl);
	if (!ret)
		ret = rp_plan_make_pairs(pl);
	if (!ret)
		ret = rp_plan_match_prev(pl);
	if (ret)
		goto fail;
	ret = -ENOMEM;
	gmax = (t->nlinks > t->nulinks ? t->nlinks : t->nulinks) + 1;
	upl = calloc(rp_topo_nload(t) + 1, sizeof(int));
	dnl = calloc(rp_topo_nload(t) + 1, sizeof(int));
	grp = calloc(3 * (size_t)gmax, sizeof(int));
	used = calloc(16384, sizeof(*used));
	pl->nic_slot = calloc(t->nnics + 1, sizeof(int));
	cnt = calloc(t->nleaves + 1, sizeof(int));
	for (int i = 0; i < 2; i++) {
		pl->stamp[i] = calloc(t->nleaves + 1, sizeof(int));
		pl->par[i] = calloc(t->nleaves + 1, sizeof(int));
		pl->exc[i] = calloc(t->nleaves + 1, sizeof(int));
		pl->lost[i] = calloc(t->nleaves + 1, sizeof(int));
		if (!pl->exc[i] || !pl->lost[i])
			goto fail;
	}
	pl->queue = calloc(2 * t->nleaves + 2, sizeof(int));
	if (!upl || !dnl || !grp || !used || !pl->nic_slot || !cnt ||
	    !pl->stamp[0] || !pl->stamp[1] || !pl->par[0] || !pl->par[1] ||
	    !pl->queue)
		goto fail;
	for (int i = 0; i < t->nnics; i++)
		pl->nic_slot[i] = cnt[t->nics[i].leaf]++;

	ret = lb = rp_plan_lower_bound(pl);
	if (ret < 0)
		goto fail;
	/* smallest T >= lb for which the colouring succeeds */
	pl->porder = calloc(pl->npairs + 1, sizeof(int));
	if (!pl->porder) {
		ret = -ENOMEM;
		goto fail;
	}
	for (T = lb > 0 ? lb : 1;; T++) {
		/* -1: the previous plan's spines first (stable re-plans) */
		for (int attempt = pl->prefer ? -1 : 0;
		     attempt < RP_COLOUR_ATTEMPTS; attempt++) {
			/* three tiers: routes; two: the edge colouring */
			if (pl->f3)
				ret = rp_plan_route_assign(pl, T, attempt);
			else
				ret = rp_plan_colour(pl, T, attempt);
			if (ret != -EAGAIN)
				break;
		}
		if (!ret)
			break;
		if (ret != -EAGAIN)
			goto fail;
	}
	/* the route assignment's state is its own: the model does not free it */
	rp_plan_route_free(pl);
	ret = rp_walker_new(pl, &pl->walker);
	rp_port_memo_init(&pm);
	for (int i = 0; !ret && i < pl->npairs; i++)
		ret = rp_plan_route_pair(pl, i, upl, dnl, grp, gmax, used, &pm);
	rp_walker_free(pl->walker);
	pl->walker = NULL;
	/*
	 * Only a flow off its assigned links (the fallback) can leave the plan
	 * above the assignment's T; a plan that realises the assignment
	 * exactly is as good as the assignment, and the repair's port walks
	 * would cost without finding anything.
	 */
	memset(&rs, 0, sizeof(rs));
	for (int i = 0; !ret && i < pl->nflows; i++)
		if (pl->flows[i].status == ST_PLACED && pl->flows[i].missed) {
			ret = rp_plan_repair(pl, upl, dnl, lb, &rs);
			break;
		}
	if (ret)
		goto fail;
	ret = rp_plan_assign_qpns(pl);
	if (ret)
		goto fail;
	ret = rp_plan_baselines(pl, grp, gmax);
	if (ret)
		goto fail;

	for (int i = 0; i < pl->nflows; i++)
		if (pl->flows[i].status == ST_PLACED)
			pl->sum.flows++;
		else
			pl->sum.unplaced++;
	pl->sum.lower_bound = lb;
	pl->sum.max_link_flows = rp_plan_max_load(pl, RP_MODE_PLAN, upl, dnl);
	pl->sum.ecmp_max_link_flows = rp_plan_max_load(pl, RP_MODE_ECMP, upl, dnl);
	pl->sum.slice_max_link_flows = rp_plan_max_load(pl, RP_MODE_SLICE, upl, dnl);
	gap_reason(pl, T, &rs);
	ret = 0;
	*out = pl;
	pl = NULL;
fail:
	if (ret && err) {
		char msg[128];

		snprintf(msg, sizeof(msg), "cannot compute the plan: %s",
			 strerror(-ret));
		rp_err_set(err, "", "", 0, 0, "%s", msg);
	}
	free(upl);
	free(dnl);
	free(grp);
	free(used);
	free(cnt);
	if (pl)
		rp_plan_route_free(pl);
	rp_plan_free(pl);
	return ret;
}

int rp_plan_from_files(const char *topo_path, const char *place_path,
		       struct rp_plan **out, struct rp_err *err)
{
	return rp_plan_from_files_stable(topo_path, place_path, NULL, out, err);
}

int rp_plan_from_files_stable(const char *topo_path, const char *place_path,
			      const char *prev_path, struct rp_plan **out,
			      struct rp_err *err)
{
	return rp_plan_from_files_probed(topo_path, place_path, prev_path, NULL,
					 0, out, err);
}

int rp_plan_from_files_probed(const char *topo_path, const char *place_path,
			      const char *prev_path,
			      const char *const *probe_paths, size_t nprobes,
			      struct rp_plan **out, struct rp_err *err)
{
	struct rp_place *p = NULL, *pp = NULL;
	struct rp_probes *ps = NULL, one;
	struct rp_plan *prev = NULL;
	struct rp_topo *t = NULL;
	int ret;

	ret = rp_topo_load(topo_path, &t, err);
	if (!ret)
		ret = rp_place_load(place_path, t, &p, err);
	if (!ret && nprobes) {
		ps = calloc(1, sizeof(*ps));
		ret = ps ? 0 : -ENOMEM;
		for (size_t i = 0; !ret && i < nprobes; i++) {
			ret = rp_probes_load(t, probe_paths[i], &one, err);
			if (!ret)
				ret = rp_probes_merge(ps, &one);
			rp_probes_free(&one);
		}
	}
	if (!ret && prev_path) {
		ret = rp_place_load(prev_path, t, &pp, err);
		if (!ret)
			ret = rp_plan_compute_probed(t, pp, NULL, ps, &prev, err);
	}
	if (!ret)
		ret = rp_plan_compute_probed(t, p, prev, ps, out, err);
	rp_plan_free(prev);
	rp_place_free(pp);
	if (ret) {
		if (ps)
			rp_probes_free(ps);
		free(ps);
		rp_place_free(p);
		rp_topo_free(t);
		return ret;
	}
	(*out)->own_t = t;
	(*out)->own_p = p;
	(*out)->own_probes = ps;
	return 0;
}
