// SPDX-License-Identifier: GPL-2.0
/*
 * Route assignment on three tiers: every flow a route -- a spine within its
 * pod, or between pods (spine, superspine, spine2) -- so that every bundle
 * of parallel links, leaf-spine and spine-superspine, in each direction,
 * carries at most T flows per link. A greedy pass (each flow on the route
 * with the most room at its fullest bundle) and, where no route has room,
 * an ejection chain: the flow takes a route with one full bundle and a
 * flow on that bundle moves to another route, recursively (see
 * planner.rst). Two tiers use the edge colouring of plan_colour.c instead,
 * of which this is the generalisation.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_model.h"

/* Depth of an ejection chain, and tries per flow that found no room. */
#define RP_ROUTE_DEPTH		5
#define RP_ROUTE_BUDGET		20000

struct rt {
	int s, u, s2;		/* u -1: within a pod (s2 == s) */
};

/*
 * best_far(): per superspine the best half route on one side, as a
 * tournament over the pair's spines in fours: superspine u's nodes at
 * tk[u * stride ..], node i the greatest of its four 4i + 1 .. 4i + 4,
 * node 0 the best (INT64_MIN: none), spine c's half route's far_key() at
 * leaf nin + c. A flow's put() changes one leaf per superspine, whose best
 * is then a path to the root away instead of a look at every spine.
 */
struct half {
	int64_t *tk;
	int nin, stride;	/* nodes above the leaves; nodes per superspine */
	/*
	 * what they are for (leaf -1: nothing): the leaf's n spines toward
	 * the superspines of reach (NULL: all), as of change gen; roots
	 * outside superspines [lo, hi] are empty
	 */
	int leaf, n;
	const int *spines;
	const uint8_t *reach;
	size_t lo, hi;
	unsigned long gen;
};

/*
 * Resources: the directions of bundles. Up leaf-spine bundle b is b, down
 * nb + b; spine-superspine bundle k up 2 nb + k, down 2 nb + nub + k. Each
 * flow holds up to four (node 4 * flow + hop) in per-resource lists.
 */
struct rp_route {
	int nb, nub, nres;
	/* sp: spare room, T * cap less the flows on it (best_far() reads it) */
	int *cap, *sp, *head;
	int *nxt, *prv, *res;	/* per node */
	int *lock;		/* per flow: in the current ejection chain */
	int *porder;
	int attempt;
	long budget;
	struct rt *buf;		/* routes of the pair being placed */
	int nbuf;
	int *usup;		/* per ubundle: its superspine, densely */
	struct half a, b;	/* best_far(): first and second halves */
	/* gen counts put()s and take()s, put_* is the last put() */
	unsigned long gen, put_gen;
	struct rt put_rt;
};

static void half_free(struct half *h)
{
	free(h->tk);
}

/*
 * Every superspine without a half route yet, as best_far() expects;
 * tournaments for up to np spines.
 */
static int half_init(struct half *h, int nsupers, int np)
{
	h->stride = np + (np - 1) / 3;
	h->leaf = -1;
	h->lo = nsupers;
	h->tk = calloc((size_t)nsupers * h->stride + 1, sizeof(*h->tk));
	if (!h->tk)
		return -ENOMEM;
	for (int u = 0; u < nsupers; u++)
		h->tk[(size_t)u * h->stride] = INT64_MIN;
	return 0;
}

/* Leaves of a tournament over n spines: a power of four. */
static int half_leaves(int n)
{
	int np = 1;

	while (np < n)
		np *= 4;
	return np;
}

/* The most spines a side of a pair between pods has, as leaves. */
static int far_leaves(const struct rp_plan *pl)
{
	int n = 1;

	for (int i = 0; i < pl->npairs; i++) {
		const struct pair *p = &pl->pairs[i];

		if (!p->xpod)
			continue;
		n = p->nc > n ? p->nc : n;
		n = p->nk > n ? p->nk : n;
	}
	return half_leaves(n);
}

void rp_plan_route_free(struct rp_plan *pl)
{
	struct rp_route *r = pl->route;

	if (!r)
		return;
	free(r->cap);
	free(r->sp);
	free(r->head);
	free(r->nxt);
	free(r->prv);
	free(r->res);
	free(r->lock);
	free(r->porder);
	free(r->buf);
	free(r->usup);
	half_free(&r->a);
	half_free(&r->b);
	free(r);
	pl->route = NULL;
}

static int route_init(struct rp_plan *pl)
{
	struct rp_route *r = calloc(1, sizeof(*r));
	size_t nodes = 4 * (size_t)pl->nflows + 1;
	int np = far_leaves(pl);

	if (!r)
		return -ENOMEM;
	pl->route = r;
	r->nb = pl->nbundles;
	r->nub = pl->nubundles;
	r->nres = 2 * r->nb + 2 * r->nub;
	r->cap = calloc(r->nres + 1, sizeof(int));
	r->sp = calloc(r->nres + 1, sizeof(int));
	r->head = calloc(r->nres + 1, sizeof(int));
	r->nxt = calloc(nodes, sizeof(int));
	r->prv = calloc(nodes, sizeof(int));
	r->res = calloc(nodes, sizeof(int));
	r->lock = calloc(pl->nflows + 1, sizeof(int));
	r->porder = calloc(pl->npairs + 1, sizeof(int));
	r->usup = calloc(r->nub + 1, sizeof(int));
	if (!r->cap || !r->sp || !r->head || !r->nxt || !r->prv || !r->res ||
	    !r->lock || !r->porder || !r->usup ||
	    half_init(&r->a, pl->t->nsupers, np) ||
	    half_init(&r->b, pl->t->nsupers, np))
		return -ENOMEM;
	for (int k = 0; k < r->nub; k++)
		r->usup[k] = pl->ubundles[k].super;
	for (int b = 0; b < r->nb; b++)
		r->cap[b] = r->cap[r->nb + b] = pl->bundles[b].n;
	for (int k = 0; k < r->nub; k++)
		r->cap[2 * r->nb + k] = r->cap[2 * r->nb + r->nub + k] =
			pl->ubundles[k].n;
	return 0;
}

/* The resources of route x for a flow from leaf a to leaf b; count. */
static int route_res(const struct rp_plan *pl, int a, int b,
		     const struct rt *x, int *res)
{
	const struct rp_route *r = pl->route;
	size_t ns = pl->t->nspines, nu = pl->t->nsupers;

	res[0] = pl->bidx[a * ns + x->s];
	res[1] = r->nb + pl->bidx[b * ns + x->s2];
	if (x->u < 0)
		return 2;
	res[2] = 2 * r->nb + pl->ubidx[x->s * nu + x->u];
	res[3] = 2 * r->nb + r->nub + pl->ubidx[x->s2 * nu + x->u];
	return 4;
}

/* Every route of a pair into r->buf, in (s, u, s2) order; count. */
static int gen_routes(struct rp_plan *pl, const struct pair *p)
{
	struct rp_route *r = pl->route;
	int n = 0;

	for (int c = 0; c < p->nc; c++) {
		int s = pl->cs[p->c0 + c];

		if (!p->xpod) {
			if (n == r->nbuf) {
				struct rt *nb = realloc(r->buf, (2 * n + 16) *
							sizeof(*nb));

				if (!nb)
					return -ENOMEM;
				r->buf = nb;
				r->nbuf = 2 * n + 16;
			}
			r->buf[n++] = (struct rt){ s, -1, s };
			continue;
		}
		for (int b = pl->spine_ub0[s]; b < pl->spine_ub0[s + 1]; b++) {
			int u = pl->ubundles[b].super;

			if (!ureaches(pl, u, p->dst))
				continue;
			for (int k = pl->super_ub0[u]; k < pl->super_ub0[u + 1];
			     k++) {
				int s2 = pl->ubundles[pl->super_ubl[k]].spine;

				if (!bcount(pl, p->dst, s2))
					continue;
				if (n == r->nbuf) {
					struct rt *nb = realloc(r->buf,
						(2 * n + 16) * sizeof(*nb));

					if (!nb)
						return -ENOMEM;
					r->buf = nb;
					r->nbuf = 2 * n + 16;
				}
				r->buf[n++] = (struct rt){ s, u, s2 };
			}
		}
	}
	return n;
}

static inline int spare(const struct rp_plan *pl, int res)
{
	const struct rp_route *r = pl->route;

	return r->sp[res];
}

static void put(struct rp_plan *pl, int fi, const struct rt *x)
{
	struct rp_route *r = pl->route;
	struct flow *f = &pl->flows[fi];
	const struct pair *p = &pl->pairs[f->pair];
	int res[4], n = route_res(pl, p->src, p->dst, x, res);

	for (int k = 0; k < n; k++) {
		int node = 4 * fi + k, h = r->head[res[k]];

		r->res[node] = res[k];
		r->sp[res[k]]--;
		r->prv[node] = -1;
		r->nxt[node] = h;
		if (h >= 0)
			r->prv[h] = node;
		r->head[res[k]] = node;
	}
	f->spine = x->s;
	pl->f3[fi].super = x->u;
	pl->f3[fi].spine2 = x->s2;
	r->put_gen = ++r->gen;
	r->put_rt = *x;
}

static void take(struct rp_plan *pl, int fi)
{
	struct rp_route *r = pl->route;

	for (int k = 0; k < 4; k++) {
		int node = 4 * fi + k, x = r->res[node];

		if (x < 0)
			continue;
		if (r->prv[node] >= 0)
			r->nxt[r->prv[node]] = r->nxt[node];
		else
			r->head[x] = r->nxt[node];
		if (r->nxt[node] >= 0)
			r->prv[r->nxt[node]] = r->prv[node];
		r->sp[x]++;
		r->res[node] = -1;
	}
	r->gen++;
	pl->flows[fi].spine = -1;
}

static struct rt flow_rt(const struct rp_plan *pl, int fi)
{
	return (struct rt){ pl->flows[fi].spine, pl->f3[fi].super,
			    pl->f3[fi].spine2 };
}

/* Room of a route: its fullest resource's spare, and the sum of spares. */
static int room(const struct rp_plan *pl, const struct pair *p,
		const struct rt *x, int *sum)
{
	int res[4], n = route_res(pl, p->src, p->dst, x, res), m = 1 << 30;

	*sum = 0;
	for (int k = 0; k < n; k++) {
		int sp = spare(pl, res[k]);

		m = sp < m ? sp : m;
		*sum += sp;
	}
	return m;
}

/* The previous plan's route of the flow, when it is one of this pair's. */
static bool prev_route(const struct rp_plan *pl, int fi, const struct pair *p,
		       struct rt *x)
{
	const struct flow *q = prev_flow(pl, fi);
	const struct flow3 *q3;

	if (!q || q->spine < 0 || !pl->prev->f3)
		return false;
	q3 = &pl->prev->f3[pl->prev_of[fi]];
	*x = (struct rt){ q->spine, q3->super, q3->spine2 };
	if ((x->u >= 0) != p->xpod || !bcount(pl, p->src, x->s) ||
	    !bcount(pl, p->dst, x->s2))
		return false;
	if (x->u < 0)
		return x->s == x->s2;
	return ubcount(pl, x->s, x->u) && ubcount(pl, x->s2, x->u) &&
	       ureaches(pl, x->u, p->dst);
}

/* The route with the most room among routes[0..n), or -1 when none has. */
static int best_route(const struct rp_plan *pl, const struct pair *p,
		      const struct rt *routes, int n)
{
	int best = -1, bm = 0, bsum = 0;

	for (int i = 0; i < n; i++) {
		int sum, m = room(pl, p, &routes[i], &sum);

		if (m > bm || (m == bm && m > 0 && sum > bsum)) {
			best = i;
			bm = m;
			bsum = sum;
		}
	}
	return best;
}

/* Whether (m, sum) beats (bm, bsum): more room at the fullest, then in all. */
static inline bool better(int m, int sum, int bm, int bsum)
{
	return m > bm || (m == bm && sum > bsum);
}

/*
 * (m, sum) as one number that orders as better() does: m, then sum. One
 * comparison in best_far()'s inner loops, which are most of three tiers'
 * route assignment.
 */
static inline int64_t far_key(int m, int sum)
{
	return (int64_t)m * ((int64_t)1 << 32) + ((int64_t)sum - INT32_MIN);
}

/* The room and sum of spares of a far_key(). */
static inline int key_m(int64_t k)
{
	return (int)(k >> 32);
}

static inline int key_sum(int64_t k)
{
	return (int)((k & 0xFFFFFFFF) + INT32_MIN);
}

/* Half route with spares sa, su as a tournament leaf. */
static inline int64_t half_key(int sa, int su)
{
	return far_key(sa < su ? sa : su, sa + su);
}

/* Superspine u's best half's far_key(), INT64_MIN: none. */
static inline int64_t half_best(const struct half *h, size_t u)
{
	return h->tk[u * h->stride];
}

/* Node i of a tournament as its four play. */
static inline int64_t half_play(const int64_t *t, int i)
{
	int64_t a = t[4 * i + 1] > t[4 * i + 2] ? t[4 * i + 1] : t[4 * i + 2];
	int64_t b = t[4 * i + 3] > t[4 * i + 4] ? t[4 * i + 3] : t[4 * i + 4];

	return a > b ? a : b;
}

/*
 * The spine of u's best half: down the tournament to the first leaf
 * with the best key, as the first of equals wins (a node's first child
 * with its key).
 */
static int half_spine(const struct half *h, const int *spines, size_t u)
{
	const int64_t *t = h->tk + u * h->stride;
	int i = 0;

	while (i < h->nin) {
		int k = 4 * i + 1;

		while (t[k] != t[i])
			k++;
		i = k;
	}
	return spines[i - h->nin];
}

/*
 * One side of best_far(): per superspine u, the best half route through
 * spines[0..n) (leaf bundle leaf-s, then s-u; up, or down the other way)
 * into h, the first of equals kept. reach: the superspines the half may
 * use, NULL: all. h's roots must be empty.
 * Locals and restrict let the compiler keep the arrays in registers:
 * this is most of three tiers' route assignment.
 */
static void best_half(const struct rp_plan *pl, const int *spines, int n,
		      int leaf, bool down, const uint8_t *restrict reach,
		      struct half *h)
{
	const struct rp_route *r = pl->route;
	const int *restrict sp = r->sp, *restrict usup = r->usup;
	const int *restrict ub0 = pl->spine_ub0;
	const int *restrict lb = pl->bidx + (size_t)leaf * pl->t->nspines;
	const int *restrict usp = sp + 2 * r->nb + (down ? r->nub : 0);
	int64_t *restrict tk = h->tk;
	int lo = down ? r->nb : 0, np = half_leaves(n), stride = h->stride;
	int nin = (np - 1) / 3;
	size_t hlo = SIZE_MAX, hhi = 0, nub = 0;

	h->nin = nin;
	/* by (spine, super): each spine's first and last are its extremes */
	for (int c = 0; c < n; c++) {
		int b = ub0[spines[c]], bend = ub0[spines[c] + 1];

		if (b == bend)
			continue;
		hlo = (size_t)usup[b] < hlo ? (size_t)usup[b] : hlo;
		hhi = (size_t)usup[bend - 1] > hhi ? (size_t)usup[bend - 1] : hhi;
		nub += bend - b;
	}
	h->lo = hlo;
	h->hi = hhi;
	if (hlo > hhi)
		return;
	/* a leaf no bundle sets is empty: all of them but where every spine
	 * reaches every superspine of the range, as meshed ones do */
	for (size_t u = hlo; u <= hhi; u++)
		for (int c = nub == (hhi - hlo + 1) * n ? n : 0; c < np; c++)
			tk[u * stride + nin + c] = INT64_MIN;
	/* superspines out of reach get leaves too, but never a root */
	for (int c = 0; c < n; c++) {
		int s = spines[c], sa = sp[lo + lb[s]];

		for (int b = ub0[s]; b < ub0[s + 1]; b++)
			tk[(size_t)usup[b] * stride + nin + c] =
				half_key(sa, usp[b]);
	}
	/* the others' roots stay empty */
	for (size_t u = hlo; u <= hhi; u++) {
		int64_t *t = tk + u * stride;

		if (reach && !reach[u])
			continue;
		for (int i = nin - 1; i >= 0; i--)
			t[i] = half_play(t, i);
	}
}

/*
 * h as best_half() would find it again after one more put() through
 * spine s (on h's side): only s's halves may have lost room (its leaf
 * bundle's, and one superspine's bundle), so only s's leaves change, and
 * each of their superspines' best is played again up its path. The first
 * flow of a leaf's pairs pays for all its spines, the others for one.
 */
static void half_update(const struct rp_plan *pl, const int *spines, int n,
			int leaf, bool down, struct half *h, int s)
{
	const struct rp_route *r = pl->route;
	const int *usp = r->sp + 2 * r->nb + (down ? r->nub : 0);
	int c = 0, sa;

	while (c < n && spines[c] != s)
		c++;
	if (c == n)
		return;
	sa = r->sp[(down ? r->nb : 0) +
		   pl->bidx[(size_t)leaf * pl->t->nspines + s]];
	for (int b = pl->spine_ub0[s]; b < pl->spine_ub0[s + 1]; b++) {
		size_t u = r->usup[b];
		int64_t *t = h->tk + u * h->stride;

		/* superspines the side may not use have none */
		if (t[0] == INT64_MIN)
			continue;
		t[h->nin + c] = half_key(sa, usp[b]);
		/* a node that keeps its key keeps its ancestors' */
		for (int i = h->nin + c; i > 0;) {
			int64_t k;

			i = (i - 1) / 4;
			k = half_play(t, i);
			if (k == t[i])
				break;
			t[i] = k;
		}
	}
}

/* h for nothing (nu superspines): its roots empty. */
static void half_forget(struct half *h, size_t nu)
{
	for (size_t u = h->lo; u <= h->hi && u < nu; u++)
		h->tk[u * h->stride] = INT64_MIN;
	h->leaf = -1;
	h->lo = nu;
	h->hi = 0;
}

/*
 * Whether h holds the halves through a leaf's n spines toward reach now,
 * or one put() away from it (half_update() catches up). Pairs come by
 * source leaf, whose first halves thus stay from pair to pair as a
 * pair's halves do from flow to flow.
 */
static bool half_holds(const struct rp_route *r, const struct half *h,
		       int leaf, const int *spines, int n,
		       const uint8_t *reach)
{
	if (h->leaf != leaf || h->n != n ||
	    (r->gen != h->gen && (r->gen != h->gen + 1 || r->put_gen != r->gen)))
		return false;
	if (h->spines != spines &&
	    memcmp(h->spines, spines, n * sizeof(*spines)))
		return false;
	return h->reach == reach || h->lo > h->hi ||
	       !memcmp(h->reach + h->lo, reach + h->lo, h->hi - h->lo + 1);
}

/*
 * One side's halves for a pair, found afresh or kept (s: the spine of the
 * last put() on this side).
 */
static void half_side(const struct rp_plan *pl, struct half *h,
		      const int *spines, int n, int leaf, bool down,
		      const uint8_t *reach, int s)
{
	struct rp_route *r = pl->route;

	if (!half_holds(r, h, leaf, spines, n, reach)) {
		half_forget(h, pl->t->nsupers);
		best_half(pl, spines, n, leaf, down, reach, h);
		h->leaf = leaf;
		h->n = n;
		h->spines = spines;
		h->reach = reach;
	} else if (r->gen != h->gen) {
		half_update(pl, spines, n, leaf, down, h, s);
	}
	h->gen = r->gen;
}

/*
 * The best route between pods without listing them all: per superspine u
 * the best first half (spine s: leaf-s up, s-u up) and the best second
 * half (spine s2: u-s2 down, s2-leaf down), then the best u. Ties go to
 * the lowest indices. *x gets the route; returns its room (<= 0: none has
 * room), or INT_MIN when the pair has no route. The halves stay for the
 * next flow (half_side()).
 */
static int best_far(const struct rp_plan *pl, const struct pair *p,
		    struct rt *x)
{
	struct rp_route *r = pl->route;
	size_t nu = pl->t->nsupers;
	struct half *a = &r->a, *b = &r->b;
	int best = -1, bm = -(1 << 30), bsum = -(1 << 30);
	size_t lo, hi;

	half_side(pl, a, &pl->cs[p->c0], p->nc, p->src, false,
		  &pl->ureach[(size_t)p->dst * nu], r->put_rt.s);
	half_side(pl, b, &pl->cs[p->k0], p->nk, p->dst, true, NULL,
		  r->put_rt.s2);
	/* a side's roots outside its range are empty */
	lo = a->lo > b->lo ? a->lo : b->lo;
	hi = a->hi < b->hi ? a->hi : b->hi;
	for (size_t u = lo; u <= hi && u < nu; u++) {
		int64_t ka = half_best(a, u), kb = half_best(b, u);
		int m, sum;

		if (ka == INT64_MIN || kb == INT64_MIN)
			continue;
		m = key_m(ka) < key_m(kb) ? key_m(ka) : key_m(kb);
		sum = key_sum(ka) + key_sum(kb);
		if (best < 0 || better(m, sum, bm, bsum)) {
			best = u;
			bm = m;
			bsum = sum;
		}
	}
	if (best >= 0)
		*x = (struct rt){ half_spine(a, &pl->cs[p->c0], best), best,
				  half_spine(b, &pl->cs[p->k0], best) };
	return best < 0 ? INT_MIN : bm;
}

/* A route with room for a flow of pair p into *x, else false. */
static int room_route(struct rp_plan *pl, const struct pair *p, struct rt *x)
{
	int n, b;

	if (p->xpod)
		return best_far(pl, p, x) > 0;
	n = gen_routes(pl, p);
	if (n < 0)
		return n;
	b = best_route(pl, p, pl->route->buf, n);
	if (b >= 0)
		*x = pl->route->buf[b];
	return b >= 0;
}

/*
 * Places flow fi, moving others if need be: a route with room, else a
 * route with exactly one full resource, after a flow on that resource
 * (not in the chain) was moved to a route of its own with room, and so on
 * to the given depth.
 */
static int place(struct rp_plan *pl, int fi, int depth)
{
	struct rp_route *r = pl->route;
	const struct pair *p = &pl->pairs[pl->flows[fi].pair];
	struct rt *routes, x;
	int n, b, ret = 0;

	b = room_route(pl, p, &x);
	if (b)
		put(pl, fi, &x);
	if (b || !depth || r->budget <= 0)
		return b;
	n = gen_routes(pl, p);
	if (n < 0)
		return n;
	r->budget -= n / 64;
	routes = malloc(n * sizeof(*routes));
	if (!routes)
		return -ENOMEM;
	memcpy(routes, r->buf, n * sizeof(*routes));
	r->lock[fi] = 1;
	for (int i = 0; i < n && !ret && r->budget > 0; i++) {
		int res[4], k = route_res(pl, p->src, p->dst, &routes[i], res);
		int full = -1, nfull = 0, *cand, nc = 0;

		for (int j = 0; j < k; j++)
			if (spare(pl, res[j]) <= 0) {
				full = res[j];
				nfull++;
			}
		if (nfull != 1)
			continue;
		cand = malloc((pl->T * r->cap[full] - r->sp[full] + 1) *
			      sizeof(int));
		if (!cand) {
			ret = -ENOMEM;
			break;
		}
		for (int node = r->head[full]; node >= 0; node = r->nxt[node])
			if (!r->lock[node / 4])
				cand[nc++] = node / 4;
		for (int j = 0; j < nc && !ret && r->budget > 0; j++) {
			int g = cand[j];
			struct rt old = flow_rt(pl, g);

			r->budget--;
			take(pl, g);
			put(pl, fi, &routes[i]);
			ret = place(pl, g, depth - 1);
			if (!ret) {
				take(pl, fi);
				put(pl, g, &old);
			}
		}
		free(cand);
	}
	r->lock[fi] = 0;
	free(routes);
	return ret;
}

int rp_plan_route_assign(struct rp_plan *pl, int T, int attempt)
{
	struct rp_route *r;
	int ret;

	if (!pl->route) {
		ret = route_init(pl);
		if (ret)
			return ret;
	}
	r = pl->route;
	pl->T = T;
	r->attempt = attempt < 0 ? 0 : attempt;
	half_forget(&r->a, pl->t->nsupers);
	half_forget(&r->b, pl->t->nsupers);
	for (int i = 0; i < r->nres; i++) {
		r->sp[i] = T * r->cap[i];
		r->head[i] = -1;
	}
	for (int i = 0; i < 4 * pl->nflows; i++)
		r->res[i] = -1;
	for (int i = 0; i < pl->nflows; i++) {
		pl->flows[i].spine = -1;
		pl->f3[i].super = pl->f3[i].spine2 = -1;
	}
	/* as the colouring, with the pairs between pods first */
	rp_plan_pair_order(pl, r->porder, r->attempt, true);
	/* a stable re-plan first puts flows back on their previous routes */
	for (int i = 0; attempt < 0 && i < pl->npairs; i++) {
		const struct pair *p = &pl->pairs[r->porder[i]];

		for (int j = 0; pair_routed(p) && j < p->nf; j++) {
			int fi = pl->order[p->f0 + j], sum;
			struct rt x;

			if (prev_route(pl, fi, p, &x) && room(pl, p, &x, &sum) > 0)
				put(pl, fi, &x);
		}
	}
	for (int i = 0; i < pl->npairs; i++) {
		const struct pair *p = &pl->pairs[r->porder[i]];

		if (!pair_routed(p))
			continue;
		for (int j = 0; j < p->nf; j++) {
			int fi = pl->order[p->f0 + j];
			struct rt x;

			if (pl->flows[fi].spine >= 0)
				continue;
			ret = room_route(pl, p, &x);
			if (ret < 0)
				return ret;
			if (ret) {
				put(pl, fi, &x);
				continue;
			}
			r->budget = RP_ROUTE_BUDGET;
			ret = place(pl, fi, RP_ROUTE_DEPTH);
			if (ret < 0)
				return ret;
			if (!ret)
				return -EAGAIN;
		}
	}
	return 0;
}
