// SPDX-License-Identifier: GPL-2.0
/*
 * Links and ports: for every flow the planned up and down link, then a UDP
 * source port that the modelled switch hashes send down them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_lsys.h"
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

/*
 * ECMP groups toward destination leaf dst (planner.rst's "Hash model", each
 * tier): a leaf's up links to spines with an up path to dst (within its
 * pod a link to dst, between pods one through a superspine); a spine's up
 * links to superspines with an up path down to dst; a superspine's links
 * down to dst's spines that have an up link to dst. Each ordered by the
 * switch's local port; grp gets up to max link indices; returns the size.
 */
int rp_plan_leaf_group(const struct rp_plan *pl, int leaf, int dst, int *grp,
		       int max)
{
	const struct rp_topo *t = pl->t;
	bool far = pl->f3 && xpod(t, leaf, dst);
	int n = 0;

	/* links of a leaf are contiguous and sorted by leaf port */
	for (int i = pl->leaf_l0[leaf]; i < pl->leaf_l0[leaf + 1]; i++) {
		const struct rp_link *l = &t->links[i];

		if (!l->up)
			continue;
		if (far ? !rp_plan_spine_reaches(pl, l->spine, dst) :
		    !bcount(pl, dst, l->spine))
			continue;
		if (n < max)
			grp[n] = i;
		n++;
	}
	return n;
}

int rp_plan_spine_group(const struct rp_plan *pl, int spine, int dst,
			int *grp, int max)
{
	const struct rp_topo *t = pl->t;
	int n = 0;

	/* ulinks of a spine are contiguous and sorted by spine port */
	for (int i = pl->spine_u0[spine]; i < pl->spine_u0[spine + 1]; i++) {
		const struct rp_ulink *l = &t->ulinks[i];

		if (!l->up || !ureaches(pl, l->super, dst))
			continue;
		if (n < max)
			grp[n] = i;
		n++;
	}
	return n;
}

int rp_plan_super_group(const struct rp_plan *pl, int super, int dst,
			int *grp, int max)
{
	const struct rp_topo *t = pl->t;
	int pod = rp_leaf_pod(t, dst), n = 0;
	int k0 = pl->super_u0[super], k1 = pl->super_u0[super + 1];
	const int *ul = pl->super_ul;

	/* only links into dst's pod can lead to dst's spines */
	if (pl->super_pl && pod >= 0) {
		size_t c = (size_t)super * t->npods + pod;

		ul = pl->super_pl;
		k0 = pl->super_pp0[c];
		k1 = pl->super_pp0[c + 1];
	}
	for (int k = k0; k < k1; k++) {
		int i = ul[k];
		const struct rp_ulink *l = &t->ulinks[i];

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

/*
 * Sets a hop (no compound literal: the hash context is large) to switch
 * sw's hash for a flow between two NICs. The QPs of a connection come in
 * a row and mostly take the same switches, whose context then stays.
 */
static void hop_set(struct rp_plan *pl, struct hop *h, int sw, int src_nic,
		    int dst_nic, int want, int n, bool check)
{
	const struct rp_topo *t = pl->t;

	h->want = want;
	h->n = n;
	h->check = check;
	if (h->sw == sw && h->src_nic == src_nic && h->dst_nic == dst_nic)
		return;
	h->sw = sw;
	h->src_nic = src_nic;
	h->dst_nic = dst_nic;
	rp_hash_ctx_init(&h->c, &t->sw[sw].hash, &t->nics[src_nic].addr,
			 &t->nics[dst_nic].addr, &pl->lin);
}

/*
 * The k-th candidate offset from p0 (k = 0 is p0 itself): a bijection of
 * 0..16383 in which both bytes of the port change at every step. A hash
 * that takes its group bits from the port's high byte (XOR16 with the
 * port at an odd offset) would otherwise see the same member for 256
 * ports in a row, and a search for a rare member try thousands.
 */
static uint32_t port_off(uint32_t p0, uint32_t k)
{
	uint32_t hi = ((k & 63) + (k >> 8)) & 63;

	return (p0 ^ (hi << 8 | (k & 255))) % RP_SPORT_COUNT;
}

/* Whether port is in used[0..nused). */
/* Whether port gives the wanted member at every hop to check (mask). */
static bool hops_match(struct hop *h, int nh, unsigned int mask,
		       uint16_t port)
{
	for (int i = 0; i < nh; i++)
		if (mask >> i & 1 &&
		    rp_hash_ctx_member(&h[i].c, port, h[i].n) != h[i].want)
			return false;
	return true;
}

#define RP_PORT_EQS	(4 * 32)	/* equations of a flow's hops, at most */

/* s from n equations: through the memo when they fit it. */
static bool port_system(struct lsys_memo *m, const uint16_t *row,
			const uint8_t *rhs, int n, struct lsys *s)
{
	uint32_t y = 0;

	if (m && n <= 32) {
		for (int j = 0; j < n; j++)
			y |= (uint32_t)rhs[j] << j;
		return lsys_memo_get(m, row, n, y, s);
	}
	for (int j = 0; j < n; j++)
		if (!lsys_add(s, row[j], rhs[j]))
			return false;
	return true;
}

/*
 * The first port, from p0 on, that the hops send to their wanted members
 * and that is not used (unless allow_used). Hops whose hash is linear
 * (CRCs, XOR16) with a power-of-two group are solved, not searched: the
 * member is a set of linear equations in the port's bits (plan_hash.h,
 * rp_hash_ctx_lin()), and only their solutions are tried, p0's free bits
 * first; the other hops (tables, other group sizes) are checked port by
 * port. With no linear hop, ports are scanned in port_off() order. memo,
 * if any, keeps the equations reduced for the next call.
 */
static int find_port(struct hop *h, int nh, uint32_t p0, const uint16_t *used,
		     int nused, bool allow_used, struct lsys_memo *memo)
{
	unsigned int check = 0;
	uint16_t row[RP_PORT_EQS];
	uint8_t rhs[RP_PORT_EQS];
	struct lsys s = { 0 };
	bool any_lin = false;
	uint32_t freem;
	int d, neq = 0;

	for (int i = 0; i < nh; i++) {
		const struct lhop *l = NULL;

		if (i && !h[i].check)
			continue;
		/* a measured table or an empty group is checked port by port */
		if (h[i].c.lin && h[i].n > 0)
			l = lhop_memo_get(&h[i].rows, &h[i].c, h[i].n);
		if (!l) {
			check |= 1u << i;
			continue;
		}
		any_lin = true;
		if (h[i].want < 0)
			return -1;
		for (int b = 0; b < l->k; b++) {
			row[neq] = l->row[b];
			rhs[neq++] = ((uint32_t)h[i].want ^ l->m0) >> b & 1;
		}
	}
	if (!any_lin) {
		for (uint32_t k = 0; k < RP_SPORT_COUNT; k++) {
			uint16_t port = RP_SPORT_MIN + port_off(p0, k);

			if ((allow_used || !rp_port_taken(used, nused, port)) &&
			    hops_match(h, nh, check, port))
				return port;
		}
		return -1;
	}
	if (!port_system(memo, row, rhs, neq, &s))
		return -1;	/* no port reaches these members */
	freem = ~(uint32_t)s.pivots & ((1u << RP_SPORT_BITS) - 1);
	d = RP_SPORT_BITS - s.n;
	for (uint32_t k = 0; k < 1u << d; k++) {
		uint16_t port = RP_SPORT_MIN +
				lsys_solve(&s, (p0 & freem) ^ deposit(k, freem));

		if ((allow_used || !rp_port_taken(used, nused, port)) &&
		    hops_match(h, nh, check, port))
			return port;
	}
	return -1;
}

#define RP_ANY_QUICK	256	/* ports find_any() lists instead of scanning */
#define RP_ANY_FIRST	32	/* ports find_any() scans before solving */

/* Inverse of port_off(): the k at which the scan meets port (low bits) x. */
static uint32_t port_rank(uint32_t p0, uint32_t x)
{
	uint32_t y = (x ^ p0) % RP_SPORT_COUNT, lo = y & 255;

	return (((y >> 8) - lo) & 63) << 8 | lo;
}

struct first {
	uint32_t p0, k;
	const uint16_t *used;
	int nused;
	struct rp_path b;
};

/* Keeps the free port the scan would meet first. */
static void first_free(void *arg, const struct rp_path *p)
{
	struct first *fs = arg;
	uint32_t k;

	if (rp_port_taken(fs->used, fs->nused, p->port))
		return;
	k = port_rank(fs->p0, p->port - RP_SPORT_MIN);
	if (k < fs->k) {
		fs->k = k;
		fs->b = *p;
	}
}

/*
 * The port the scan below stops at, without walking: the first free port
 * (in port_off() order) onto a path whose busiest link is within
 * lim, listed from the solved paths when they have few such ports (with
 * many, the scan meets one soon). 0 and *b, or -1.
 */
static int first_within(struct rp_plan *pl, const int *upl, const int *dnl,
			long lim, uint32_t p0, const uint16_t *used,
			int nused, struct rp_path *b)
{
	struct first fs = { .p0 = p0, .k = RP_SPORT_COUNT, .used = used,
			    .nused = nused };

	if (rp_walk_within(pl->walker, upl, dnl, lim, RP_ANY_QUICK,
			   first_free, &fs) || fs.k == RP_SPORT_COUNT)
		return -1;
	*b = fs.b;
	return 0;
}

struct scan {
	long best;		/* least load met, -1 before any */
	struct rp_path b;	/* the first port at it */
};

/*
 * Scans ports k0..k1 (port_off() order; used ones too when any), keeping
 * the least loaded: true at the first whose path stays below T or has the
 * least load any path has (least, when solved).
 */
static bool scan_ports(struct rp_plan *pl, const int *upl, const int *dnl,
		       uint32_t p0, const uint16_t *used, int nused, bool any,
		       const long *least, uint32_t k0, uint32_t k1,
		       struct scan *sc)
{
	for (uint32_t k = k0; k < k1; k++) {
		uint16_t port = RP_SPORT_MIN + port_off(p0, k);
		struct rp_path x;
		long mx;

		if ((!any && rp_port_taken(used, nused, port)) ||
		    rp_walk_port(pl->walker, port, &x))
			continue;
		mx = rp_path_load(pl, upl, dnl, &x);
		if (sc->best < 0 || mx < sc->best) {
			sc->best = mx;
			sc->b = x;
		}
		if (mx < pl->T || (least && mx <= *least))
			return true;
	}
	return false;
}

/*
 * Fallback when no port hits the planned links: the hashes can be
 * correlated (e.g. the same CRC at two tiers, where seeds only add a
 * constant), or a hop may not read the source port at all, so that some
 * paths are unreachable. Take the first port (in port_off() order) whose
 * path, followed hop by hop through each switch's group, stays below the
 * assignment's T at its busiest link or has the least load any path of
 * the flow has, else the least loaded such port (free ports first, then
 * any). The least load is solved, not walked, once the first ports have
 * none within T (or at once when another QP of the connection solved the
 * paths): the whole scan would end at the same port, since no port before
 * it reaches the least. Where few ports qualify, they are listed from the
 * solved paths instead of scanned. The flow's links, spines and
 * superspine become that path's: a flow is only ever counted where its
 * port sends it. The repair pass (plan_repair.c) may move it, or others,
 * later.
 */
static int find_any(struct rp_plan *pl, int fi, const int *upl,
		    const int *dnl, uint32_t p0, const uint16_t *used,
		    int nused)
{
	const struct rp_topo *t = pl->t;
	struct flow *f = &pl->flows[fi];
	struct flow3 *g = pl->f3 ? &pl->f3[fi] : NULL;
	struct scan sc = { .best = -1, .b = { .port = -1 } };
	const long *lp = NULL;
	uint32_t k0 = 0;
	long least;

	rp_walker_flow(pl->walker, fi);
	if (!rp_walk_solved(pl->walker)) {
		/* where ports within T abound, solving costs more */
		if (scan_ports(pl, upl, dnl, p0, used, nused, false, NULL, 0,
			       RP_ANY_FIRST, &sc))
			goto found;
		k0 = RP_ANY_FIRST;
	}
	/* the pair's flows only add to the loads (rp_plan_route_pair()) */
	if (!rp_walk_least_grown(pl->walker, upl, dnl, &least)) {
		lp = &least;
		if ((sc.best >= 0 && sc.best <= least) ||
		    !first_within(pl, upl, dnl,
				  least > pl->T - 1 ? least : pl->T - 1, p0,
				  used, nused, &sc.b))
			goto found;
	}
	if (!scan_ports(pl, upl, dnl, p0, used, nused, false, lp, k0,
			RP_SPORT_COUNT, &sc) && sc.best < 0 &&
	    !scan_ports(pl, upl, dnl, p0, used, nused, true, lp, 0,
			RP_SPORT_COUNT, &sc) && sc.best < 0)
		return -1;
found:
	f->up = sc.b.up;
	f->dn = sc.b.dn;
	f->spine = t->links[sc.b.up].spine;
	if (g) {
		g->uu = sc.b.uu;
		g->ud = sc.b.ud;
		g->super = sc.b.uu >= 0 ? t->ulinks[sc.b.uu].super : -1;
		g->spine2 = sc.b.ud >= 0 ? t->ulinks[sc.b.ud].spine : f->spine;
	}
	return sc.b.port;
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

/* Index of link li in group grp[0..n), or -1. */
static int member_of(const int *grp, int n, int li)
{
	for (int i = 0; i < n; i++)
		if (grp[i] == li)
			return i;
	return -1;
}

/*
 * Links and ports of a pair's flows. grp has room for 3 * gmax link
 * indices: the leaf's group, the spine's and the superspine's.
 */
void rp_port_memo_init(struct rp_port_memo *pm)
{
	for (int i = 0; i < 4; i++) {
		pm->h[i].sw = -1;
		pm->h[i].rows.lh.k = -1;
	}
	pm->sys.n = -1;
}

int rp_plan_route_pair(struct rp_plan *pl, int pi, int *upl, int *dnl,
		       int *grp, int gmax, uint16_t *used,
		       struct rp_port_memo *pm)
{
	const struct rp_topo *t = pl->t;
	struct pair *p = &pl->pairs[pi];
	int ngl = 0, nused = 0, nrsv = 0, gsrc = -1, gdst = -1;
	int *sgrp = grp + gmax, *ugrp = grp + 2 * gmax, cur_s = -1, nsg = 0;
	int cur_u = -1, nug = 0;
	uint32_t p0 = 0;	/* the NICs' first port to try */
	bool routed = pair_routed(p);
	struct hop *h = pm->h;
	int ret;

	if (p->src != p->dst && !routed)
		return 0;
	if (routed) {
		/* three tiers: routes come from rp_plan_route_assign() */
		if (!pl->f3) {
			ret = pair_spines(pl, p);
			if (ret)
				return ret;
		}
		ngl = rp_plan_leaf_group(pl, p->src, p->dst, grp, gmax);
	}
	for (int j = 0; j < p->nf; j++) {
		int fi = pl->order[p->f0 + j];
		struct flow *f = &pl->flows[fi];
		struct flow3 *g = pl->f3 ? &pl->f3[fi] : NULL;
		const struct flow *q = prev_flow(pl, fi);
		const struct flow3 *q3 = q && pl->prev->f3 ?
			&pl->prev->f3[pl->prev_of[fi]] : NULL;
		int nh = 0, port = -1, want_l = -1;
		uint8_t st = ST_NO_PORT;

		if (f->src_nic != gsrc || f->dst_nic != gdst) {
			gsrc = f->src_nic;
			gdst = f->dst_nic;
			p0 = fnv1a(2166136261u, t->nics[gsrc].addr.raw, 16);
			p0 = fnv1a(p0, t->nics[gdst].addr.raw, 16) % 16384;
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
		if (routed) {
			int s = f->spine, s2 = g ? g->spine2 : s;
			int u = g ? g->super : -1, pu, pd, puu = -1, pud = -1;
			struct bundle *ub, *db;

			ub = bget(pl, p->src, s);
			db = bget(pl, p->dst, s2);
			f->up = pick_link(pl, &pl->blinks[ub->l0], ub->n, upl,
					  q ? q->up : -1);
			f->dn = pick_link(pl, &pl->blinks[db->s0], db->n, dnl,
					  q ? q->dn : -1);
			want_l = member_of(grp, ngl < gmax ? ngl : gmax, f->up);
			hop_set(pl, &h[nh++], t->leaf_sw[p->src], f->src_nic,
				f->dst_nic, want_l, ngl, true);
			if (u >= 0) {
				const struct ubundle *a =
					&pl->ubundles[pl->ubidx[(size_t)s * t->nsupers + u]];
				const struct ubundle *b =
					&pl->ubundles[pl->ubidx[(size_t)s2 * t->nsupers + u]];
				g->uu = pick_link(pl, &pl->ublinks[a->l0], a->n,
						  upl + t->nlinks, q3 ? q3->uu : -1);
				g->ud = pick_link(pl, &pl->ublinks[b->s0], b->n,
						  dnl + t->nlinks, q3 ? q3->ud : -1);
				if (s != cur_s) {
					cur_s = s;
					nsg = rp_plan_spine_group(pl, s, p->dst, sgrp,
								  gmax);
				}
				if (u != cur_u) {
					cur_u = u;
					nug = rp_plan_super_group(pl, u, p->dst, ugrp,
								  gmax);
				}
				hop_set(pl, &h[nh++], t->spine_sw[s], f->src_nic,
					f->dst_nic, member_of(sgrp, nsg, g->uu), nsg,
					nsg > 1);
				hop_set(pl, &h[nh++], t->super_sw[u], f->src_nic,
					f->dst_nic, member_of(ugrp, nug, g->ud), nug,
					nug > 1);
				puu = g->uu;
				pud = g->ud;
			}
			hop_set(pl, &h[nh++], t->spine_sw[s2], f->src_nic,
				f->dst_nic, member_of(&pl->blinks[db->s0], db->n,
						      f->dn), db->n, db->n > 1);
			if (t->sw[t->leaf_sw[p->src]].hash.alg == RP_HASH_MEASURED)
				port = rp_plan_probed_port(pl, f, q, used, nused,
							   nrsv, h + 1, nh - 1,
							   &st);
			/* the previous port, if it still takes the planned links */
			else if (q && q->up == f->up && q->dn == f->dn &&
				 (!g || (q3 && q3->uu == g->uu && q3->ud == g->ud)) &&
				 find_port(h, nh, q->sport - RP_SPORT_MIN, used + nrsv,
					   nused - nrsv, false, &pm->sys) == q->sport)
				port = q->sport;
			if (port < 0 && st == ST_NO_PORT)
				port = find_port(h, nh, p0, used, nused, false,
						 &pm->sys);
			if (port < 0 && st == ST_NO_PORT) {
				pu = f->up;
				pd = f->dn;
				port = find_any(pl, fi, upl, dnl, p0, used, nused);
				f->missed = f->up != pu || f->dn != pd ||
					    (g && (g->uu != puu || g->ud != pud));
			}
		} else {
			if (q && find_port(NULL, 0, q->sport - RP_SPORT_MIN,
					   used + nrsv, nused - nrsv, false, NULL) ==
				 q->sport)
				port = q->sport;
			if (port < 0)
				port = find_port(NULL, 0, p0, used, nused, false,
						 NULL);
			if (port < 0)
				port = RP_SPORT_MIN + p0;
		}
		if (port < 0) {
			f->status = st;
			/* another host realises it: its links still count */
			if (st == ST_UNPROBED) {
				upl[f->up]++;
				dnl[f->dn]++;
				if (g && g->uu >= 0) {
					upl[t->nlinks + g->uu]++;
					dnl[t->nlinks + g->ud]++;
				}
			}
			continue;
		}
		f->sport = port;
		f->status = ST_PLACED;
		if (routed) {
			upl[f->up]++;
			dnl[f->dn]++;
			if (g && g->uu >= 0) {
				upl[t->nlinks + g->uu]++;
				dnl[t->nlinks + g->ud]++;
			}
		}
		if (nused < 16384)
			used[nused++] = port;
	}
	return 0;
}
