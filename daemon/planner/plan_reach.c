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
	int n, off;		/* group size; its links at grp + off (the
				 * last spine's: pl->blinks + off) */
	struct rp_hash_ctx c;
	int lgen;		/* lm valid when == walker gen */
	struct lhop_memo lm;	/* the members as equations */
};

/*
 * lin_paths()'s lforms, found again by the system they add a hop to (their
 * parent, a form too) and the hop's rows: a tree whose every level is a
 * tier of the paths, and whose few nodes (one leaf model, a few spine and
 * superspine ones) serve every aim.
 */
struct rp_form {
	struct lform f;
	uint16_t row[32];	/* the hop's, f.k of them */
	int next, child;	/* next of the parent's, first of its own; -1 */
};

/* The system of no equations: every port. */
static const struct lsys lsys_empty;

#define RP_FORMS	512	/* forms kept; beyond them, made per use */
#define RP_LP_OWN	0xFFFFu	/* a path's system is in lps[] already */
#define RP_TIERS	4	/* a path's hops: leaf, spine, superspine, last */

struct rp_walker {
	const struct rp_plan *pl;
	int gen, src_nic, dst_nic, dst;
	bool far;
	const struct rp_addr *sa, *da;
	int nleaf, *lgrp;	/* the source leaf's group (t->links) */
	struct rp_hash_ctx lc;
	/* the aim's last linear context by algorithm: the next one's like */
	const struct rp_hash_ctx *like[RP_HASH_TABLE];
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
	struct lsys *lps;	/* each path's ports, as a system (lp_sys()) */
	uint32_t *lpk;		/* its form << 16 | rhs, or RP_LP_OWN << 16 */
	int *lrun, nrun;	/* runs of paths with one up and uu: from lrun[j] */
	bool newrun;		/* lin_store(): the next path starts a run */
	/* rp_walk_least_grown(): the last least, on path lsi, in loads l* */
	int lsgen, lsi;
	long lsv;
	const int *lsupl, *lsdnl;
	uint32_t *skey;		/* rp_walk_paths(): first port << 14 | path */
	uint32_t *stmp;		/* sort_keys()'s other half */
	/* lin_paths(): the leaf's equations, and forms kept from aim to aim */
	struct lhop_memo llm;
	struct rp_form *forms;	/* RP_FORMS, then a scratch one per tier */
	int nforms, froot;	/* froot: the forms on the empty system */
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
	free(w->lpk);
	free(w->lrun);
	free(w->skey);
	free(w->stmp);
	free(w->forms);
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
	w->lpk = calloc(RP_SPORT_COUNT, sizeof(*w->lpk));
	w->lrun = calloc(RP_SPORT_COUNT, sizeof(*w->lrun));
	w->skey = calloc(RP_SPORT_COUNT, sizeof(*w->skey));
	w->stmp = calloc(RP_SPORT_COUNT, sizeof(*w->stmp));
	w->forms = calloc(RP_FORMS + RP_TIERS, sizeof(*w->forms));
	w->src_nic = w->dst_nic = -1;
	w->llm.lh.k = -1;
	w->froot = -1;
	if (!w->lgrp || !w->sp || !w->sl || !w->su || !w->sgrp || !w->ugrp ||
	    !w->hkey || !w->hstamp || !w->paths || !w->mstamp || !w->memo ||
	    !w->lp || !w->lps || !w->lpk || !w->lrun ||
	    !w->skey || !w->stmp || !w->forms) {
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
	memset(w->like, 0, sizeof(w->like));
	if (w->lc.lin)
		w->like[w->lc.m->alg] = &w->lc;
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
		h->n = bcount(pl, w->dst, sw);
		h->off = h->n > 0 ? bget(pl, w->dst, sw)->s0 : 0;
		m = &t->sw[t->spine_sw[sw]].hash;
	}
	if (h->n <= 1)
		return h;
	/* the aim's switches of one model family differ in the seed */
	rp_hash_ctx_init_like(&h->c, m, w->sa, w->da,
			      (struct rp_hash_lin *)&pl->lin,
			      m->alg < RP_HASH_TABLE ? w->like[m->alg] : NULL);
	if (h->c.lin)
		w->like[m->alg] = &h->c;
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
	out->dn = pl->blinks[h->off + m];
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

/*
 * The form of hop l on the system of form parent (-1: the empty system)
 * at path tier tier: kept from an earlier aim, or made and kept under its
 * parent; once RP_FORMS are kept, or on a form not kept, it is made in
 * the tier's scratch form for this use.
 */
static int form_get(struct rp_walker *w, int parent, int tier,
		    const struct lhop *l)
{
	struct rp_form *x;
	int *at = NULL, i;

	if (parent < RP_FORMS) {
		at = parent < 0 ? &w->froot : &w->forms[parent].child;
		for (i = *at; i >= 0; i = w->forms[i].next)
			if (w->forms[i].f.k == l->k &&
			    !memcmp(w->forms[i].row, l->row,
				    l->k * sizeof(*l->row)))
				return i;
	}
	if (at && w->nforms < RP_FORMS) {
		i = w->nforms++;
		w->forms[i].next = *at;
		*at = i;
	} else {
		i = RP_FORMS + tier;
	}
	x = &w->forms[i];
	x->child = -1;
	memcpy(x->row, l->row, l->k * sizeof(*l->row));
	lform_init(&x->f, parent < 0 ? &lsys_empty : &w->forms[parent].f.s,
		   l->row, l->k);
	return i;
}

/*
 * Keeps path p down dn, taken by the ports of form fi's rows with rhs r:
 * only as the form and r where the form stays for the aim, since most
 * paths' systems are never looked at (rp_walk_least() needs the links).
 */
static inline int lin_store(struct rp_walker *w, int fi, uint16_t r,
			    struct rp_path *p, int dn)
{
	if (w->nlp >= RP_SPORT_COUNT)	/* cannot be: disjoint ports */
		return -1;
	p->dn = dn;
	/* the tiers' loops store a run's paths in a row */
	if (w->newrun) {
		w->lrun[w->nrun++] = w->nlp;
		w->newrun = false;
	}
	if (fi >= 0 && fi < RP_FORMS) {
		w->lpk[w->nlp] = (uint32_t)fi << 16 | r;
	} else {
		w->lps[w->nlp] = fi < 0 ? lsys_empty : w->forms[fi].f.s;
		w->lps[w->nlp].rhs = r;
		w->lpk[w->nlp] = RP_LP_OWN << 16;
	}
	w->lp[w->nlp++] = *p;
	return 0;
}

/* Path i's system, made from its form on first use. */
static const struct lsys *lp_sys(struct rp_walker *w, int i)
{
	uint32_t k = w->lpk[i];

	if (k >> 16 != RP_LP_OWN) {
		w->lps[i] = w->forms[k >> 16].f.s;
		w->lps[i].rhs = (uint16_t)k;
		w->lpk[i] = RP_LP_OWN << 16;
	}
	return &w->lps[i];
}

static int lin_tier(struct rp_walker *w, int tier, int sw, int fi,
		    uint16_t r, struct rp_path *p);

/*
 * The last hop (tier 3) for the system of form fi, rhs r: a spine with one
 * link down needs no equations, and most paths end so.
 */
static int lin_last(struct rp_walker *w, int sw, int fi, uint16_t r,
		    struct rp_path *p)
{
	struct rp_hopc *h = hop_get(w, &w->sl[sw], sw, 2);

	if (h->n == 1)
		return lin_store(w, fi, r, p, w->pl->blinks[h->off]);
	return lin_tier(w, 3, sw, fi, r, p);
}

/*
 * The paths on from the hop at tier tier (0 the leaf, 1 spine sw up, 2
 * superspine sw down, 3 spine sw down to the leaf), for the ports of the
 * system of form fi (-1: none yet) with rhs r, p holding the links so far.
 */
static int lin_tier(struct rp_walker *w, int tier, int sw, int fi,
		    uint16_t r, struct rp_path *p)
{
	const struct rp_plan *pl = w->pl;
	const struct rp_topo *t = pl->t;
	const struct lform *f = NULL;
	struct rp_hopc *h = NULL;
	const struct lhop *l;
	uint64_t x = r;
	int n;

	if (!tier) {
		n = w->nleaf;
		l = lhop_memo_get(&w->llm, &w->lc, n);
	} else {
		h = hop_get(w, tier == 1 ? &w->sp[sw] : tier == 2 ?
			    &w->su[sw] : &w->sl[sw], sw, tier - 1);
		n = h->n;
		if (n <= 0)
			return 0;
		l = hop_lin(w, h);
	}
	if (!l)
		return -1;
	/* one member: no equations, the system goes on as it is */
	if (l->k) {
		fi = form_get(w, fi, tier, l);
		f = &w->forms[fi].f;
		x = lform_word(f, r, l->m0);
	}
	for (int m = 0; m < n; m++) {
		int next;

		if (m)
			x = lform_next(f, x, m);
		if (!lform_holds(x))
			continue;
		switch (tier) {
		case 0:
			p->up = w->lgrp[m];
			next = t->links[p->up].spine;
			w->newrun = true;
			break;
		case 1:
			p->uu = w->sgrp[h->off + m];
			next = t->ulinks[p->uu].super;
			w->newrun = true;
			break;
		case 2:
			p->ud = w->ugrp[h->off + m];
			next = t->ulinks[p->ud].spine;
			break;
		default:
			if (lin_store(w, fi, (uint16_t)x, p,
				      pl->blinks[h->off + m]))
				return -1;
			continue;
		}
		if (tier == 2 || !w->far ?
		    lin_last(w, next, fi, (uint16_t)x, p) :
		    lin_tier(w, tier + 1, next, fi, (uint16_t)x, p))
			return -1;
	}
	return 0;
}

/*
 * Every distinct path a port of the aimed flow takes, as walk() would find
 * them, without walking ports: each hop's member is a set of equations
 * in the port's bits (linear hashes, power-of-two groups), and a path is
 * taken by some port iff its equations are consistent (distinct paths
 * have disjoint solutions, so there are at most 16,384). The equations
 * are added hop by hop through forms (lform), which the aims share. nlp
 * -1 when some hop cannot be solved (tables, other group sizes).
 */
static void lin_paths(struct rp_walker *w)
{
	struct rp_path p = { .uu = -1, .ud = -1 };

	w->nlp = w->nrun = 0;
	if (w->nleaf <= 0)
		return;
	/* full: this aim's forms are kept instead */
	if (w->nforms == RP_FORMS) {
		w->nforms = 0;
		w->froot = -1;
	}
	if (lin_tier(w, 0, 0, -1, 0, &p))
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
		const struct lsys *s = lp_sys(w, i);
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

/*
 * rp_path_load() in two halves: the links up, which the paths of a run
 * (rp_walk_least()) share, then the links down from there.
 */
static inline long path_up_load(const struct rp_plan *pl, const int *upl,
				const struct rp_path *x)
{
	long mx = upl[x->up];

	if (x->uu >= 0 && upl[pl->t->nlinks + x->uu] > mx)
		mx = upl[pl->t->nlinks + x->uu];
	return mx;
}

static inline long path_dn_load(const struct rp_plan *pl, const int *dnl,
				const struct rp_path *x, long mx)
{
	if (dnl[x->dn] > mx)
		mx = dnl[x->dn];
	if (x->uu >= 0 && dnl[pl->t->nlinks + x->ud] > mx)
		mx = dnl[pl->t->nlinks + x->ud];
	return mx;
}

long rp_path_load(const struct rp_plan *pl, const int *upl, const int *dnl,
		  const struct rp_path *x)
{
	return path_dn_load(pl, dnl, x, path_up_load(pl, upl, x));
}

bool rp_walk_solved(const struct rp_walker *w)
{
	return w->lpgen == w->gen;
}

/*
 * The busiest link up of run j of the solved paths (rp_path_load() of
 * them all starts there), and in *end the path after the run.
 */
static long run_up(const struct rp_walker *w, const int *upl, int j, int *end)
{
	*end = j + 1 < w->nrun ? w->lrun[j + 1] : w->nlp;
	return path_up_load(w->pl, upl, &w->lp[w->lrun[j]]);
}

int rp_walk_within(struct rp_walker *w, const int *upl, const int *dnl,
		   long lim, long max, rp_walk_fn fn, void *arg)
{
	long q = 0;
	int n = 0;

	lin_aim(w);
	if (w->nlp < 0)
		return -1;
	for (int j = 0, i, end; j < w->nrun; j++) {
		long mx = run_up(w, upl, j, &end);

		/* a run above lim at its links up is above it everywhere */
		for (i = (mx > lim) ? end : w->lrun[j]; i < end; i++) {
			if (path_dn_load(w->pl, dnl, &w->lp[i], mx) > lim)
				continue;
			q += 1L << (RP_SPORT_BITS - lp_sys(w, i)->n);
			if (q > max)
				return -1;
			w->skey[n++] = i;
		}
	}
	for (int j = 0; j < n; j++) {
		const struct lsys *s = lp_sys(w, w->skey[j]);
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
	for (int j = 0, i, end; j < w->nrun; j++) {
		long up = run_up(w, upl, j, &end);

		/* no path of the run is below best: they all carry up */
		for (i = (best >= 0 && up >= best) ? end : w->lrun[j];
		     i < end; i++) {
			long mx = path_dn_load(w->pl, dnl, &w->lp[i], up);

			if (best < 0 || mx < best) {
				best = mx;
				w->lsi = i;
			}
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
