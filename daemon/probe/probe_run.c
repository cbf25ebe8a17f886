// SPDX-License-Identifier: GPL-2.0
/* One host's probing: pairs from the plan, then the walk with sockets. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_run.h"
#include "probe_sock.h"

/* The socket prober behind the slot: nothing leaves outside the slot. */
struct gated {
	struct rp_probe_sock sk;
	struct rp_probe_slot *sl;
};

static int gated_fn(void *ctx, const struct rp_probe_pair *pair,
		    uint16_t sport, const struct rp_probe_opts *o, int *sw,
		    char *why, size_t whylen)
{
	struct gated *g = ctx;

	if (g->sl && rp_probe_slot_wait(g->sl, o->cancel)) {
		snprintf(why, whylen, "probing cancelled");
		return -ECANCELED;
	}
	return rp_probe_sock_fn(&g->sk, pair, sport, o, sw, why, whylen);
}

/*
 * Pairs from the slot's first rail on, each rail's in the plan's order:
 * the hosts of one slot then begin on different rails (planes).
 */
static int rail_order(struct rp_probe_pair *pairs, size_t n,
		      const struct rp_probe_slot *sl)
{
	struct rp_probe_pair *v = malloc((n + 1) * sizeof(*v));
	int nr = sl->s.rails;
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (int off = 0; off < nr; off++)
		for (size_t i = 0; i < n; i++)
			if (((pairs[i].rail - (int)sl->first_rail) % nr + nr) % nr == off)
				v[k++] = pairs[i];
	memcpy(pairs, v, n * sizeof(*v));
	free(v);
	return 0;
}

int rp_probe_host(const struct rp_topo *t, const struct rp_place *p,
		  const char *host, const struct rp_probe_opts *o,
		  unsigned int budget_pps, struct rp_probe_slot *sl,
		  struct rp_probes *ps, struct rp_probe_report *rep,
		  struct rp_err *err)
{
	struct gated g = { .sk = { .t = t, .host = host } };
	struct rp_probe_pair *pairs = NULL;
	struct rp_plan *plan = NULL;
	char why[sizeof(err->msg)] = "";
	struct rp_probe_slot own;
	size_t n = 0;
	int ret;

	if (!sl)
		sl = &own;	/* the caller does not want to know the slot */
	/* the assignment alone: the same on every host, probes or not */
	ret = rp_plan_compute(t, p, &plan, err);
	if (ret)
		return ret;
	ret = rp_plan_probe_pairs(plan, host, &pairs, &n);
	if (ret == -ENOENT)
		snprintf(why, sizeof(why), "unknown host \"%s\"", host);
	if (!ret && budget_pps) {
		ret = rp_probe_budget_for(t, plan, host, o->rate_pps,
					  budget_pps, sl, why, sizeof(why));
		g.sl = sl;
		if (!ret)
			ret = rail_order(pairs, n, sl);
	}
	if (!ret) {
		ps->digest = rp_topo_digest(t);
		ret = rp_probe_walk(pairs, n, rp_topo_nswitches(t), o,
				    gated_fn, &g, ps, rep);
		if (ret)
			snprintf(why, sizeof(why), "%s",
				 rep->error[0] ? rep->error : strerror(-ret));
	}
	if (ret && err)
		snprintf(err->msg, sizeof(err->msg), "%s",
			 why[0] ? why : strerror(-ret));
	rp_probe_pairs_free(pairs, n);
	rp_plan_free(plan);
	return ret;
}

void rp_probe_cache_load(const struct rp_topo *t, const char *path,
			 struct rp_probes *ps)
{
	struct rp_err err;

	if (rp_probes_load(t, path, ps, &err))
		memset(ps, 0, sizeof(*ps));
	ps->digest = rp_topo_digest(t);
}
