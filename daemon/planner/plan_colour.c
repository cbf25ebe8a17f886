// SPDX-License-Identifier: GPL-2.0
/*
 * The lower bound on the most loaded link and the spine assignment that
 * meets it: a capacitated bipartite edge colouring (see planner.rst).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_colour.h"

/*
 * Max flow (in links) between a pair's leaves through the superspines: a
 * small layered graph, source leaf -> first-hop spines -> superspines that
 * reach dst -> last-hop spines -> dst, augmenting paths found breadth
 * first (Edmonds-Karp). Nodes: 0 the source, 1 + s spines, 1 + ns + u
 * superspines, 1 + ns + nu the sink.
 */
struct mflow {
	int n, m, cap_e;
	int *head, *nxt, *to, *cap, *pe, *q, *seen;
	int stamp;
};

static void mf_free(struct mflow *g)
{
	free(g->head);
	free(g->nxt);
	free(g->to);
	free(g->cap);
	free(g->pe);
	free(g->q);
	free(g->seen);
}

static int mf_init(struct mflow *g, const struct rp_plan *pl)
{
	const struct rp_topo *t = pl->t;

	memset(g, 0, sizeof(*g));
	g->n = t->nspines + t->nsupers + 2;
	g->cap_e = 2 * (2 * t->nspines + 2 * pl->nubundles) + 2;
	g->head = malloc(g->n * sizeof(int));
	g->pe = malloc(g->n * sizeof(int));
	g->q = malloc(g->n * sizeof(int));
	g->seen = calloc(g->n, sizeof(int));
	g->nxt = malloc(g->cap_e * sizeof(int));
	g->to = malloc(g->cap_e * sizeof(int));
	g->cap = malloc(g->cap_e * sizeof(int));
	return g->head && g->pe && g->q && g->seen && g->nxt && g->to && g->cap ?
	       0 : -ENOMEM;
}

static void mf_edge(struct mflow *g, int u, int v, int c)
{
	g->to[g->m] = v;
	g->cap[g->m] = c;
	g->nxt[g->m] = g->head[u];
	g->head[u] = g->m++;
	g->to[g->m] = u;
	g->cap[g->m] = 0;
	g->nxt[g->m] = g->head[v];
	g->head[v] = g->m++;
}

static long mf_run(struct mflow *g, int src, int sink)
{
	long flow = 0;

	for (;;) {
		int qh = 0, qt = 0, st = ++g->stamp, aug = 1 << 30;

		g->q[qt++] = src;
		g->seen[src] = st;
		while (qh < qt && g->seen[sink] != st) {
			int x = g->q[qh++];

			for (int e = g->head[x]; e >= 0; e = g->nxt[e])
				if (g->cap[e] > 0 && g->seen[g->to[e]] != st) {
					g->seen[g->to[e]] = st;
					g->pe[g->to[e]] = e;
					g->q[qt++] = g->to[e];
				}
		}
		if (g->seen[sink] != st)
			return flow;
		for (int x = sink; x != src; x = g->to[g->pe[x] ^ 1])
			aug = g->cap[g->pe[x]] < aug ? g->cap[g->pe[x]] : aug;
		for (int x = sink; x != src; x = g->to[g->pe[x] ^ 1]) {
			g->cap[g->pe[x]] -= aug;
			g->cap[g->pe[x] ^ 1] += aug;
		}
		flow += aug;
	}
}

static long xpod_cap(const struct rp_plan *pl, const struct pair *p,
		     struct mflow *g)
{
	const struct rp_topo *t = pl->t;
	int ns = t->nspines, sink = 1 + ns + t->nsupers;

	g->m = 0;
	for (int i = 0; i < g->n; i++)
		g->head[i] = -1;
	for (int c = 0; c < p->nc; c++) {
		int s = pl->cs[p->c0 + c];

		mf_edge(g, 0, 1 + s, bcount(pl, p->src, s));
		for (int b = pl->spine_ub0[s]; b < pl->spine_ub0[s + 1]; b++) {
			const struct ubundle *k = &pl->ubundles[b];

			if (ureaches(pl, k->super, p->dst))
				mf_edge(g, 1 + s, 1 + ns + k->super, k->n);
		}
	}
	for (int c = 0; c < p->nk; c++) {
		int s = pl->cs[p->k0 + c];

		mf_edge(g, 1 + s, sink, bcount(pl, p->dst, s));
		for (int b = pl->spine_ub0[s]; b < pl->spine_ub0[s + 1]; b++) {
			const struct ubundle *k = &pl->ubundles[b];

			mf_edge(g, 1 + ns + k->super, 1 + s, k->n);
		}
	}
	return mf_run(g, 0, sink);
}

static int ceil_div(long a, long b)
{
	return b > 0 ? (a + b - 1) / b : 0;
}

/*
 * Three tiers, the superspine layer: the flows leaving a pod over the
 * superspine links of the spines they can leave by (first hops), those
 * entering one likewise (last hops), and between two pods per superspine
 * the lesser of the two.
 */
static int pod_bound(const struct rp_plan *pl)
{
	const struct rp_topo *t = pl->t;
	size_t np = t->npods, nu = t->nsupers;
	long *up = calloc(np * nu + 1, sizeof(long));
	long *dn = calloc(np * nu + 1, sizeof(long));
	long *out = calloc(np + 1, sizeof(long)), *in = calloc(np + 1, sizeof(long));
	long *dem = calloc(np * np + 1, sizeof(long));
	uint8_t *hop = calloc(t->nspines + 1, 1);
	int lb = 0;

	if (!up || !dn || !out || !in || !dem || !hop) {
		lb = -ENOMEM;
		goto out;
	}
	/* spines that are a first (1) or last (2) hop of some pair */
	for (int i = 0; i < pl->npairs; i++) {
		const struct pair *p = &pl->pairs[i];

		if (!pair_routed(p) || !p->xpod)
			continue;
		dem[rp_leaf_pod(t, p->src) * np + rp_leaf_pod(t, p->dst)] += p->d;
		for (int c = 0; c < p->nc; c++)
			hop[pl->cs[p->c0 + c]] |= 1;
		for (int c = 0; c < p->nk; c++)
			hop[pl->cs[p->k0 + c]] |= 2;
	}
	for (int b = 0; b < pl->nubundles; b++) {
		const struct ubundle *k = &pl->ubundles[b];
		size_t x = rp_spine_pod(t, k->spine) * nu + k->super;

		if (hop[k->spine] & 1)
			up[x] += k->n;
		if (hop[k->spine] & 2)
			dn[x] += k->n;
	}
	for (size_t a = 0; a < np; a++)
		for (size_t b = 0; b < np; b++) {
			long d = dem[a * np + b], c = 0;

			if (!d)
				continue;
			out[a] += d;
			in[b] += d;
			for (size_t u = 0; u < nu; u++)
				c += up[a * nu + u] < dn[b * nu + u] ?
				     up[a * nu + u] : dn[b * nu + u];
			if (ceil_div(d, c) > lb)
				lb = ceil_div(d, c);
		}
	for (size_t a = 0; a < np; a++) {
		long cu = 0, cd = 0;

		for (size_t u = 0; u < nu; u++) {
			cu += up[a * nu + u];
			cd += dn[a * nu + u];
		}
		if (ceil_div(out[a], cu) > lb)
			lb = ceil_div(out[a], cu);
		if (ceil_div(in[a], cd) > lb)
			lb = ceil_div(in[a], cd);
	}
out:
	free(up);
	free(dn);
	free(out);
	free(in);
	free(dem);
	free(hop);
	return lb;
}

/*
 * Per leaf and side: the demand of its pairs over the links to the spines
 * they can use first (source side) or last (destination side). Three tiers
 * also take the pairs within the pod and those between pods apart (cls 1
 * and 2), whose spines differ.
 */
static int leaf_bound(struct rp_plan *pl, int *mark, int cls)
{
	const struct rp_topo *t = pl->t;
	int lb = 0;

	for (int side = 0; side < 2; side++) {
		for (int l = 0; l < t->nleaves; l++) {
			int p0 = side ? pl->dst_p0[l] : pl->src_p0[l];
			int p1 = side ? pl->dst_p0[l + 1] : pl->src_p0[l + 1];
			long dem = 0, cap = 0;

			for (int k = p0; k < p1; k++) {
				const struct pair *p = &pl->pairs[side ?
					pl->dst_adj[k] : k];
				int h0 = side ? p->k0 : p->c0;
				int nh = side ? p->nk : p->nc;

				if (!pair_routed(p) || (cls && p->xpod != (cls == 2)))
					continue;
				dem += p->d;
				for (int c = 0; c < nh; c++) {
					int s = pl->cs[h0 + c];

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
	return lb;
}

int rp_plan_lower_bound(struct rp_plan *pl)
{
	const struct rp_topo *t = pl->t;
	int *mark = calloc(t->nspines + 1, sizeof(int));
	struct mflow g = { 0 };
	int lb = 0, v;

	if (!mark || (t->nsupers && mf_init(&g, pl))) {
		lb = -ENOMEM;
		goto out;
	}
	for (int cls = 0; cls < (t->nsupers ? 3 : 1); cls++) {
		v = leaf_bound(pl, mark, cls);
		lb = v > lb ? v : lb;
	}
	for (int i = 0; i < pl->npairs; i++) {
		const struct pair *p = &pl->pairs[i];
		long cap = 0;

		if (!pair_routed(p) || p->xpod)
			continue;
		for (int c = 0; c < p->nc; c++) {
			int s = pl->cs[p->c0 + c];
			int a = bcount(pl, p->src, s), b = bcount(pl, p->dst, s);

			cap += a < b ? a : b;
		}
		if (ceil_div(p->d, cap) > lb)
			lb = ceil_div(p->d, cap);
	}
	if (t->nsupers) {
		v = pod_bound(pl);
		if (v < 0) {
			lb = v;
			goto out;
		}
		lb = v > lb ? v : lb;
	}
	/*
	 * Between pods the pair term is the max flow through the superspines,
	 * computed only where it can raise the bound (demand above it): a
	 * pair's term is at most its demand.
	 */
	for (int i = 0; i < pl->npairs; i++) {
		const struct pair *p = &pl->pairs[i];

		if (pair_routed(p) && p->xpod && p->d > lb) {
			v = ceil_div(p->d, xpod_cap(pl, p, &g));
			lb = v > lb ? v : lb;
		}
	}
out:
	free(mark);
	if (t->nsupers)
		mf_free(&g);
	return lb;
}

/* ---- spine assignment: capacitated bipartite edge colouring --------- */

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

int rp_plan_colour(struct rp_plan *pl, int T, int attempt)
{
	const struct rp_topo *t = pl->t;
	size_t cells = (size_t)t->nleaves * t->nspines;
	struct rp_keep *keep = NULL;
	int ret;

	pl->attempt = attempt < 0 ? 0 : attempt;
	rp_plan_pair_order(pl, pl->porder, pl->attempt, false);

	pl->T = T;
	memset(pl->ld[0], 0, cells * sizeof(int));
	memset(pl->ld[1], 0, cells * sizeof(int));
	for (int i = 0; i < pl->npairs; i++)
		memset(&pl->x[pl->pairs[i].c0], 0,
		       pl->pairs[i].nc * sizeof(int));
	/*
	 * A stable re-plan first puts every pair's units where its flows
	 * were, room allowing, then the rest: new units go round them, and
	 * repairs move few of them.
	 */
	for (int i = 0; attempt < 0 && pl->prefer && i < pl->npairs; i++) {
		int pi = pl->porder[i];
		struct pair *p = &pl->pairs[pi];

		pl->seeded[pi] = 0;
		if (!pair_routed(p))
			continue;
		for (int c = 0; c < p->nc; c++) {
			int s = pl->cs[p->c0 + c];

			for (int k = 0; k < pl->prefer[p->c0 + c] &&
			     pl->seeded[pi] < p->d &&
			     spare(pl, 0, p->src, s) > 0 &&
			     spare(pl, 1, p->dst, s) > 0; k++) {
				put_unit(pl, p, s);
				pl->seeded[pi]++;
			}
		}
	}
	/* a stable re-plan places the rest as plan_colour_stable.c says */
	if (attempt < 0 && pl->prefer) {
		ret = rp_keep_new(pl, &keep);
		if (ret)
			return ret;
	}
	for (int i = 0; i < pl->npairs; i++) {
		int pi = pl->porder[i];
		struct pair *p = &pl->pairs[pi];
		int u = keep ? pl->seeded[pi] : 0;

		if (!pair_routed(p))
			continue;
		for (; u < p->d; u++) {
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
			else if (keep)
				rp_keep_place(pl, keep, pi);
			else if (!repair(pl, p))
				return -EAGAIN;
		}
	}
	ret = keep ? rp_keep_finish(pl, keep) : 0;
	rp_keep_free(keep);
	return ret;
}
