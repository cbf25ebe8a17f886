// SPDX-License-Identifier: GPL-2.0
/*
 * Where a source port really goes: a flow's port walked hop by hop through
 * each switch's hash model and ECMP group toward the destination leaf
 * (planner.rst, "Hash model"), and the distinct paths that some port of
 * the flow reaches. The port search's fallback and the repair pass
 * (plan_repair.c) work on these paths, so that a flow is only ever counted
 * on the links its port takes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan_lsys.h"
#include "plan_model.h"

/* One switch's hop toward the walker's destination, built on first use. */
struct rp_hopc {
	int gen;		/* valid when == walker gen */
	int n, off;		/* group size; its links at grp + off */
	struct rp_hash_ctx c;
	int lgen;		/* lm valid when == walker gen */
	struct lhop_memo lm;	/* the members as equations */
};

struct rp_walker {
	const struct rp_plan *pl;
	int gen, src_nic, dst_nic, dst;
	bool far;
	const struct rp_addr *sa, *da;
	int nleaf, *lgrp;	/* the source leaf's group (t->links) */
	struct rp_hash_ctx lc;
	struct rp_hopc *sp, *su, *sl;	/* per spine up, super, last spine */
	int *sgrp, *ugrp;	/* spine and superspine groups (t->ulinks) */
	/* distinct paths of rp_walk_paths(): open addressing on the path */
	int *hkey, *hstamp, hgen;
	struct rp_path *paths;
	/* every port's walk since the aim last changed (valid: mstamp == gen) */
	int *mstamp;
	struct rp_path *memo;	/* .port -1: the port goes nowhere */
	/* rp_walk_least(): the paths, solved (valid: lpgen == gen) */
	int lpgen, nlp;		/* nlp -1: a hop is not solvable */
	struct rp_path *lp;
	struct lsys *lps;	/* each path's ports, as a system */
	/* rp_walk_least_grown(): the last least, on path lsi, in loads l* */
	int lsgen, lsi;
	long lsv;
	const int *lsupl, *lsdnl;
	uint32_t *skey;		/* rp_walk_paths(): first port << 14 | path */
	uint32_t *stmp;		/* sort_keys()'s other half */
	struct lsym t0, t1, t2, t3;	/* lin_paths(): per tier, members open */
};

#define RP_WALK_HASH	32768	/* > distinct paths (<= 16384 ports) */

void rp_walker_free(struct rp_walker *w)
{
	if (!w)
		return;
	free(w->lgrp);
	free(w->sp);
	free(w->su);
	free(w->sl);
	free(w->sgrp);
	free(w->ugrp);
	free(w->hkey);
	free(w->hstamp);
	free(w->paths);
	free(w->mstamp);
	free(w->memo);
	free(w->lp);
	free(w->lps);
	free(w->skey);
	free(w->stmp);
	free(w);
}

int rp_walker_new(const struct rp_plan *pl, struct rp_walker **out)
{
	const struct rp_topo *t = pl->t;
	struct rp_walker *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->pl = pl;
	w->lgrp = calloc(t->nlinks + 1, sizeof(int));
	w->sp = calloc(t->nspines + 1, sizeof(*w->sp));
	w->sl = calloc(t->nspines + 1, sizeof(*w->sl));
	w->su = calloc(t->nsupers + 1, sizeof(*w->su));
	w->sgrp = calloc(t->nulinks + 1, sizeof(int));
	w->ugrp = calloc(t->nulinks + 1, sizeof(int));
	w->hkey = calloc(RP_WALK_HASH, sizeof(int));
	w->hstamp = calloc(RP_WALK_HASH, sizeof(int));
	w->paths = calloc(RP_SPORT_COUNT, sizeof(*w->paths));
	w->mstamp = calloc(RP_SPORT_COUNT, sizeof(int));
	w->memo = calloc(RP_SPORT_COUNT, sizeof(*w->memo));
	w->lp = calloc(RP_SPORT_COUNT, sizeof(*w->lp));
	w->lps = calloc(RP_SPORT_COUNT, sizeof(*w->lps));
	w->skey = calloc(RP_SPORT_COUNT, sizeof(*w->skey));
	w->stmp = calloc(RP_SPORT_COUNT, sizeof(*w->stmp));
	w->src_nic = w->dst_nic = -1;
	if (!w->lgrp || !w->sp || !w->sl || !w->su || !w->sgrp || !w->ugrp ||
	    !w->hkey || !w->hstamp || !w->paths || !w->mstamp || !w->memo ||
	    !w->lp || !w->lps || !w->skey || !w->stmp) {
		rp_walker_free(w);
		return -ENOMEM;
	}
	*out = w;
	return 0;
}

/*
 * Points the walker at flow fi (routed: its pair has a path). Where a port
 * goes depends only on the two NICs (their addresses and leaves), so the
 * QPs of one connection share the walks: a flow of the NICs already aimed
 * at keeps the walker's state, and the ports walked stay remembered. The
 * port fallback and the repair take the QPs of a connection in a row, and
 * on correlated hashes every one of them walks all 16,384 ports.
 */
void rp_walker_flow(struct rp_walker *w, int fi)
{
	const struct rp_plan *pl = w->pl;
	const struct rp_topo *t = pl->t;
	const struct flow *f = &pl->flows[fi];
	const struct pair *p = &pl->pairs[f->pair];

	if (f->src_nic == w->src_nic && f->dst_nic == w->dst_nic)
		return;
	w->gen++;
	w->src_nic = f->src_nic;
	w->dst_nic = f->dst_nic;
	w->dst = p->dst;
	w->far = p->xpod;
	w->sa = &t->nics[f->src_nic].addr;
	w->da = &t->nics[f->dst_nic].addr;
	w->nleaf = rp_plan_leaf_group(pl, p->src, p->dst, w->lgrp, t->nlinks);
	rp_hash_ctx_init(&w->lc, &t->sw[t->leaf_sw[p->src]].hash, w->sa, w->da,
			 (struct rp_hash_lin *)&pl->lin);
}

static struct rp_hopc *hop_build(struct rp_walker *w, struct rp_hopc *h,
				 int sw, int kind)
{
	const struct rp_plan *pl = w->pl;
	const struct rp_topo *t = pl->t;
	const struct rp_hash_model *m;

	h->gen = w->gen;
	if (kind == 0) {	/* spine, up to the superspines */
		h->off = pl->spine_u0[sw];
		h->n = rp_plan_spine_group(pl, sw, w->dst, w->sgrp + h->off,
					   pl->spine_u0[sw + 1] - h->off);
		m = &t->sw[t->spine_sw[sw]].hash;
	} else if (kind == 1) {	/* superspine, down */
		h->off = pl->super_u0[sw];
		h->n = rp_plan_super_group(pl, sw, w->dst, w->ugrp + h->off,
					   pl->super_u0[sw + 1] - h->off);
		m = &t->sw[t->super_sw[sw]].hash;
	} else {		/* last spine, down to the leaf */
		h->off = 0;
		h->n = bcount(pl, w->dst, sw);
		m = &t->sw[t->spine_sw[sw]].hash;
	}
	if (h->n > 1)
		rp_hash_ctx_init(&h->c, m, w->sa, w->da,
				 (struct rp_hash_lin *)&pl->lin);
	return h;
}

/* Every port's walk asks for its hops: the built case stays inline. */
static inline struct rp_hopc *hop_get(struct rp_walker *w, struct rp_hopc *h,
				      int sw, int kind)
{
	return h->gen == w->gen ? h : hop_build(w, h, sw, kind);
}

/* Member of a hop's group for port (0 without a choice), or -1. */
static int hop_member(struct rp_hopc *h, uint16_t port)
{
	if (h->n <= 0)
		return -1;
	return h->n > 1 ? rp_hash_ctx_member(&h->c, port, h->n) : 0;
}

/* rp_walk_port() without the memo. */
static int walk(struct rp_walker *w, uint16_t port, struct rp_path *out)
{
	const struct rp_plan *pl = w->pl;
	const struct rp_topo *t = pl->t;
	const struct bundle *db;
	struct rp_hopc *h;
	int m, s, s2;

	if (w->nleaf <= 0)
		return -1;
	m = rp_hash_ctx_member(&w->lc, port, w->nleaf);
	if (m < 0)
		return -1;
	out->up = w->lgrp[m];
	s = s2 = t->links[out->up].spine;
	out->uu = out->ud = -1;
	if (w->far) {
		h = hop_get(w, &w->sp[s], s, 0);
		m = hop_member(h, port);
		if (m < 0)
			return -1;
		out->uu = w->sgrp[h->off + m];
		h = hop_get(w, &w->su[t->ulinks[out->uu].super],
			    t->ulinks[out->uu].super, 1);
		m = hop_member(h, port);
		if (m < 0)
			return -1;
		out->ud = w->ugrp[h->off + m];
		s2 = t->ulinks[out->ud].spine;
	}
	h = hop_get(w, &w->sl[s2], s2, 2);
	m = hop_member(h, port);
	if (m < 0)
		return -1;
	db = bget(pl, w->dst, s2);
	out->dn = pl->blinks[db->s0 + m];
	out->port = port;
	return 0;
}

int rp_walk_port(struct rp_walker *w, uint16_t port, struct rp_path *out)
{
	unsigned int i = (port - RP_SPORT_MIN) % RP_SPORT_COUNT;
	struct rp_path *x = &w->memo[i];

	if (w->mstamp[i] != w->gen) {
		w->mstamp[i] = w->gen;
		if (walk(w, port, x))
			x->port = -1;
	}
	if (x->port < 0)
		return -1;
	*out = *x;
	return 0;
}

static unsigned int path_hash(const struct rp_path *p)
{
	uint32_t h = (uint32_t)p->up * 2654435761u;

	h = (h ^ (uint32_t)p->uu) * 2246822519u;
	h = (h ^ (uint32_t)p->ud) * 3266489917u;
	h = (h ^ (uint32_t)p->dn) * 668265263u;
	return (h ^ h >> 15) % RP_WALK_HASH;
}

static bool path_eq(const struct rp_path *a, const struct rp_path *b)
{
	return a->up == b->up && a->dn == b->dn && a->uu == b->uu &&
	       a->ud == b->ud;
}

/* rp_walk_paths() by walking every port (hops that cannot be solved). */
static int walk_paths(struct rp_walker *w, uint32_t p0, const uint16_t *used,
		      int nused)
{
	int n = 0;

	w->hgen++;
	for (uint32_t k = 0; k < RP_SPORT_COUNT; k++) {
		uint16_t port = RP_SPORT_MIN + (p0 + k) % RP_SPORT_COUNT;
		struct rp_path x;
		unsigned int h;

		if (rp_walk_port(w, port, &x) || rp_port_taken(used, nused, port))
			continue;
		for (h = path_hash(&x); w->hstamp[h] == w->hgen;
		     h = (h + 1) % RP_WALK_HASH)
			if (path_eq(&w->paths[w->hkey[h]], &x))
				break;
		if (w->hstamp[h] == w->hgen) {
			w->paths[w->hkey[h]].nports++;
			continue;
		}
		w->hstamp[h] = w->hgen;
		w->hkey[h] = n;
		x.nports = 1;
		w->paths[n++] = x;
	}
	return n;
}

int rp_walk_routes(struct rp_walker *w,
		   int (*fn)(void *arg, const struct rp_path *p), void *arg)
{
	const struct rp_plan *pl = w->pl;
	const struct rp_topo *t = pl->t;
	int ret = 0;

	for (int m = 0; m < w->nleaf && !ret; m++) {
		struct rp_path p = { .up = w->lgrp[m], .uu = -1, .ud = -1 };
		int s = t->links[p.up].spine, na = 1;
		struct rp_hopc *h = NULL;

		if (w->far) {
			h = hop_get(w, &w->sp[s], s, 0);
			na = h->n;
		}
		for (int a = 0; a < na && !ret; a++) {
			struct rp_hopc *h2 = NULL;
			int nb = 1;

			if (h) {
				p.uu = w->sgrp[h->off + a];
				h2 = hop_get(w, &w->su[t->ulinks[p.uu].super],
					     t->ulinks[p.uu].super, 1);
				nb = h2->n;
			}
			for (int b = 0; b < nb && !ret; b++) {
				int s2 = s;
				const struct bundle *db;

				if (h2) {
					p.ud = w->ugrp[h2->off + b];
					s2 = t->ulinks[p.ud].spine;
				}
				if (!bcount(pl, w->dst, s2))
					continue;
				db = bget(pl, w->dst, s2);
				for (int c = 0; c < db->n && !ret; c++) {
					p.dn = pl->blinks[db->s0 + c];
					ret = fn(arg, &p);
				}
			}
		}
	}
	return ret;
}

/*
 * The hop's equations, once per aim; NULL when not solvable. A switch
 * keeps its rows from aim to aim (most aims see the same model and group
 * again), and only m0 is worked out anew.
 */
static const struct lhop *hop_lin(struct rp_walker *w, struct rp_hopc *h)
{
	if (h->lgen == w->gen)
		return h->lm.lh.k < 0 ? NULL : &h->lm.lh;
	h->lgen = w->gen;
	return lhop_memo_get(&h->lm, &h->c, h->n);
}

/* Keeps path p down dn, taken by the ports of s. */
static int lin_store(struct rp_walker *w, const struct lsys *s,
		     struct rp_path *p, int dn)
{
	if (w->nlp >= RP_SPORT_COUNT)	/* cannot be: disjoint ports */
		return -1;
	p->dn = dn;
	w->lps[w->nlp] = *s;
	w->lp[w->nlp++] = *p;
	return 0;
}

/* Paths from the last spine s2 on, for the ports of system s. */
static int lin_last(struct rp_walker *w, const struct lsys *s,
		    struct rp_path *p, int s2)
{
	const struct rp_plan *pl = w->pl;
	struct rp_hopc *h = hop_get(w, &w->sl[s2], s2, 2);
	const struct lhop *l;
	const struct bundle *db;

	if (h->n <= 0)
		return 0;
	l = hop_lin(w, h);
	if (!l)
		return -1;
	db = bget(pl, w->dst, s2);
	if (!l->k)	/* one link down: the path needs no more equations */
		return lin_store(w, s, p, pl->blinks[db->s0]);
	lsym_init(&w->t3, s, l);
	for (int c = 0; c < h->n; c++) {
		struct lsys s3;

		if (lsym_member(&w->t3, c, &s3) &&
		    lin_store(w, &s3, p, pl->blinks[db->s0 + c]))
			return -1;
	}
	return 0;
}

/*
 * Every distinct path a port of the aimed flow takes, as walk() would find
 * them, without walking ports: each hop's member is a set of equations
 * in the port's bits (linear hashes, power-of-two groups), and a path is
 * taken by some port iff its equations are consistent (distinct paths
 * have disjoint solutions, so there are at most 16,384). nlp -1 when some
 * hop cannot be solved (tables, other group sizes).
 */
static void lin_paths(struct rp_walker *w)
{
	const struct rp_topo *t = w->pl->t;
	const struct lsys empty = { 0 };
	struct lhop ll;

	w->nlp = 0;
	if (w->nleaf <= 0)
		return;
	if (lhop_init(&ll, &w->lc, w->nleaf))
		goto fail;
	lsym_init(&w->t0, &empty, &ll);
	for (int m = 0; m < w->nleaf; m++) {
		struct rp_path p = { .up = w->lgrp[m], .uu = -1, .ud = -1 };
		int s = t->links[p.up].spine;
		const struct lhop *l;
		struct rp_hopc *h;
		struct lsys s0;

		if (!lsym_member(&w->t0, m, &s0))
			continue;
		if (!w->far) {
			if (lin_last(w, &s0, &p, s))
				goto fail;
			continue;
		}
		h = hop_get(w, &w->sp[s], s, 0);
		if (h->n <= 0)
			continue;
		l = hop_lin(w, h);
		if (!l)
			goto fail;
		lsym_init(&w->t1, &s0, l);
		for (int a = 0; a < h->n; a++) {
			const struct lhop *l2;
			struct rp_hopc *h2;
			struct lsys s1;

			if (!lsym_member(&w->t1, a, &s1))
				continue;
			p.uu = w->sgrp[h->off + a];
			h2 = hop_get(w, &w->su[t->ulinks[p.uu].super],
				     t->ulinks[p.uu].super, 1);
			if (h2->n <= 0)
				continue;
			l2 = hop_lin(w, h2);
			if (!l2)
				goto fail;
			lsym_init(&w->t2, &s1, l2);
			for (int b = 0; b < h2->n; b++) {
				struct lsys s2;

				if (!lsym_member(&w->t2, b, &s2))
					continue;
				p.ud = w->ugrp[h2->off + b];
				if (lin_last(w, &s2, &p, t->ulinks[p.ud].spine))
					goto fail;
			}
		}
	}
	return;
fail:
	w->nlp = -1;
}

/* The aim's paths solved, once per aim. */
static void lin_aim(struct rp_walker *w)
{
	if (w->lpgen != w->gen) {
		w->lpgen = w->gen;
		lin_paths(w);
	}
}

#define RP_SPORT_MASK	(RP_SPORT_COUNT - 1)
#define RP_SOLVE_USED	64	/* more used ports: walk instead */

/*
 * The k-th smallest port (low bits) of s. Each pivot is the lowest bit of
 * its row, so the highest bit two solutions differ in is a free bit: the
 * solutions sort as their free bits do, k deposited in them.
 */
static uint32_t lsys_nth(const struct lsys *s, uint32_t k)
{
	uint32_t freem = ~(uint32_t)s->pivots & RP_SPORT_MASK;

	return lsys_solve(s, deposit(k, freem));
}

/* Index of solution x of s: its free bits, gathered (deposit()'s inverse). */
static uint32_t lsys_rank(const struct lsys *s, uint32_t x)
{
	uint32_t freem = ~(uint32_t)s->pivots & RP_SPORT_MASK, k = 0;

	for (uint32_t m = freem, i = 1; m; m &= m - 1, i <<= 1)
		if (x & m & -m)
			k |= i;
	return k;
}

/*
 * s's first port at or after x0, its first past its last (the wrap). A
 * pivot bit follows from the free bits above it (each pivot is the lowest
 * bit of its row), so x0 is a port unless some row fails on it; below the
 * highest failing pivot nothing of x0 can stay. The first port beyond
 * keeps x0 above a bit that x0 has clear and the port may set: that
 * pivot itself when it is forced to 1, else the lowest free bit above it
 * that x0 has clear; the bits below are the least they can be.
 */
static uint32_t lsys_ceil(const struct lsys *s, uint32_t x0)
{
	uint32_t freem = ~(uint32_t)s->pivots & RP_SPORT_MASK, above, up;
	int top = -1;

	for (int i = 0; i < s->n; i++)
		if (lsys_row_off(s, i, x0) && s->piv[i] > top)
			top = s->piv[i];
	if (top < 0)
		return x0;
	if (!(x0 >> top & 1))
		return lsys_solve(s, (x0 & ~((1u << top) - 1)) | 1u << top);
	above = ~((2u << top) - 1);
	up = freem & ~x0 & above;
	if (!up)
		return lsys_solve(s, 0);
	up = 1u << __builtin_ctz(up);
	return lsys_solve(s, (x0 & ~(up - 1)) | up);
}

/*
 * Whether x is a solution of s: each row holds (a row is its pivot and
 * free bits). Most ports are not, and fail at the first row or so, where
 * lsys_solve(s, x) == x would work out every row.
 */
static bool lsys_has(const struct lsys *s, uint32_t x)
{
	for (int i = 0; i < s->n; i++)
		if (lsys_row_off(s, i, x))
			return false;
	return true;
}

/* How many distinct ports of used[] are solutions of s. */
static int lsys_taken(const struct lsys *s, const uint16_t *used, int nused)
{
	int n = 0;

	for (int i = 0; i < nused; i++) {
		uint32_t x = (uint32_t)used[i] - RP_SPORT_MIN;

		if (used[i] >= RP_SPORT_MIN && lsys_has(s, x) &&
		    !rp_port_taken(used, i, used[i]))
			n++;
	}
	return n;
}

#define RP_KEY_DIGIT	7	/* sort_keys(): two digits of a port */

/*
 * solve_paths()'s keys in order. They are written in path order, so a
 * stable sort by the first port (the high half) sorts them: two passes
 * of a radix sort, where qsort() compared some 4,000 times for 500 keys.
 */
static void sort_keys(uint32_t *key, uint32_t *tmp, int n)
{
	_Static_assert(2 * RP_KEY_DIGIT == RP_SPORT_BITS, "two digits");
	for (int shift = RP_SPORT_BITS; shift < 2 * RP_SPORT_BITS;
	     shift += RP_KEY_DIGIT) {
		int at[(1 << RP_KEY_DIGIT) + 1] = { 0 };
		uint32_t *t;

		for (int i = 0; i < n; i++)
			at[(key[i] >> shift & ((1 << RP_KEY_DIGIT) - 1)) + 1]++;
		for (int d = 0; d < 1 << RP_KEY_DIGIT; d++)
			at[d + 1] += at[d];
		for (int i = 0; i < n; i++)
			tmp[at[key[i] >> shift & ((1 << RP_KEY_DIGIT) - 1)]++] =
				key[i];
		t = key;
		key = tmp;
		tmp = t;
	}
}

/*
 * walk_paths() from the solved paths: each path's first free port from p0
 * on is found in its solutions (sorted, so a binary search), and the paths
 * sorted by it are the order the walk meets them in, without walking the
 * 16,384 ports of every aim the repair tries.
 */
static int solve_paths(struct rp_walker *w, uint32_t p0, const uint16_t *used,
		       int nused)
{
	int n = 0;

	p0 &= RP_SPORT_MASK;
	for (int i = 0; i < w->nlp; i++) {
		const struct lsys *s = &w->lps[i];
		uint32_t size = 1u << (RP_SPORT_BITS - s->n), k, x;
		int taken = lsys_taken(s, used, nused);

		if (taken == (int)size)
			continue;
		x = lsys_ceil(s, p0);
		if (rp_port_taken(used, nused, RP_SPORT_MIN + x)) {
			k = lsys_rank(s, x);
			do {
				k = (k + 1) & (size - 1);
				x = lsys_nth(s, k);
			} while (rp_port_taken(used, nused, RP_SPORT_MIN + x));
		}
		w->lp[i].port = RP_SPORT_MIN + x;
		w->lp[i].nports = size - taken;
		w->skey[n++] = ((x - p0) & RP_SPORT_MASK) << RP_SPORT_BITS | i;
	}
	sort_keys(w->skey, w->stmp, n);
	for (int j = 0; j < n; j++)
		w->paths[j] = w->lp[w->skey[j] & RP_SPORT_MASK];
	return n;
}

int rp_walk_paths(struct rp_walker *w, uint32_t p0, const uint16_t *used,
		  int nused, const struct rp_path **out)
{
	*out = w->paths;
	lin_aim(w);
	if (w->nlp < 0 || nused > RP_SOLVE_USED)
		return walk_paths(w, p0, used, nused);
	return solve_paths(w, p0, used, nused);
}

long rp_path_load(const struct rp_plan *pl, const int *upl, const int *dnl,
		  const struct rp_path *x)
{
	int nl = pl->t->nlinks;
	long mx = upl[x->up] > dnl[x->dn] ? upl[x->up] : dnl[x->dn];

	if (x->uu >= 0) {
		mx = upl[nl + x->uu] > mx ? upl[nl + x->uu] : mx;
		mx = dnl[nl + x->ud] > mx ? dnl[nl + x->ud] : mx;
	}
	return mx;
}

bool rp_walk_solved(const struct rp_walker *w)
{
	return w->lpgen == w->gen;
}

int rp_walk_within(struct rp_walker *w, const int *upl, const int *dnl,
		   long lim, long max, rp_walk_fn fn, void *arg)
{
	long q = 0;
	int n = 0;

	lin_aim(w);
	if (w->nlp < 0)
		return -1;
	for (int i = 0; i < w->nlp; i++) {
		if (rp_path_load(w->pl, upl, dnl, &w->lp[i]) > lim)
			continue;
		q += 1L << (RP_SPORT_BITS - w->lps[i].n);
		if (q > max)
			return -1;
		w->skey[n++] = i;
	}
	for (int j = 0; j < n; j++) {
		const struct lsys *s = &w->lps[w->skey[j]];
		struct rp_path p = w->lp[w->skey[j]];

		for (uint32_t k = 0; k < 1u << (RP_SPORT_BITS - s->n); k++) {
			p.port = RP_SPORT_MIN + lsys_nth(s, k);
			fn(arg, &p);
		}
	}
	return 0;
}

int rp_walk_least(struct rp_walker *w, const int *upl, const int *dnl,
		  long *least)
{
	long best = -1;

	lin_aim(w);
	if (w->nlp <= 0)
		return -1;
	for (int i = 0; i < w->nlp; i++) {
		long mx = rp_path_load(w->pl, upl, dnl, &w->lp[i]);

		if (best < 0 || mx < best) {
			best = mx;
			w->lsi = i;
		}
	}
	w->lsgen = w->gen;
	w->lsv = best;
	w->lsupl = upl;
	w->lsdnl = dnl;
	*least = best;
	return 0;
}

/*
 * Loads that only grew keep every path at least as busy, so the least
 * stands while the path that had it still has it: about half the
 * paths have it, and most calls of a connection's QPs skip the look at
 * them all.
 */
int rp_walk_least_grown(struct rp_walker *w, const int *upl, const int *dnl,
			long *least)
{
	if (w->lsgen == w->gen && w->lpgen == w->gen && w->nlp > 0 &&
	    w->lsupl == upl && w->lsdnl == dnl &&
	    rp_path_load(w->pl, upl, dnl, &w->lp[w->lsi]) == w->lsv) {
		*least = w->lsv;
		return 0;
	}
	return rp_walk_least(w, upl, dnl, least);
}
