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
 * Resources: the directions of bundles. Up leaf-spine bundle b is b, down
 * nb + b; spine-superspine bundle k up 2 nb + k, down 2 nb + nub + k. Each
 * flow holds up to four (node 4 * flow + hop) in per-resource lists.
 */
struct rp_route {
	int nb, nub, nres;
	int *cap, *load, *head;
	int *nxt, *prv, *res;	/* per node */
	int *lock;		/* per flow: in the current ejection chain */
	int *porder;
	int attempt;
	long budget;
	struct rt *buf;		/* routes of the pair being placed */
	int nbuf;
	/*
	 * best_far(): per superspine the best half route each side, and
	 * its far_key() (INT64_MIN: none yet)
	 */
	int *am, *as, *asum, *bm, *bs, *bsum;
	int64_t *ak, *bk;
};

void rp_plan_route_free(struct rp_plan *pl)
{
	struct rp_route *r = pl->route;

	if (!r)
		return;
	free(r->cap);
	free(r->load);
	free(r->head);
	free(r->nxt);
	free(r->prv);
	free(r->res);
	free(r->lock);
	free(r->porder);
	free(r->buf);
	free(r->am);
	free(r->as);
	free(r->asum);
	free(r->bm);
	free(r->bs);
	free(r->bsum);
	free(r->ak);
	free(r->bk);
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
	r->load = calloc(r->nres + 1, sizeof(int));
	r->head = calloc(r->nres + 1, sizeof(int));
	r->nxt = calloc(nodes, sizeof(int));
	r->prv = calloc(nodes, sizeof(int));
	r->res = calloc(nodes, sizeof(int));
	r->lock = calloc(pl->nflows + 1, sizeof(int));
	r->porder = calloc(pl->npairs + 1, sizeof(int));
	r->am = calloc(pl->t->nsupers + 1, sizeof(int));
	r->as = calloc(pl->t->nsupers + 1, sizeof(int));
	r->asum = calloc(pl->t->nsupers + 1, sizeof(int));
	r->bm = calloc(pl->t->nsupers + 1, sizeof(int));
	r->bs = calloc(pl->t->nsupers + 1, sizeof(int));
	r->bsum = calloc(pl->t->nsupers + 1, sizeof(int));
	r->ak = calloc(pl->t->nsupers + 1, sizeof(*r->ak));
	r->bk = calloc(pl->t->nsupers + 1, sizeof(*r->bk));
	if (!r->cap || !r->load || !r->head || !r->nxt || !r->prv || !r->res ||
	    !r->lock || !r->porder || !r->am || !r->as || !r->asum || !r->bm ||
	    !r->bs || !r->bsum || !r->ak || !r->bk)
		return -ENOMEM;
	/* best_far() leaves them so between calls */
	for (int u = 0; u < pl->t->nsupers; u++)
		r->ak[u] = r->bk[u] = INT64_MIN;
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

	return pl->T * r->cap[res] - r->load[res];
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
		r->load[res[k]]++;
		r->prv[node] = -1;
		r->nxt[node] = h;
		if (h >= 0)
			r->prv[h] = node;
		r->head[res[k]] = node;
	}
	f->spine = x->s;
	pl->f3[fi].super = x->u;
	pl->f3[fi].spine2 = x->s2;
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
		r->load[x]--;
		r->res[node] = -1;
	}
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

/*
 * The best route between pods without listing them all: per superspine u
 * the best first half (spine s: leaf-s up, s-u up) and the best second
 * half (spine s2: u-s2 down, s2-leaf down), then the best u. Ties go to
 * the lowest indices. *x gets the route; returns its room (<= 0: none has
 * room), or INT_MIN when the pair has no route.
 */
static int best_far(const struct rp_plan *pl, const struct pair *p,
		    struct rt *x)
{
	const struct rp_topo *t = pl->t;
	const struct rp_route *r = pl->route;
	size_t ns = t->nspines, nu = t->nsupers;
	const struct ubundle *ub = pl->ubundles;
	int64_t *ak = r->ak, *bk = r->bk;
	int best = -1, bm = -(1 << 30), bsum = -(1 << 30);
	int uo = 2 * r->nb, dno = 2 * r->nb + r->nub;
	/* the superspines touched: ak[] and bk[] are INT64_MIN elsewhere */
	size_t ulo = nu, uhi = 0;

	for (int c = 0; c < p->nc; c++) {
		int s = pl->cs[p->c0 + c];
		int sa = spare(pl, pl->bidx[p->src * ns + s]);
		int bend = pl->spine_ub0[s + 1];

		for (int b = pl->spine_ub0[s]; b < bend; b++) {
			int u = ub[b].super;
			int su = spare(pl, uo + b);
			int m = sa < su ? sa : su;
			int64_t k;

			if (!ureaches(pl, u, p->dst))
				continue;
			k = far_key(m, sa + su);
			if (k > ak[u]) {
				if (ak[u] == INT64_MIN) {
					ulo = (size_t)u < ulo ? (size_t)u : ulo;
					uhi = (size_t)u > uhi ? (size_t)u : uhi;
				}
				ak[u] = k;
				r->as[u] = s;
				r->am[u] = m;
				r->asum[u] = sa + su;
			}
		}
	}
	for (int c = 0; c < p->nk; c++) {
		int s2 = pl->cs[p->k0 + c];
		int sd = spare(pl, r->nb + pl->bidx[p->dst * ns + s2]);
		int bend = pl->spine_ub0[s2 + 1];

		for (int b = pl->spine_ub0[s2]; b < bend; b++) {
			int u = ub[b].super;
			int su = spare(pl, dno + b);
			int m = sd < su ? sd : su;
			int64_t k = far_key(m, sd + su);

			if (k > bk[u]) {
				if (bk[u] == INT64_MIN) {
					ulo = (size_t)u < ulo ? (size_t)u : ulo;
					uhi = (size_t)u > uhi ? (size_t)u : uhi;
				}
				bk[u] = k;
				r->bs[u] = s2;
				r->bm[u] = m;
				r->bsum[u] = sd + su;
			}
		}
	}
	for (size_t u = ulo; u <= uhi && u < nu; u++) {
		int m, sum;

		if (ak[u] == INT64_MIN || bk[u] == INT64_MIN)
			continue;
		m = r->am[u] < r->bm[u] ? r->am[u] : r->bm[u];
		sum = r->asum[u] + r->bsum[u];
		if (best < 0 || better(m, sum, bm, bsum)) {
			best = u;
			bm = m;
			bsum = sum;
		}
	}
	if (best >= 0)
		*x = (struct rt){ r->as[best], best, r->bs[best] };
	for (size_t u = ulo; u <= uhi && u < nu; u++)
		ak[u] = bk[u] = INT64_MIN;
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
		cand = malloc((r->load[full] + 1) * sizeof(int));
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
	memset(r->load, 0, r->nres * sizeof(int));
	for (int i = 0; i < r->nres; i++)
		r->head[i] = -1;
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
