// SPDX-License-Identifier: GPL-2.0
/*
 * The route planner: flows from the placement, spines assigned so that the
 * most loaded directed fabric link carries the minimum, then for every flow a
 * UDP source port that the switches' modelled hashes send down its links.
 * See Documentation/planner.rst for the algorithm and its bound.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "plan_int.h"

/* Greedy passes (different pair orders) per bound before trying T + 1. */
#define RP_COLOUR_ATTEMPTS	8

enum {
	ST_PLACED,
	ST_NO_PATH,
	ST_FAMILY,
	ST_NO_PORT,
};

struct flow {
	int job, rail, qp;
	int src_nic, dst_nic;
	int pair;		/* -1: not routable (see status) */
	int spine;		/* planned spine, -1 when same leaf */
	int up, dn;		/* planned link indices, -1 when same leaf */
	int e_up, e_dn;		/* ECMP baseline links */
	int s_up, s_dn;		/* destination-slice links */
	uint32_t lqpn, rqpn;	/* ECMP baseline QPNs */
	uint16_t sport, e_sport;
	uint8_t status;
};

struct pair {
	int src, dst;		/* leaves */
	int d;			/* demand (flows) */
	int f0, nf;		/* into plan->order */
	int c0, nc;		/* common spines: plan->cs/x[c0 .. c0+nc) */
};

struct bundle {
	int leaf, spine, n;	/* n up links */
	int l0;			/* plan->blinks[l0..l0+n): by leaf port */
	int s0;			/* plan->blinks[s0..s0+n): by spine port */
};

struct rp_plan {
	const struct rp_topo *t;
	const struct rp_place *p;
	struct rp_topo *own_t;
	struct rp_place *own_p;

	int nflows;
	struct flow *flows;	/* canonical order */
	int *order;		/* flow indices grouped by pair */
	int npairs;
	struct pair *pairs;	/* sorted by (src, dst) */
	int *dst_adj;		/* pair indices sorted by (dst, src) */
	int *porder;		/* pair order of the colouring pass */
	int attempt;		/* colouring pass number (0: by constraint) */
	int *src_p0, *dst_p0;	/* per leaf: first pair (nleaves + 1) */
	int *cs, *x;		/* common spines and counts per pair */

	int nbundles;
	struct bundle *bundles;
	int *bidx;		/* [leaf * nspines + spine] -> bundle or -1 */
	int *blinks;
	int *leaf_l0;		/* per leaf: first link in t->links (+1) */

	int *nic_slot;		/* index of the NIC among its leaf's NICs */

	int *ld[2];		/* [leaf * nspines + spine] loads: 0 up, 1 down */
	int T;

	/* BFS scratch */
	int *stamp[2], *par[2], *exc[2], *lost[2], *queue;
	int cur_stamp;

	struct rp_plan_summary sum;
};

const struct rp_plan_summary *rp_plan_summary(const struct rp_plan *plan)
{
	return &plan->sum;
}

void rp_plan_free(struct rp_plan *pl)
{
	if (!pl)
		return;
	free(pl->flows);
	free(pl->order);
	free(pl->pairs);
	free(pl->dst_adj);
	free(pl->porder);
	free(pl->src_p0);
	free(pl->dst_p0);
	free(pl->cs);
	free(pl->x);
	free(pl->bundles);
	free(pl->bidx);
	free(pl->blinks);
	free(pl->leaf_l0);
	free(pl->nic_slot);
	for (int i = 0; i < 2; i++) {
		free(pl->ld[i]);
		free(pl->stamp[i]);
		free(pl->par[i]);
		free(pl->exc[i]);
		free(pl->lost[i]);
	}
	free(pl->queue);
	rp_place_free(pl->own_p);
	rp_topo_free(pl->own_t);
	free(pl);
}

/* ---- flows ---------------------------------------------------------- */

static int count_flows(const struct rp_place *p, long *n)
{
	long total = 0;

	for (int j = 0; j < p->njobs; j++) {
		const struct rp_job *job = &p->jobs[j];
		long conns;

		if (job->nhosts < 2)
			continue;
		if (job->pattern == RP_PAT_RING)
			conns = job->nhosts == 2 ? 2 : job->nhosts;
		else
			conns = (long)job->nhosts * (job->nhosts - 1);
		total += conns * job->nrails * job->qps;
	}
	if (total > 64L * 1024 * 1024)
		return -E2BIG;
	*n = total;
	return 0;
}

/* Comparators get their context through qsort_r (no globals: reentrant). */
static int cmp_flow(const void *a, const void *b, void *ctx)
{
	const struct flow *x = a, *y = b;
	const struct rp_topo *t = ((const struct rp_plan *)ctx)->t;
	int xs = t->nics[x->src_nic].host, ys = t->nics[y->src_nic].host;
	int xd = t->nics[x->dst_nic].host, yd = t->nics[y->dst_nic].host;

	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	if (x->rail != y->rail)
		return x->rail < y->rail ? -1 : 1;
	if (xs != ys)
		return xs < ys ? -1 : 1;
	if (xd != yd)
		return xd < yd ? -1 : 1;
	return x->qp < y->qp ? -1 : x->qp > y->qp;
}

static void add_conn(struct rp_plan *pl, int j, int rail, int sh, int dh,
		     int *n)
{
	const struct rp_topo *t = pl->t;
	const struct rp_job *job = &pl->p->jobs[j];
	int sn = rp_topo_host_nic(t, sh, rail), dn = rp_topo_host_nic(t, dh, rail);

	for (int q = 0; q < job->qps; q++) {
		struct flow *f = &pl->flows[(*n)++];

		memset(f, 0, sizeof(*f));
		f->job = j;
		f->rail = rail;
		f->qp = q;
		f->src_nic = sn;
		f->dst_nic = dn;
		f->pair = f->spine = f->up = f->dn = -1;
		f->e_up = f->e_dn = f->s_up = f->s_dn = -1;
	}
}

static int make_flows(struct rp_plan *pl)
{
	const struct rp_place *p = pl->p;
	long total;
	int n = 0, ret;

	ret = count_flows(p, &total);
	if (ret)
		return ret;
	pl->flows = calloc(total + 1, sizeof(*pl->flows));
	pl->order = calloc(total + 1, sizeof(int));
	if (!pl->flows || !pl->order)
		return -ENOMEM;
	for (int j = 0; j < p->njobs; j++) {
		const struct rp_job *job = &p->jobs[j];
		int nh = job->nhosts;

		if (nh < 2)
			continue;
		for (int r = 0; r < job->nrails; r++) {
			int rail = job->rails[r];

			if (job->pattern == RP_PAT_RING) {
				for (int i = 0; i < nh; i++)
					add_conn(pl, j, rail, job->hosts[i],
						 job->hosts[(i + 1) % nh], &n);
			} else {
				for (int i = 0; i < nh; i++)
					for (int k = 0; k < nh; k++)
						if (i != k)
							add_conn(pl, j, rail,
								 job->hosts[i],
								 job->hosts[k],
								 &n);
			}
		}
	}
	pl->nflows = n;
	qsort_r(pl->flows, n, sizeof(*pl->flows), cmp_flow, pl);
	return 0;
}

/* ---- fabric ---------------------------------------------------------- */

static int cmp_spine_port(const void *a, const void *b, void *ctx)
{
	const struct rp_topo *t = ctx;
	const struct rp_link *x = &t->links[*(const int *)a];
	const struct rp_link *y = &t->links[*(const int *)b];

	return x->spine_port < y->spine_port ? -1 :
	       x->spine_port > y->spine_port;
}

static int make_bundles(struct rp_plan *pl)
{
	const struct rp_topo *t = pl->t;
	size_t cells = (size_t)t->nleaves * t->nspines;
	int nb = 0, k = 0;

	if (cells > 64u * 1024 * 1024)
		return -E2BIG;
	pl->bidx = malloc((cells + 1) * sizeof(int));
	pl->bundles = calloc(t->nlinks + 1, sizeof(*pl->bundles));
	pl->blinks = calloc(2 * t->nlinks + 1, sizeof(int));
	pl->ld[0] = calloc(cells + 1, sizeof(int));
	pl->ld[1] = calloc(cells + 1, sizeof(int));
	pl->leaf_l0 = calloc(t->nleaves + 2, sizeof(int));
	if (!pl->leaf_l0 || !pl->bidx || !pl->bundles || !pl->blinks || !pl->ld[0] ||
	    !pl->ld[1])
		return -ENOMEM;
	for (size_t i = 0; i < cells; i++)
		pl->bidx[i] = -1;
	/* count up links per (leaf, spine) */
	for (int i = 0; i < t->nlinks; i++) {
		const struct rp_link *l = &t->links[i];
		int *b = &pl->bidx[(size_t)l->leaf * t->nspines + l->spine];

		if (!l->up)
			continue;
		if (*b < 0) {
			*b = nb++;
			pl->bundles[*b].leaf = l->leaf;
			pl->bundles[*b].spine = l->spine;
		}
		pl->bundles[*b].n++;
	}
	pl->nbundles = nb;
	for (int i = 0; i < t->nlinks; i++)
		pl->leaf_l0[t->links[i].leaf + 1]++;
	for (int l = 0; l < t->nleaves; l++)
		pl->leaf_l0[l + 1] += pl->leaf_l0[l];
	for (int b = 0; b < nb; b++) {
		pl->bundles[b].l0 = k;
		pl->bundles[b].s0 = k + pl->bundles[b].n;
		k += 2 * pl->bundles[b].n;
		pl->bundles[b].n = 0;
	}
	/* links are sorted by (leaf, leaf_port): fill in that order */
	for (int i = 0; i < t->nlinks; i++) {
		const struct rp_link *l = &t->links[i];
		struct bundle *b;

		if (!l->up)
			continue;
		b = &pl->bundles[pl->bidx[(size_t)l->leaf * t->nspines +
					  l->spine]];
		pl->blinks[b->l0 + b->n] = i;
		pl->blinks[b->s0 + b->n] = i;
		b->n++;
	}
	for (int b = 0; b < nb; b++)
		qsort_r(&pl->blinks[pl->bundles[b].s0], pl->bundles[b].n,
			sizeof(int), cmp_spine_port, (void *)t);
	return 0;
}

static inline int bcount(const struct rp_plan *pl, int leaf, int spine)
{
	int b = pl->bidx[(size_t)leaf * pl->t->nspines + spine];

	return b < 0 ? 0 : pl->bundles[b].n;
}

static inline struct bundle *bget(const struct rp_plan *pl, int leaf,
				  int spine)
{
	return &pl->bundles[pl->bidx[(size_t)leaf * pl->t->nspines + spine]];
}

/* ---- pairs --------------------------------------------------------- */

static int cmp_order(const void *a, const void *b, void *ctx)
{
	const struct rp_plan *pl = ctx;
	const struct flow *x = &pl->flows[*(const int *)a];
	const struct flow *y = &pl->flows[*(const int *)b];
	const struct rp_nic *xs = &pl->t->nics[x->src_nic];
	const struct rp_nic *ys = &pl->t->nics[y->src_nic];
	const struct rp_nic *xd = &pl->t->nics[x->dst_nic];
	const struct rp_nic *yd = &pl->t->nics[y->dst_nic];

	if (xs->leaf != ys->leaf)
		return xs->leaf < ys->leaf ? -1 : 1;
	if (xd->leaf != yd->leaf)
		return xd->leaf < yd->leaf ? -1 : 1;
	if (x->src_nic != y->src_nic)
		return x->src_nic < y->src_nic ? -1 : 1;
	if (x->dst_nic != y->dst_nic)
		return x->dst_nic < y->dst_nic ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

static int cmp_dst_adj(const void *a, const void *b, void *ctx)
{
	const struct rp_plan *pl = ctx;
	const struct pair *x = &pl->pairs[*(const int *)a];
	const struct pair *y = &pl->pairs[*(const int *)b];

	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

static int make_pairs(struct rp_plan *pl)
{
	const struct rp_topo *t = pl->t;
	int n = 0, np = 0, ncs = 0;

	for (int i = 0; i < pl->nflows; i++) {
		struct flow *f = &pl->flows[i];

		if (t->nics[f->src_nic].addr.family !=
		    t->nics[f->dst_nic].addr.family) {
			f->status = ST_FAMILY;
			continue;
		}
		pl->order[n++] = i;
	}
	qsort_r(pl->order, n, sizeof(int), cmp_order, pl);
	pl->pairs = calloc(n + 1, sizeof(*pl->pairs));
	if (!pl->pairs)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const struct flow *f = &pl->flows[pl->order[i]];
		int sl = t->nics[f->src_nic].leaf, dl = t->nics[f->dst_nic].leaf;
		struct pair *p = np ? &pl->pairs[np - 1] : NULL;

		if (!p || p->src != sl || p->dst != dl) {
			p = &pl->pairs[np++];
			p->src = sl;
			p->dst = dl;
			p->f0 = i;
		}
		p->nf++;
		p->d++;
		pl->flows[pl->order[i]].pair = np - 1;
	}
	pl->npairs = np;
	/* common spines */
	for (int i = 0; i < np; i++) {
		struct pair *p = &pl->pairs[i];

		if (p->src == p->dst)
			continue;
		for (int s = 0; s < t->nspines; s++)
			if (bcount(pl, p->src, s) && bcount(pl, p->dst, s))
				p->nc++;
		p->c0 = ncs;
		ncs += p->nc;
	}
	pl->cs = calloc(ncs + 1, sizeof(int));
	pl->x = calloc(ncs + 1, sizeof(int));
	if (!pl->cs || !pl->x)
		return -ENOMEM;
	for (int i = 0; i < np; i++) {
		struct pair *p = &pl->pairs[i];
		int k = p->c0;

		if (p->src == p->dst)
			continue;
		for (int s = 0; s < t->nspines; s++)
			if (bcount(pl, p->src, s) && bcount(pl, p->dst, s))
				pl->cs[k++] = s;
		if (!p->nc)
			for (int j = 0; j < p->nf; j++) {
				struct flow *f = &pl->flows[pl->order[p->f0 + j]];

				f->status = ST_NO_PATH;
				f->pair = -1;
			}
	}
	/* adjacency per side */
	pl->src_p0 = calloc(t->nleaves + 2, sizeof(int));
	pl->dst_p0 = calloc(t->nleaves + 2, sizeof(int));
	pl->dst_adj = calloc(np + 1, sizeof(int));
	if (!pl->src_p0 || !pl->dst_p0 || !pl->dst_adj)
		return -ENOMEM;
	for (int i = 0; i < np; i++) {
		pl->src_p0[pl->pairs[i].src + 1]++;
		pl->dst_p0[pl->pairs[i].dst + 1]++;
		pl->dst_adj[i] = i;
	}
	for (int l = 0; l < t->nleaves; l++) {
		pl->src_p0[l + 1] += pl->src_p0[l];
		pl->dst_p0[l + 1] += pl->dst_p0[l];
	}
	qsort_r(pl->dst_adj, np, sizeof(int), cmp_dst_adj, pl);
	return 0;
}

/* ---- lower bound ---------------------------------------------------- */

static inline bool pair_routed(const struct pair *p)
{
	return p->src != p->dst && p->nc > 0;
}

static int lower_bound(struct rp_plan *pl)
{
	const struct rp_topo *t = pl->t;
	int *mark = calloc(t->nspines + 1, sizeof(int));
	int lb = 0;

	if (!mark)
		return -ENOMEM;
	for (int side = 0; side < 2; side++) {
		for (int l = 0; l < t->nleaves; l++) {
			int p0 = side ? pl->dst_p0[l] : pl->src_p0[l];
			int p1 = side ? pl->dst_p0[l + 1] : pl->src_p0[l + 1];
			long dem = 0, cap = 0;

			for (int k = p0; k < p1; k++) {
				const struct pair *p = &pl->pairs[side ?
					pl->dst_adj[k] : k];

				if (!pair_routed(p))
					continue;
				dem += p->d;
				for (int c = 0; c < p->nc; c++) {
					int s = pl->cs[p->c0 + c];

					if (mark[s] != l + 1 + side * t->nleaves) {
						mark[s] = l + 1 + side * t->nleaves;
						cap += bcount(pl, l, s);
					}
				}
			}
			if (dem && (dem + cap - 1) / cap > lb)
				lb = (dem + cap - 1) / cap;
		}
		memset(mark, 0, (t->nspines + 1) * sizeof(int));
	}
	for (int i = 0; i < pl->npairs; i++) {
		const struct pair *p = &pl->pairs[i];
		long cap = 0;

		if (!pair_routed(p))
			continue;
		for (int c = 0; c < p->nc; c++) {
			int s = pl->cs[p->c0 + c];
			int a = bcount(pl, p->src, s), b = bcount(pl, p->dst, s);

			cap += a < b ? a : b;
		}
		if ((p->d + cap - 1) / cap > lb)
			lb = (p->d + cap - 1) / cap;
	}
	free(mark);
	return lb;
}

/* ---- spine assignment: capacitated bipartite edge colouring --------- */

/*
 * Side 0 = source leaves (up bundles), side 1 = destination leaves (down
 * bundles). A "colour" is a spine; leaf l may use spine s on side k at most
 * T * c(l, s) times, c = number of up links between them.
 */
static inline int cap(const struct rp_plan *pl, int leaf, int s)
{
	return pl->T * bcount(pl, leaf, s);
}

static inline int *load(const struct rp_plan *pl, int side, int leaf, int s)
{
	return &pl->ld[side][(size_t)leaf * pl->t->nspines + s];
}

static inline int spare(const struct rp_plan *pl, int side, int leaf, int s)
{
	return cap(pl, leaf, s) - *load(pl, side, leaf, s);
}

static int cidx(const struct rp_plan *pl, const struct pair *p, int s)
{
	int lo = 0, hi = p->nc - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2, v = pl->cs[p->c0 + mid];

		if (v == s)
			return mid;
		if (v < s)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static inline int ep(const struct pair *p, int side)
{
	return side ? p->dst : p->src;
}

static void move_unit(struct rp_plan *pl, int pi, int from, int to)
{
	struct pair *p = &pl->pairs[pi];

	pl->x[p->c0 + cidx(pl, p, from)]--;
	pl->x[p->c0 + cidx(pl, p, to)]++;
	(*load(pl, 0, p->src, from))--;
	(*load(pl, 1, p->dst, from))--;
	(*load(pl, 0, p->src, to))++;
	(*load(pl, 1, p->dst, to))++;
}

static void put_unit(struct rp_plan *pl, struct pair *p, int s)
{
	pl->x[p->c0 + cidx(pl, p, s)]++;
	(*load(pl, 0, p->src, s))++;
	(*load(pl, 1, p->dst, s))++;
}

/*
 * Augmenting path for inserting one unit of pair p0 with colour a, when
 * its endpoint v (on side S) is full in a and the other endpoint u has room.
 * Breadth-first over leaves: a leaf w with one unit too many of colour e
 * (and, unless it is v, one unit freed of colour lo) recolours one of its
 * e-units (pair q) to a colour d it has room for (or d == lo); q's other
 * endpoint then has one d too many, unless it has room: the goal. Leaves
 * are visited once, so every leaf's loads are as checked, and the path's
 * inner leaves keep their totals. This generalises Kempe (a/b) chains,
 * which are the case d == lo everywhere.
 */
static bool augment(struct rp_plan *pl, int S, int v, int u, int a)
{
	int qh = 0, qt = 0, goal = -1, gside = -1;
	int st = ++pl->cur_stamp;

	pl->stamp[S][v] = st;
	pl->par[S][v] = -1;
	pl->exc[S][v] = a;
	pl->lost[S][v] = -1;
	pl->stamp[!S][u] = st;		/* u must keep its room for a */
	pl->queue[qt++] = v * 2 + S;
	while (qh < qt && goal < 0) {
		int w = pl->queue[qh] / 2, X = pl->queue[qh] % 2;
		int e = pl->exc[X][w], lo = pl->lost[X][w];
		int p0 = X ? pl->dst_p0[w] : pl->src_p0[w];
		int p1 = X ? pl->dst_p0[w + 1] : pl->src_p0[w + 1];

		qh++;
		for (int k = p0; k < p1 && goal < 0; k++) {
			int pi = X ? pl->dst_adj[k] : k;
			const struct pair *q = &pl->pairs[pi];
			int ci, y = ep(q, !X);

			if (!pair_routed(q) || pl->stamp[!X][y] == st)
				continue;
			ci = cidx(pl, q, e);
			if (ci < 0 || !pl->x[q->c0 + ci])
				continue;
			/* a colour that ends the path at y, else any */
			for (int c = 0, pick = -1; c <= q->nc; c++) {
				int d = c < q->nc ? pl->cs[q->c0 + c] : pick;

				if (d < 0)
					break;
				if (c < q->nc &&
				    (d == e || (d != lo && spare(pl, X, w, d) <= 0)))
					continue;
				if (c < q->nc && spare(pl, !X, y, d) <= 0) {
					if (pick < 0)
						pick = d;
					continue;
				}
				pl->stamp[!X][y] = st;
				pl->par[!X][y] = pi;
				pl->exc[!X][y] = d;
				pl->lost[!X][y] = e;
				if (c < q->nc) {
					goal = y;
					gside = !X;
				} else {
					pl->queue[qt++] = y * 2 + !X;
				}
				break;
			}
		}
	}
	if (goal < 0)
		return false;
	/* walk back to v, recolouring each pair's unit lost -> exc */
	while (!(goal == v && gside == S)) {
		int pi = pl->par[gside][goal];

		move_unit(pl, pi, pl->lost[gside][goal], pl->exc[gside][goal]);
		goal = ep(&pl->pairs[pi], !gside);
		gside = !gside;
	}
	return true;
}

static bool repair(struct rp_plan *pl, struct pair *p)
{
	for (int side = 1; side >= 0; side--) {
		int v = ep(p, side), u = ep(p, !side);

		for (int i = 0; i < p->nc; i++) {
			int a = pl->cs[p->c0 + i];

			if (spare(pl, !side, u, a) <= 0)
				continue;
			if (augment(pl, side, v, u, a)) {
				put_unit(pl, p, a);
				return true;
			}
		}
	}
	return false;
}

static uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7FEB352Du;
	x ^= x >> 15;
	x *= 0x846CA68Bu;
	return x ^ (x >> 16);
}


/*
 * Pair order for the greedy pass. Attempt 0: most constrained first (fewest
 * common spines, then largest demand); later attempts: a deterministic
 * pseudo-random order.
 */
static int cmp_porder(const void *a, const void *b, void *ctx)
{
	const struct rp_plan *pl = ctx;
	int order_attempt = pl->attempt;
	int i = *(const int *)a, k = *(const int *)b;
	const struct pair *x = &pl->pairs[i], *y = &pl->pairs[k];

	if (order_attempt) {
		uint32_t hx = mix32(i * 0x9E3779B9u + order_attempt);
		uint32_t hy = mix32(k * 0x9E3779B9u + order_attempt);

		if (hx != hy)
			return hx < hy ? -1 : 1;
		return i - k;
	}
	if (x->nc != y->nc)
		return x->nc < y->nc ? -1 : 1;
	if (x->d != y->d)
		return x->d > y->d ? -1 : 1;
	return i - k;
}

static int colour(struct rp_plan *pl, int T, int attempt)
{
	const struct rp_topo *t = pl->t;
	size_t cells = (size_t)t->nleaves * t->nspines;

	for (int i = 0; i < pl->npairs; i++)
		pl->porder[i] = i;
	pl->attempt = attempt;
	qsort_r(pl->porder, pl->npairs, sizeof(int), cmp_porder, pl);

	pl->T = T;
	memset(pl->ld[0], 0, cells * sizeof(int));
	memset(pl->ld[1], 0, cells * sizeof(int));
	for (int i = 0; i < pl->npairs; i++)
		memset(&pl->x[pl->pairs[i].c0], 0,
		       pl->pairs[i].nc * sizeof(int));
	for (int i = 0; i < pl->npairs; i++) {
		struct pair *p = &pl->pairs[pl->porder[i]];

		if (!pair_routed(p))
			continue;
		for (int u = 0; u < p->d; u++) {
			int best = -1, bm = 0, bsum = 0;

			for (int c = 0; c < p->nc; c++) {
				int s = pl->cs[p->c0 + c];
				int su = spare(pl, 0, p->src, s);
				int sd = spare(pl, 1, p->dst, s);
				int m = su < sd ? su : sd;

				if (m > bm || (m == bm && m > 0 &&
					       su + sd > bsum)) {
					best = s;
					bm = m;
					bsum = su + sd;
				}
			}
			if (best >= 0)
				put_unit(pl, p, best);
			else if (!repair(pl, p))
				return -EAGAIN;
		}
	}
	return 0;
}

/* ---- links and ports ------------------------------------------------ */

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
static int leaf_group(const struct rp_plan *pl, int leaf, int dst, int *grp,
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

static int route_pair(struct rp_plan *pl, int pi, int *upl, int *dnl,
		      int *grp, int gmax, uint16_t *used)
{
	const struct rp_topo *t = pl->t;
	struct pair *p = &pl->pairs[pi];
	int *rem = NULL, ngl = 0, cur = 0, nused = 0, gsrc = -1, gdst = -1;
	bool routed = pair_routed(p);

	if (p->src != p->dst && !routed)
		return 0;
	if (routed) {
		rem = malloc(p->nc * sizeof(int));
		if (!rem)
			return -ENOMEM;
		memcpy(rem, &pl->x[p->c0], p->nc * sizeof(int));
		ngl = leaf_group(pl, p->src, p->dst, grp, gmax);
	}
	for (int j = 0; j < p->nf; j++) {
		struct flow *f = &pl->flows[pl->order[p->f0 + j]];
		const struct rp_nic *sn = &t->nics[f->src_nic];
		const struct rp_nic *dn = &t->nics[f->dst_nic];
		struct rp_hash_ctx lc, sc;
		int want_l = -1, want_s = 0, ngs = 1, port;
		uint32_t p0;

		if (f->src_nic != gsrc || f->dst_nic != gdst) {
			gsrc = f->src_nic;
			gdst = f->dst_nic;
			nused = 0;
		}
		p0 = fnv1a(2166136261u, sn->addr.b, 16);
		p0 = fnv1a(p0, dn->addr.b, 16) % 16384;
		if (routed) {
			struct bundle *ub, *db;
			int s;

			/* spread the flows of a pair round-robin over spines */
			while (!rem[cur % p->nc])
				cur++;
			s = pl->cs[p->c0 + cur % p->nc];
			rem[cur % p->nc]--;
			cur++;
			ub = bget(pl, p->src, s);
			db = bget(pl, p->dst, s);
			f->spine = s;
			f->up = pick_least(pl, &pl->blinks[ub->l0], ub->n, upl);
			f->dn = pick_least(pl, &pl->blinks[db->s0], db->n, dnl);
			for (int i = 0; i < ngl && i < gmax; i++)
				if (grp[i] == f->up)
					want_l = i;
			ngs = db->n;
			for (int i = 0; i < db->n; i++)
				if (pl->blinks[db->s0 + i] == f->dn)
					want_s = i;
			rp_hash_ctx_init(&lc, &t->sw[t->leaf_sw[p->src]].hash,
					 &sn->addr, &dn->addr);
			rp_hash_ctx_init(&sc, &t->sw[t->spine_sw[s]].hash,
					 &sn->addr, &dn->addr);
			port = find_port(&lc, want_l, ngl, &sc, want_s, ngs, p0,
					 used, nused, false);
			if (port < 0)
				port = find_any(pl, f, &lc, grp, ngl, &sc, db,
						upl, dnl, p0, used, nused);
		} else {
			port = find_port(NULL, 0, 1, NULL, 0, 1, p0, used,
					 nused, false);
			if (port < 0)
				port = RP_SPORT_MIN + p0;
		}
		if (port < 0 || (routed && want_l < 0)) {
			f->status = ST_NO_PORT;
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
	free(rem);
	return 0;
}

/* ---- baselines ------------------------------------------------------ */

/*
 * Default QPNs as rxe allocates them on freshly loaded devices: every NIC
 * numbers its QPs 17, 18, ... (RXE_MIN_QP_INDEX 16 is taken by the GSI
 * QP); the QPs of each connection are created in canonical flow order, the
 * sender's and the receiver's side at once.
 */
static int assign_qpns(struct rp_plan *pl)
{
	uint32_t *next = malloc((pl->t->nnics + 1) * sizeof(*next));

	if (!next)
		return -ENOMEM;
	for (int i = 0; i < pl->t->nnics; i++)
		next[i] = RP_QPN_FIRST;
	for (int i = 0; i < pl->nflows; i++) {
		struct flow *f = &pl->flows[i];

		f->lqpn = next[f->src_nic]++;
		f->rqpn = next[f->dst_nic]++;
		f->e_sport = rp_qpn_sport(f->lqpn, f->rqpn);
	}
	free(next);
	return 0;
}

static void baselines(struct rp_plan *pl, int *grp, int gmax)
{
	const struct rp_topo *t = pl->t;

	for (int i = 0; i < pl->npairs; i++) {
		struct pair *p = &pl->pairs[i];
		int ngl, nall, l0;

		if (!pair_routed(p))
			continue;
		ngl = leaf_group(pl, p->src, p->dst, grp, gmax);
		l0 = pl->leaf_l0[p->src];
		nall = pl->leaf_l0[p->src + 1] - l0;
		for (int j = 0; j < p->nf; j++) {
			struct flow *f = &pl->flows[pl->order[p->f0 + j]];
			const struct rp_nic *sn = &t->nics[f->src_nic];
			const struct rp_nic *dn = &t->nics[f->dst_nic];
			int m, s, slot, pick = -1;
			struct bundle *db;

			m = rp_hash_member(&t->sw[t->leaf_sw[p->src]].hash,
					   &sn->addr, &dn->addr, f->e_sport,
					   ngl);
			if (m < 0)
				m = 0;
			f->e_up = grp[m];
			s = t->links[f->e_up].spine;
			db = bget(pl, p->dst, s);
			m = rp_hash_member(&t->sw[t->spine_sw[s]].hash,
					   &sn->addr, &dn->addr, f->e_sport,
					   db->n);
			if (m < 0)
				m = 0;
			f->e_dn = pl->blinks[db->s0 + m];

			/* destination slice: uplink = slot of the dst NIC */
			slot = pl->nic_slot[f->dst_nic];
			for (int k = 0; k < nall; k++) {
				const struct rp_link *l =
					&t->links[l0 + (slot + k) % nall];

				if (l->up && bcount(pl, p->dst, l->spine)) {
					pick = l0 + (slot + k) % nall;
					break;
				}
			}
			f->s_up = pick;
			s = t->links[pick].spine;
			db = bget(pl, p->dst, s);
			f->s_dn = pl->blinks[db->s0 + slot % db->n];
		}
	}
}

static unsigned int max_load(const struct rp_plan *pl, int mode, int *upl,
			     int *dnl)
{
	unsigned int mx = 0;

	memset(upl, 0, pl->t->nlinks * sizeof(int));
	memset(dnl, 0, pl->t->nlinks * sizeof(int));
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];
		int u = mode == RP_MODE_PLAN ? f->up :
			mode == RP_MODE_ECMP ? f->e_up : f->s_up;
		int d = mode == RP_MODE_PLAN ? f->dn :
			mode == RP_MODE_ECMP ? f->e_dn : f->s_dn;

		if (mode == RP_MODE_PLAN && f->status != ST_PLACED)
			continue;
		if (u >= 0 && (unsigned int)++upl[u] > mx)
			mx = upl[u];
		if (d >= 0 && (unsigned int)++dnl[d] > mx)
			mx = dnl[d];
	}
	return mx;
}

/* ---- compute -------------------------------------------------------- */

int rp_plan_compute(const struct rp_topo *t, const struct rp_place *p,
		    struct rp_plan **out, struct rp_err *err)
{
	int *upl = NULL, *dnl = NULL, *grp = NULL, *cnt = NULL;
	uint16_t *used = NULL;
	struct rp_plan *pl;
	int ret, lb, T, gmax;

	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	pl->t = t;
	pl->p = p;
	ret = make_flows(pl);
	if (!ret)
		ret = make_bundles(pl);
	if (!ret)
		ret = make_pairs(pl);
	if (ret)
		goto fail;
	ret = -ENOMEM;
	gmax = t->nlinks + 1;
	upl = calloc(t->nlinks + 1, sizeof(int));
	dnl = calloc(t->nlinks + 1, sizeof(int));
	grp = calloc(gmax, sizeof(int));
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

	ret = lb = lower_bound(pl);
	if (ret < 0)
		goto fail;
	/* smallest T >= lb for which the colouring succeeds */
	pl->porder = calloc(pl->npairs + 1, sizeof(int));
	if (!pl->porder) {
		ret = -ENOMEM;
		goto fail;
	}
	for (T = lb > 0 ? lb : 1;; T++) {
		for (int attempt = 0; attempt < RP_COLOUR_ATTEMPTS; attempt++) {
			ret = colour(pl, T, attempt);
			if (ret != -EAGAIN)
				break;
		}
		if (!ret)
			break;
		if (ret != -EAGAIN)
			goto fail;
	}
	for (int i = 0; i < pl->npairs; i++) {
		ret = route_pair(pl, i, upl, dnl, grp, gmax, used);
		if (ret)
			goto fail;
	}
	ret = assign_qpns(pl);
	if (ret)
		goto fail;
	baselines(pl, grp, gmax);

	for (int i = 0; i < pl->nflows; i++)
		if (pl->flows[i].status == ST_PLACED)
			pl->sum.flows++;
		else
			pl->sum.unplaced++;
	pl->sum.lower_bound = lb;
	pl->sum.max_link_flows = max_load(pl, RP_MODE_PLAN, upl, dnl);
	pl->sum.ecmp_max_link_flows = max_load(pl, RP_MODE_ECMP, upl, dnl);
	pl->sum.slice_max_link_flows = max_load(pl, RP_MODE_SLICE, upl, dnl);
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
	rp_plan_free(pl);
	return ret;
}

int rp_plan_from_files(const char *topo_path, const char *place_path,
		       struct rp_plan **out, struct rp_err *err)
{
	struct rp_place *p = NULL;
	struct rp_topo *t = NULL;
	int ret;

	ret = rp_topo_load(topo_path, &t, err);
	if (!ret)
		ret = rp_place_load(place_path, t, &p, err);
	if (!ret)
		ret = rp_plan_compute(t, p, out, err);
	if (ret) {
		rp_place_free(p);
		rp_topo_free(t);
		return ret;
	}
	(*out)->own_t = t;
	(*out)->own_p = p;
	return 0;
}

/* ---- output --------------------------------------------------------- */

static const char *const status_reason[] = {
	[ST_PLACED] = "placed",
	[ST_NO_PATH] = "no path between the leaves over up links",
	[ST_FAMILY] = "source and destination address families differ",
	[ST_NO_PORT] = "no source port hashes onto the assigned links",
};

static json_object *jstr(const char *s)
{
	return json_object_new_string(s);
}

static void flow_common(const struct rp_plan *pl, const struct flow *f,
			json_object *o)
{
	const struct rp_topo *t = pl->t;
	const struct rp_nic *sn = &t->nics[f->src_nic];
	const struct rp_nic *dn = &t->nics[f->dst_nic];

	json_object_object_add(o, "job", jstr(pl->p->jobs[f->job].id));
	json_object_object_add(o, "src_host", jstr(t->hosts[sn->host].name));
	json_object_object_add(o, "src_ip", jstr(sn->ip));
	json_object_object_add(o, "dst_host", jstr(t->hosts[dn->host].name));
	json_object_object_add(o, "dst_ip", jstr(dn->ip));
	json_object_object_add(o, "rail", json_object_new_int(f->rail));
	json_object_object_add(o, "qp", json_object_new_int(f->qp));
}

static json_object *flow_json(const struct rp_plan *pl, const struct flow *f)
{
	const struct rp_topo *t = pl->t;
	const struct rp_nic *sn = &t->nics[f->src_nic];
	const struct rp_nic *dn = &t->nics[f->dst_nic];
	json_object *o = json_object_new_object();
	json_object *path = json_object_new_array();
	json_object *eg = json_object_new_array();

	flow_common(pl, f, o);
	json_object_object_add(o, "sport", json_object_new_int(f->sport));
	json_object_array_add(path, jstr(rp_leaf_name(t, sn->leaf)));
	if (f->up >= 0) {
		json_object_array_add(path, jstr(rp_spine_name(t, f->spine)));
		json_object_array_add(path, jstr(rp_leaf_name(t, dn->leaf)));
		json_object_array_add(eg, json_object_new_int(
				t->links[f->up].leaf_port));
		json_object_array_add(eg, json_object_new_int(
				t->links[f->dn].spine_port));
	}
	json_object_object_add(o, "path", path);
	json_object_object_add(o, "egress_ports", eg);
	json_object_object_add(o, "ecmp_sport",
			       json_object_new_int(f->e_sport));
	json_object_object_add(o, "ecmp_lqpn", json_object_new_int(f->lqpn));
	json_object_object_add(o, "ecmp_rqpn", json_object_new_int(f->rqpn));
	return o;
}

int rp_plan_to_json(const struct rp_plan *pl, const char *host,
		    json_object **out)
{
	const struct rp_topo *t = pl->t;
	json_object *o, *flows, *un, *links, *sum;
	int *upl, *dnl, h = -1;

	if (host) {
		h = rp_topo_find_host(t, host);
		if (h < 0)
			return -ENOENT;
	}
	upl = calloc(t->nlinks + 1, sizeof(int));
	dnl = calloc(t->nlinks + 1, sizeof(int));
	if (!upl || !dnl) {
		free(upl);
		free(dnl);
		return -ENOMEM;
	}
	max_load(pl, RP_MODE_PLAN, upl, dnl);
	o = json_object_new_object();
	flows = json_object_new_array_ext(pl->sum.flows);
	un = json_object_new_array();
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];

		if (h >= 0 && t->nics[f->src_nic].host != h)
			continue;
		if (f->status == ST_PLACED) {
			json_object_array_add(flows, flow_json(pl, f));
		} else {
			json_object *u = json_object_new_object();

			flow_common(pl, f, u);
			json_object_object_add(u, "reason",
					       jstr(status_reason[f->status]));
			json_object_array_add(un, u);
		}
	}
	json_object_object_add(o, "flows", flows);
	json_object_object_add(o, "unplaced", un);
	links = json_object_new_array_ext(2 * t->nlinks);
	for (int i = 0; i < t->nlinks; i++) {
		const struct rp_link *l = &t->links[i];

		if (!l->up)
			continue;
		for (int dir = 0; dir < 2; dir++) {
			json_object *k = json_object_new_object();
			const char *ln = rp_leaf_name(t, l->leaf);
			const char *sn = rp_spine_name(t, l->spine);

			json_object_object_add(k, "from", jstr(dir ? sn : ln));
			json_object_object_add(k, "from_port",
				json_object_new_int(dir ? l->spine_port :
						    l->leaf_port));
			json_object_object_add(k, "to", jstr(dir ? ln : sn));
			json_object_object_add(k, "to_port",
				json_object_new_int(dir ? l->leaf_port :
						    l->spine_port));
			json_object_object_add(k, "flows",
				json_object_new_int(dir ? dnl[i] : upl[i]));
			json_object_array_add(links, k);
		}
	}
	json_object_object_add(o, "links", links);
	sum = json_object_new_object();
	json_object_object_add(sum, "flows", json_object_new_int(pl->sum.flows));
	json_object_object_add(sum, "unplaced",
			       json_object_new_int(pl->sum.unplaced));
	json_object_object_add(sum, "max_link_flows",
			       json_object_new_int(pl->sum.max_link_flows));
	json_object_object_add(sum, "lower_bound",
			       json_object_new_int(pl->sum.lower_bound));
	json_object_object_add(sum, "ecmp_max_link_flows",
			       json_object_new_int(pl->sum.ecmp_max_link_flows));
	json_object_object_add(sum, "ecmp_qpns",
		jstr("rxe-sequential: each NIC numbers its QPs from 17 in flow order, both ends of a connection at once; sport = rdma_flow_label_to_udp_sport(rdma_calc_flow_label(lqpn, rqpn))"));
	json_object_object_add(sum, "slice_max_link_flows",
			       json_object_new_int(pl->sum.slice_max_link_flows));
	json_object_object_add(o, "summary", sum);
	free(upl);
	free(dnl);
	*out = o;
	return 0;
}

static int cmp_pin_flow(const void *a, const void *b, void *ctx)
{
	const struct rp_topo *pin_t = ctx;
	const struct flow *x = *(const struct flow *const *)a;
	const struct flow *y = *(const struct flow *const *)b;
	const struct rp_ipaddr *xa = &pin_t->nics[x->dst_nic].addr;
	const struct rp_ipaddr *ya = &pin_t->nics[y->dst_nic].addr;
	int r;

	if (xa->family != ya->family)
		return xa->family < ya->family ? -1 : 1;
	r = memcmp(xa->b, ya->b, 16);
	if (r)
		return r;
	return x->sport < y->sport ? -1 : x->sport > y->sport;
}

int rp_plan_host_pins(const struct rp_plan *pl, const char *host,
		      json_object **pins)
{
	const struct rp_topo *t = pl->t;
	const struct flow **v;
	json_object *arr, *cur = NULL, *sp = NULL;
	int h, n = 0, last_dst = -1, last_port = -1;

	h = rp_topo_find_host(t, host);
	if (h < 0)
		return -ENOENT;
	v = calloc(pl->nflows + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < pl->nflows; i++)
		if (pl->flows[i].status == ST_PLACED &&
		    t->nics[pl->flows[i].src_nic].host == h)
			v[n++] = &pl->flows[i];
	qsort_r(v, n, sizeof(*v), cmp_pin_flow, (void *)t);
	arr = json_object_new_array();
	for (int i = 0; i < n; i++) {
		const struct rp_nic *dn = &t->nics[v[i]->dst_nic];

		if (!cur || memcmp(&t->nics[last_dst].addr, &dn->addr,
				   sizeof(dn->addr))) {
			cur = json_object_new_object();
			sp = json_object_new_array();
			json_object_object_add(cur, "dev", NULL);
			json_object_object_add(cur, "remote", jstr(dn->ip));
			json_object_object_add(cur, "sports", sp);
			json_object_object_add(cur, "rqpn", NULL);
			json_object_object_add(cur, "lqpn", NULL);
			json_object_array_add(arr, cur);
			last_dst = v[i]->dst_nic;
			last_port = -1;
		}
		if (v[i]->sport != last_port)
			json_object_array_add(sp,
				json_object_new_int(v[i]->sport));
		last_port = v[i]->sport;
	}
	free(v);
	*pins = arr;
	return 0;
}

/* ---- max-min fair completion time ----------------------------------- */

int rp_plan_fair_time(const struct rp_plan *pl, enum rp_plan_mode mode,
		      double link_gbps, double bytes_per_conn, double *seconds)
{
	const struct rp_topo *t = pl->t;
	int nl = 2 * t->nlinks + 2 * t->nnics, nf = pl->nflows;
	int *fl = NULL, *l0 = NULL, *lf = NULL, *nact = NULL;
	double *rem = NULL, *rate = NULL, worst = 0;
	int ret = -ENOMEM, left = 0;

	fl = malloc((size_t)nf * 4 * sizeof(int) + 1);
	l0 = calloc(nl + 2, sizeof(int));
	nact = calloc(nl + 1, sizeof(int));
	rem = malloc((nl + 1) * sizeof(double));
	rate = calloc(nf + 1, sizeof(double));
	if (!fl || !l0 || !nact || !rem || !rate)
		goto out;
	/* each flow crosses: src NIC tx, [up, down], dst NIC rx */
	for (int i = 0; i < nf; i++) {
		const struct flow *f = &pl->flows[i];
		int *k = &fl[4 * i];
		int u = mode == RP_MODE_PLAN ? f->up :
			mode == RP_MODE_ECMP ? f->e_up : f->s_up;
		int d = mode == RP_MODE_PLAN ? f->dn :
			mode == RP_MODE_ECMP ? f->e_dn : f->s_dn;
		bool ok = mode == RP_MODE_PLAN ? f->status == ST_PLACED :
			  (f->status == ST_PLACED || f->status == ST_NO_PORT);

		k[0] = k[1] = k[2] = k[3] = -1;
		if (!ok) {
			rate[i] = -1;
			continue;
		}
		k[0] = 2 * t->nlinks + f->src_nic;
		k[1] = u;
		k[2] = d >= 0 ? t->nlinks + d : -1;
		k[3] = 2 * t->nlinks + t->nnics + f->dst_nic;
		for (int j = 0; j < 4; j++)
			if (k[j] >= 0)
				l0[k[j] + 1]++;
		left++;
	}
	for (int l = 0; l < nl; l++) {
		nact[l] = l0[l + 1];
		l0[l + 1] += l0[l];
		rem[l] = link_gbps;
	}
	lf = malloc((size_t)l0[nl] * sizeof(int) + 1);
	if (!lf)
		goto out;
	{
		int *pos = calloc(nl + 1, sizeof(int));

		if (!pos)
			goto out;
		for (int i = 0; i < nf; i++)
			for (int j = 0; j < 4; j++) {
				int l = fl[4 * i + j];

				if (l >= 0)
					lf[l0[l] + pos[l]++] = i;
			}
		free(pos);
	}
	/* progressive filling */
	while (left > 0) {
		double m = 1e300;

		for (int l = 0; l < nl; l++)
			if (nact[l] && rem[l] / nact[l] < m)
				m = rem[l] / nact[l];
		for (int l = 0; l < nl; l++) {
			if (!nact[l] || rem[l] / nact[l] > m * (1 + 1e-9))
				continue;
			for (int k = l0[l]; k < l0[l + 1]; k++) {
				int i = lf[k];

				if (rate[i] != 0)
					continue;
				rate[i] = m;
				left--;
				for (int j = 0; j < 4; j++) {
					int x = fl[4 * i + j];

					if (x >= 0) {
						rem[x] -= m;
						nact[x]--;
					}
				}
			}
		}
	}
	for (int i = 0; i < nf; i++) {
		const struct flow *f = &pl->flows[i];
		double bytes, tm;

		if (rate[i] <= 0)
			continue;
		bytes = bytes_per_conn / pl->p->jobs[f->job].qps;
		tm = bytes * 8 / (rate[i] * 1e9);
		if (tm > worst)
			worst = tm;
	}
	*seconds = worst;
	ret = 0;
out:
	free(fl);
	free(l0);
	free(lf);
	free(nact);
	free(rem);
	free(rate);
	return ret;
}
