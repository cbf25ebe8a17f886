// SPDX-License-Identifier: GPL-2.0
/*
 * Links and ports: for every flow the planned up and down link, then a UDP
 * source port that the modelled switch hashes send down them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_model.h"

static uint32_t fnv1a(uint32_t h, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len--) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

/* Index of link li in the leaf's ECMP group toward dst leaf; group size. */
int rp_plan_leaf_group(const struct rp_plan *pl, int leaf, int dst, int *grp,
		       int max)
{
	const struct rp_topo *t = pl->t;
	int n = 0;

	/* links of a leaf are contiguous and sorted by leaf port */
	for (int i = pl->leaf_l0[leaf]; i < pl->leaf_l0[leaf + 1]; i++) {
		const struct rp_link *l = &t->links[i];

		if (!l->up || !bcount(pl, dst, l->spine))
			continue;
		if (n < max)
			grp[n] = i;
		n++;
	}
	return n;
}

static int pick_least(const struct rp_plan *pl, const int *links, int n,
		      const int *load)
{
	int best = links[0];

	(void)pl;
	for (int i = 1; i < n; i++)
		if (load[links[i]] < load[best])
			best = links[i];
	return best;
}

static int find_port(struct rp_hash_ctx *lc, int want_l, int ngl,
		     struct rp_hash_ctx *sc, int want_s, int ngs,
		     uint32_t p0, const uint16_t *used, int nused,
		     bool allow_used)
{
	for (uint32_t k = 0; k < 16384; k++) {
		uint16_t port = RP_SPORT_MIN + (p0 + k) % 16384;
		int i;

		if (!allow_used) {
			for (i = 0; i < nused; i++)
				if (used[i] == port)
					break;
			if (i < nused)
				continue;
		}
		if (lc && rp_hash_ctx_member(lc, port, ngl) != want_l)
			continue;
		if (sc && ngs > 1 && rp_hash_ctx_member(sc, port, ngs) != want_s)
			continue;
		return port;
	}
	return -1;
}

/*
 * Fallback when no port hits the planned (uplink, downlink): the leaf and
 * spine hashes can be correlated (e.g. the same CRC at both tiers, where
 * seeds only add a constant), so that some combinations are unreachable.
 * Take the port whose reachable links through the planned spine are least
 * loaded (unused ports first); updates f->up/f->dn.
 */
static int find_any(const struct rp_plan *pl, struct flow *f,
		    struct rp_hash_ctx *lc, const int *grp, int ngl,
		    struct rp_hash_ctx *sc, const struct bundle *db,
		    const int *upl, const int *dnl, uint32_t p0,
		    const uint16_t *used, int nused)
{
	const struct rp_topo *t = pl->t;
	long best = -1;
	int bp = -1;

	for (uint32_t k = 0; k < 16384; k++) {
		uint16_t port = RP_SPORT_MIN + (p0 + k) % 16384;
		int m = rp_hash_ctx_member(lc, port, ngl), u, d, i;
		long key;

		if (m < 0 || t->links[grp[m]].spine != f->spine)
			continue;
		u = grp[m];
		m = db->n > 1 ? rp_hash_ctx_member(sc, port, db->n) : 0;
		if (m < 0)
			continue;
		d = pl->blinks[db->s0 + m];
		for (i = 0; i < nused; i++)
			if (used[i] == port)
				break;
		key = (long)(upl[u] > dnl[d] ? upl[u] : dnl[d]) * 2 +
		      (i < nused);
		if (best < 0 || key < best) {
			best = key;
			bp = port;
			f->up = u;
			f->dn = d;
		}
	}
	return bp;
}

/*
 * Spines for the pair's flows, x[] of each: a stable re-plan first gives
 * flows their previous spine while it has units left; the others go
 * round-robin over the spines in flow order.
 */
static int pair_spines(struct rp_plan *pl, const struct pair *p)
{
	int *rem = malloc(p->nc * sizeof(int)), cur = 0;

	if (!rem)
		return -ENOMEM;
	memcpy(rem, &pl->x[p->c0], p->nc * sizeof(int));
	for (int j = 0; j < p->nf; j++)
		pl->flows[pl->order[p->f0 + j]].spine = -1;
	for (int j = 0; pl->prev && j < p->nf; j++) {
		struct flow *f = &pl->flows[pl->order[p->f0 + j]];
		const struct flow *q = prev_flow(pl, pl->order[p->f0 + j]);

		for (int c = 0; q && c < p->nc; c++)
			if (pl->cs[p->c0 + c] == q->spine && rem[c]) {
				rem[c]--;
				f->spine = q->spine;
				break;
			}
	}
	for (int j = 0; j < p->nf; j++) {
		struct flow *f = &pl->flows[pl->order[p->f0 + j]];

		if (f->spine >= 0)
			continue;
		while (!rem[cur % p->nc])
			cur++;
		f->spine = pl->cs[p->c0 + cur % p->nc];
		rem[cur % p->nc]--;
		cur++;
	}
	free(rem);
	return 0;
}

/* The previous link when it is one of links[] and below the bound. */
static int pick_link(const struct rp_plan *pl, const int *links, int n,
		     const int *load, int prev)
{
	for (int i = 0; prev >= 0 && i < n; i++)
		if (links[i] == prev && load[prev] < pl->T)
			return prev;
	return pick_least(pl, links, n, load);
}

int rp_plan_route_pair(struct rp_plan *pl, int pi, int *upl, int *dnl,
		       int *grp, int gmax, uint16_t *used)
{
	const struct rp_topo *t = pl->t;
	struct pair *p = &pl->pairs[pi];
	int ngl = 0, nused = 0, nrsv = 0, gsrc = -1, gdst = -1;
	bool routed = pair_routed(p);
	int ret;

	if (p->src != p->dst && !routed)
		return 0;
	if (routed) {
		ret = pair_spines(pl, p);
		if (ret)
			return ret;
		ngl = rp_plan_leaf_group(pl, p->src, p->dst, grp, gmax);
	}
	for (int j = 0; j < p->nf; j++) {
		int fi = pl->order[p->f0 + j];
		struct flow *f = &pl->flows[fi];
		const struct flow *q = prev_flow(pl, fi);
		const struct rp_nic *sn = &t->nics[f->src_nic];
		const struct rp_nic *dn = &t->nics[f->dst_nic];
		struct rp_hash_ctx lc, sc;
		int want_l = -1, want_s = 0, ngs = 1, port = -1;
		uint8_t st = ST_NO_PORT;
		uint32_t p0;

		if (f->src_nic != gsrc || f->dst_nic != gdst) {
			gsrc = f->src_nic;
			gdst = f->dst_nic;
			/*
			 * used[0..nrsv): the group's previous ports, which new
			 * flows avoid; then the ports given out so far
			 */
			nrsv = 0;
			for (int k = j; k < p->nf; k++) {
				int fk = pl->order[p->f0 + k];
				const struct flow *qk = prev_flow(pl, fk);

				if (pl->flows[fk].src_nic != gsrc ||
				    pl->flows[fk].dst_nic != gdst)
					break;
				if (qk && nrsv < 8192)
					used[nrsv++] = qk->sport;
			}
			nused = nrsv;
		}
		p0 = fnv1a(2166136261u, sn->addr.b, 16);
		p0 = fnv1a(p0, dn->addr.b, 16) % 16384;
		if (routed) {
			struct bundle *ub, *db;
			int s = f->spine;

			ub = bget(pl, p->src, s);
			db = bget(pl, p->dst, s);
			f->up = pick_link(pl, &pl->blinks[ub->l0], ub->n, upl,
					  q ? q->up : -1);
			f->dn = pick_link(pl, &pl->blinks[db->s0], db->n, dnl,
					  q ? q->dn : -1);
			for (int i = 0; i < ngl && i < gmax; i++)
				if (grp[i] == f->up)
					want_l = i;
			ngs = db->n;
			for (int i = 0; i < db->n; i++)
				if (pl->blinks[db->s0 + i] == f->dn)
					want_s = i;
			rp_hash_ctx_init(&lc, &t->sw[t->leaf_sw[p->src]].hash,
					 &sn->addr, &dn->addr, &pl->lin);
			rp_hash_ctx_init(&sc, &t->sw[t->spine_sw[s]].hash,
					 &sn->addr, &dn->addr, &pl->lin);
			if (t->sw[t->leaf_sw[p->src]].hash.alg == RP_HASH_MEASURED)
				port = rp_plan_probed_port(pl, f, q, used, nused,
							   nrsv, &sc, want_s,
							   ngs, &st);
			/* the previous port, if it still takes the planned links */
			else if (q && q->up == f->up && q->dn == f->dn &&
			    find_port(&lc, want_l, ngl, &sc, want_s, ngs,
				      q->sport - RP_SPORT_MIN, used + nrsv,
				      nused - nrsv, false) == q->sport)
				port = q->sport;
			if (port < 0 && st == ST_NO_PORT)
				port = find_port(&lc, want_l, ngl, &sc, want_s, ngs,
						 p0, used, nused, false);
			if (port < 0 && st == ST_NO_PORT)
				port = find_any(pl, f, &lc, grp, ngl, &sc, db,
						upl, dnl, p0, used, nused);
		} else {
			if (q && find_port(NULL, 0, 1, NULL, 0, 1,
					   q->sport - RP_SPORT_MIN, used + nrsv,
					   nused - nrsv, false) == q->sport)
				port = q->sport;
			if (port < 0)
				port = find_port(NULL, 0, 1, NULL, 0, 1, p0, used,
						 nused, false);
			if (port < 0)
				port = RP_SPORT_MIN + p0;
		}
		if (port < 0 || (routed && want_l < 0)) {
			f->status = st;
			/* another host realises it: its links still count */
			if (st == ST_UNPROBED) {
				upl[f->up]++;
				dnl[f->dn]++;
			}
			continue;
		}
		f->sport = port;
		f->status = ST_PLACED;
		if (routed) {
			upl[f->up]++;
			dnl[f->dn]++;
		}
		if (nused < 16384)
			used[nused++] = port;
	}
	return 0;
}
