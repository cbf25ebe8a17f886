// SPDX-License-Identifier: GPL-2.0
/*
 * The planner's side of probing: the pairs a host must probe for its flows
 * through measured leaves, and the probed port each such flow takes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_model.h"
#include "plan_probe.h"
#include "plan_probe_budget.h"

static bool leaf_measured(const struct rp_plan *pl, int leaf)
{
	return pl->t->sw[pl->t->leaf_sw[leaf]].hash.alg == RP_HASH_MEASURED;
}

int rp_plan_probed_port(const struct rp_plan *pl, const struct flow *f,
			const struct flow *q, const uint16_t *used, int nused,
			int nrsv, struct hop *rest, int nrest, uint8_t *status)
{
	const struct rp_topo *t = pl->t;
	const struct pair *p = &pl->pairs[f->pair];
	const struct rp_addr *src = &t->nics[f->src_nic].addr;
	const struct rp_addr *dst = &t->nics[f->dst_nic].addr;
	int sw = t->spine_sw[f->spine], pick = -1;
	size_t first, n;

	/*
	 * A TTL-limited probe names the first spine, not which of its links,
	 * and says nothing of a later hop whose hash is measured too.
	 */
	if (bget(pl, p->src, f->spine)->n > 1)
		goto parallel;
	for (int k = 0; k < nrest; k++)
		if (rest[k].check && rest[k].c.m->alg == RP_HASH_MEASURED)
			goto parallel;
	n = pl->probes ? rp_probes_range(pl->probes, src, dst, &first) : 0;
	if (!n) {
		*status = ST_UNPROBED;
		return -1;
	}
	for (size_t i = first; i < first + n; i++) {
		const struct rp_probe *pr = &pl->probes->v[i];
		int k;

		if (pr->sw != sw)
			continue;
		/* the later hops' modelled hashes must follow the plan too */
		for (k = 0; k < nrest; k++)
			if (rest[k].check &&
			    rp_hash_ctx_member(&rest[k].c, pr->sport, rest[k].n) !=
			    rest[k].want)
				break;
		if (k < nrest)
			continue;
		/* a stable re-plan keeps the previous port if it still fits */
		if (q && pr->sport == q->sport &&
		    !rp_port_taken(used + nrsv, nused - nrsv, pr->sport))
			return pr->sport;
		if (pick < 0 && !rp_port_taken(used, nused, pr->sport))
			pick = pr->sport;
	}
	if (pick < 0)
		*status = ST_NO_PROBED;
	return pick;

parallel:
	*status = ST_PARALLEL;
	return -1;
}

/* A flow its sender must probe for: routed, first hop a measured leaf. */
static bool probed_flow(const struct rp_plan *pl, const struct flow *f)
{
	return f->pair >= 0 && f->spine >= 0 &&
	       pair_routed(&pl->pairs[f->pair]) &&
	       leaf_measured(pl, pl->t->nics[f->src_nic].leaf);
}

int rp_plan_probe_max_flows(const struct rp_plan *pl, unsigned int *max)
{
	unsigned int *per = calloc(pl->t->nhosts + 1, sizeof(*per));

	*max = 0;
	if (!per)
		return -ENOMEM;
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];
		int h = pl->t->nics[f->src_nic].host;

		if (probed_flow(pl, f) && ++per[h] > *max)
			*max = per[h];
	}
	free(per);
	return 0;
}

void rp_probe_pairs_free(struct rp_probe_pair *pairs, size_t n)
{
	for (size_t i = 0; pairs && i < n; i++) {
		free(pairs[i].want);
		free(pairs[i].expect);
	}
	free(pairs);
}

/* The spines leaf has an up link to: at TTL 2 the answers come from them. */
static void expect_uplinks(const struct rp_topo *t, int leaf,
			   unsigned char *expect)
{
	for (int l = 0; l < t->nlinks; l++)
		if (t->links[l].leaf == leaf && t->links[l].up)
			expect[t->spine_sw[t->links[l].spine]] = 1;
}

int rp_plan_probe_pairs(const struct rp_plan *pl, const char *host,
			struct rp_probe_pair **pairs, size_t *n)
{
	const struct rp_topo *t = pl->t;
	struct rp_probe_pair *v = NULL;
	size_t nv = 0;
	int h = rp_topo_find_host(t, host);

	*pairs = NULL;
	*n = 0;
	if (h < 0)
		return -ENOENT;
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];
		const struct rp_nic *sn = &t->nics[f->src_nic];
		const struct rp_nic *dn = &t->nics[f->dst_nic];
		struct rp_probe_pair *pp;
		size_t k;

		if (sn->host != h || !probed_flow(pl, f))
			continue;
		for (k = 0; k < nv; k++)
			if (!rp_addr_cmp(&v[k].src, &sn->addr) &&
			    !rp_addr_cmp(&v[k].dst, &dn->addr))
				break;
		if (k == nv) {
			struct rp_probe_pair *w = realloc(v, (nv + 1) * sizeof(*v));

			if (!w)
				goto nomem;
			v = w;
			pp = &v[nv++];
			memset(pp, 0, sizeof(*pp));
			pp->want = calloc(t->nsw + 1, sizeof(*pp->want));
			pp->expect = calloc(t->nsw + 1, sizeof(*pp->expect));
			if (!pp->want || !pp->expect)
				goto nomem;
			expect_uplinks(t, sn->leaf, pp->expect);
			pp->src = sn->addr;
			pp->dst = dn->addr;
			pp->rail = sn->rail;
			snprintf(pp->src_ip, sizeof(pp->src_ip), "%s", sn->ip);
			snprintf(pp->dst_ip, sizeof(pp->dst_ip), "%s", dn->ip);
			snprintf(pp->netdev, sizeof(pp->netdev), "%s",
				 sn->netdev ? sn->netdev : "");
		}
		pp = &v[k];
		pp->nflows++;
		pp->want[t->spine_sw[f->spine]]++;
	}
	*pairs = v;
	*n = nv;
	return 0;
nomem:
	rp_probe_pairs_free(v, nv);
	return -ENOMEM;
}
