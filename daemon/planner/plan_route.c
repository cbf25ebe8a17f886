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

/* best_far(): per superspine the best half route on one side. */
struct half {
	int64_t *k;		/* its far_key(), INT64_MIN: none yet */
	int *s, *m, *sum;	/* its spine, room and sum of spares */
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
	int *csa, *crow;	/* half_update(): per spine of the pair */
	struct half a, b;	/* best_far(): first and second halves */
	/*
	 * a and b are pair far_pair's (-1: none) as of change far_gen, set
	 * at most for superspines [far_lo, far_hi]; gen counts put()s and
	 * take()s, put_* is the last put(): its change, pair and route
	 */
	int far_pair, put_pair;
	size_t far_lo, far_hi;
	unsigned long gen, far_gen, put_gen;
	struct rt put_rt;
};

static void half_free(struct half *h)
{
	free(h->k);
	free(h->s);
	free(h->m);
	free(h->sum);
}

/* Every superspine without a half route yet, as best_far() expects. */
static int half_init(struct half *h, int nsupers)
{
	h->k = calloc(nsupers + 1, sizeof(*h->k));
	h->s = calloc(nsupers + 1, sizeof(int));
	h->m = calloc(nsupers + 1, sizeof(int));
	h->sum = calloc(nsupers + 1, sizeof(int));
	if (!h->k || !h->s || !h->m || !h->sum)
		return -ENOMEM;
	for (int u = 0; u < nsupers; u++)
		h->k[u] = INT64_MIN;
	return 0;
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
	free(r->csa);
	free(r->crow);
	half_free(&r->a);
	half_free(&r->b);
	free(r);
	pl->route = NULL;
}

static int route_init(struct rp_plan *pl)
{
	struct rp_route *r = calloc(1, sizeof(*r));
	size_t nodes = 4 * (size_t)pl->nflows + 1;

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
	r->csa = calloc(pl->t->nspines + 1, sizeof(int));
	r->crow = calloc(pl->t->nspines + 1, sizeof(int));
	if (!r->cap || !r->sp || !r->head || !r->nxt || !r->prv || !r->res ||
	    !r->lock || !r->porder || !r->usup || !r->csa || !r->crow ||
	    half_init(&r->a, pl->t->nsupers) || half_init(&r->b, pl->t->nsupers))
		return -ENOMEM;
	for (int k = 0; k < r->nub; k++)
		r->usup[k] = pl->ubundles[k].super;
	r->far_pair = -1;
	r->far_lo = pl->t->nsupers;
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
	r->put_pair = f->pair;
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

/* Half route s-u (spares sa, su) into h when it beats u's best so far. */
static inline void half_try(const struct half *h, int u, int s, int sa,
			    int su)
{
	int m = sa < su ? sa : su;
	int64_t k = far_key(m, sa + su);

	if (k > h->k[u]) {
		h->k[u] = k;
		h->s[u] = s;
		h->m[u] = m;
		h->sum[u] = sa + su;
	}
}

/*
 * One side of best_far(): per superspine u, the best half route through
 * spines[0..n) (leaf bundle leaf-s, then s-u; up, or down the other way)
 * into h, the first of equals kept. reach: the superspines the half may
 * use, NULL: all. Widens [*ulo, *uhi] to the superspines it may have set.
 * Locals and restrict let the compiler keep the arrays in registers:
 * this is most of three tiers' route assignment.
 */
static void best_half(const struct rp_plan *pl, const int *spines, int n,
		      int leaf, bool down, const uint8_t *restrict reach,
		      const struct half *h, size_t *ulo, size_t *uhi)
{
	const struct rp_route *r = pl->route;
	const int *restrict sp = r->sp, *restrict usup = r->usup;
	const int *restrict ub0 = pl->spine_ub0;
	const int *restrict lb = pl->bidx + (size_t)leaf * pl->t->nspines;
	const int *restrict usp = sp + 2 * r->nb + (down ? r->nub : 0);
	int lo = down ? r->nb : 0;

	for (int c = 0; c < n; c++) {
		int s = spines[c], b = ub0[s], bend = ub0[s + 1];
		int sa = sp[lo + lb[s]];

		if (b == bend)
			continue;
		/* by (spine, super): the first and last are the extremes */
		*ulo = (size_t)usup[b] < *ulo ? (size_t)usup[b] : *ulo;
		*uhi = (size_t)usup[bend - 1] > *uhi ? (size_t)usup[bend - 1] :
			*uhi;
		for (; b < bend; b++) {
			int u = usup[b];

			if (!reach || reach[u])
				half_try(h, u, s, sa, usp[b]);
		}
	}
}

/*
 * Superspine u's best half chosen again among n spines, in best_half()'s
 * order, from their leaf bundles' spares sa[] and ubidx rows row[]; u has
 * one at least.
 */
static void half_choose(const struct rp_plan *pl, const int *restrict sa,
			const int *restrict row, int n, bool down,
			const struct half *h, int u)
{
	const struct rp_route *r = pl->route;
	const int *restrict ubu = pl->ubidx + u;
	const int *restrict usp = r->sp + 2 * r->nb + (down ? r->nub : 0);
	int bc = -1, bsu = 0;
	int64_t bk = INT64_MIN;

	for (int c = 0; c < n; c++) {
		int b = ubu[row[c]], su;
		int64_t k;

		if (b < 0)
			continue;
		su = usp[b];
		k = far_key(sa[c] < su ? sa[c] : su, sa[c] + su);
		if (k > bk) {
			bk = k;
			bc = c;
			bsu = su;
		}
	}
	h->k[u] = bk;
	h->m[u] = sa[bc] < bsu ? sa[bc] : bsu;
	h->sum[u] = sa[bc] + bsu;
	/* the row is the spine's */
	h->s[u] = row[bc] / (int)pl->t->nsupers;
}

/*
 * h as best_half() would find it again after one more flow of its pair
 * went through spine s: each half through s lost room (at least its leaf
 * bundle's), the others kept theirs, so only a superspine whose best was
 * through s can change; it is chosen again. The first flow of a pair pays
 * for all its spines, the others for fewer.
 */
static void half_update(const struct rp_plan *pl, const int *spines, int n,
			int leaf, bool down, const struct half *h, int s)
{
	const struct rp_route *r = pl->route;
	const int *lb = pl->bidx + (size_t)leaf * pl->t->nspines;
	int lo = down ? r->nb : 0;

	for (int c = 0; c < n; c++) {
		r->csa[c] = r->sp[lo + lb[spines[c]]];
		r->crow[c] = spines[c] * pl->t->nsupers;
	}
	for (int b = pl->spine_ub0[s]; b < pl->spine_ub0[s + 1]; b++) {
		int u = r->usup[b];

		if (h->k[u] != INT64_MIN && h->s[u] == s)
			half_choose(pl, r->csa, r->crow, n, down, h, u);
	}
}

/* No pair's halves in r (nu superspines): best_far() starts afresh. */
static void far_forget(struct rp_route *r, size_t nu)
{
	for (size_t u = r->far_lo; u <= r->far_hi && u < nu; u++)
		r->a.k[u] = r->b.k[u] = INT64_MIN;
	r->far_pair = -1;
	r->far_lo = nu;
	r->far_hi = 0;
}

/*
 * Whether r's halves are pair pi's now, or one put() of a flow of pi
 * away from it (half_update() catches up).
 */
static bool far_cached(const struct rp_route *r, int pi)
{
	if (r->far_pair != pi)
		return false;
	return r->gen == r->far_gen ||
	       (r->gen == r->far_gen + 1 && r->put_gen == r->gen &&
		r->put_pair == pi);
}

/*
 * The best route between pods without listing them all: per superspine u
 * the best first half (spine s: leaf-s up, s-u up) and the best second
 * half (spine s2: u-s2 down, s2-leaf down), then the best u. Ties go to
 * the lowest indices. *x gets the route; returns its room (<= 0: none has
 * room), or INT_MIN when the pair has no route. The halves stay for the
 * pair's next flow.
 */
static int best_far(const struct rp_plan *pl, const struct pair *p,
		    struct rt *x)
{
	struct rp_route *r = pl->route;
	size_t nu = pl->t->nsupers;
	const struct half *a = &r->a, *b = &r->b;
	int best = -1, bm = -(1 << 30), bsum = -(1 << 30), pi = p - pl->pairs;

	if (!far_cached(r, pi)) {
		far_forget(r, nu);
		best_half(pl, &pl->cs[p->c0], p->nc, p->src, false,
			  &pl->ureach[(size_t)p->dst * nu], a, &r->far_lo,
			  &r->far_hi);
		best_half(pl, &pl->cs[p->k0], p->nk, p->dst, true, NULL, b,
			  &r->far_lo, &r->far_hi);
		r->far_pair = pi;
	} else if (r->gen != r->far_gen) {
		half_update(pl, &pl->cs[p->c0], p->nc, p->src, false, a,
			    r->put_rt.s);
		half_update(pl, &pl->cs[p->k0], p->nk, p->dst, true, b,
			    r->put_rt.s2);
	}
	r->far_gen = r->gen;
	for (size_t u = r->far_lo; u <= r->far_hi && u < nu; u++) {
		int m, sum;

		if (a->k[u] == INT64_MIN || b->k[u] == INT64_MIN)
			continue;
		m = a->m[u] < b->m[u] ? a->m[u] : b->m[u];
		sum = a->sum[u] + b->sum[u];
		if (best < 0 || better(m, sum, bm, bsum)) {
			best = u;
			bm = m;
			bsum = sum;
		}
	}
	if (best >= 0)
		*x = (struct rt){ a->s[best], best, b->s[best] };
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
	far_forget(r, pl->t->nsupers);
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
