// SPDX-License-Identifier: GPL-2.0
/*
 * The spine colouring of a stable re-plan: new units placed around the
 * running ones, moving as few running flows off their spines as it can.
 *
 * The colouring first puts every running unit back on its spine; the new
 * job's units then fill what room is left. Where a new unit finds no spine
 * with room at both ends, an augmenting chain makes room, and every
 * running unit the chain recolours is a running flow whose path changes.
 * Two things keep that number low (planner.rst, "Stable re-plans"):
 *
 * - chains are searched for the fewest such moves (move_cost()), not the
 *   fewest hops;
 * - a unit that needs a running flow moved is deferred until every unit
 *   that needs none is placed: a chain takes its room from some leaf, and
 *   early on that is room a later new unit would have used for free.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan_colour.h"

/* Rounds of the deferred units at 0, 1, ... running flows moved each. */
#define RP_KEEP_ROUNDS	4

/*
 * Search state: one per (side, leaf, colour in excess), index X * nbundles
 * + the (leaf, spine) bundle (state()). dq is a double-ended queue of nq
 * entries.
 */
struct rp_keep {
	int *stamp, *done, *dist, *par, *prev, *lost, *root, *dq;
	size_t nq;
	int cur;
	int *def, ndef;		/* deferred units: their pairs */
};

void rp_keep_free(struct rp_keep *k)
{
	if (!k)
		return;
	free(k->stamp);
	free(k->done);
	free(k->dist);
	free(k->par);
	free(k->prev);
	free(k->lost);
	free(k->root);
	free(k->dq);
	free(k->def);
	free(k);
}

int rp_keep_new(const struct rp_plan *pl, struct rp_keep **out)
{
	size_t n = 2 * (size_t)pl->nbundles + 1;
	struct rp_keep *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	k->nq = 2 * n;
	k->stamp = calloc(n, sizeof(int));
	k->done = calloc(n, sizeof(int));
	k->dist = malloc(n * sizeof(int));
	k->par = malloc(n * sizeof(int));
	k->prev = malloc(n * sizeof(int));
	k->lost = malloc(n * sizeof(int));
	k->root = malloc(n * sizeof(int));
	k->dq = malloc(k->nq * sizeof(int));
	k->def = malloc(((size_t)pl->nflows + 1) * sizeof(int));
	if (!k->stamp || !k->done || !k->dist || !k->par || !k->prev ||
	    !k->lost || !k->root || !k->dq || !k->def) {
		rp_keep_free(k);
		return -ENOMEM;
	}
	*out = k;
	return 0;
}

/* The state of leaf w on side X with colour s in excess (w links to s). */
static int state(const struct rp_plan *pl, int X, int w, int s)
{
	return X * pl->nbundles + pl->bidx[(size_t)w * pl->t->nspines + s];
}

/* A state's side, leaf and colour. */
static int st_side(const struct rp_plan *pl, int sid)
{
	return sid / pl->nbundles;
}

static int st_leaf(const struct rp_plan *pl, int sid)
{
	return pl->bundles[sid % pl->nbundles].leaf;
}

static int st_colour(const struct rp_plan *pl, int sid)
{
	return pl->bundles[sid % pl->nbundles].spine;
}

/* Whether leaf w on side X is on the chain that ends in state sid. */
static bool on_chain(const struct rp_plan *pl, const struct rp_keep *k,
		     int sid, int X, int w)
{
	for (; sid >= 0; sid = k->prev[sid])
		if (st_side(pl, sid) == X && st_leaf(pl, sid) == w)
			return true;
	return false;
}

/*
 * What recolouring a unit of pair q from its colour index ce to cd costs:
 * 1 when a running flow leaves its spine (q has no more units on ce than
 * it had flows there before) and none gets its own back (q already has
 * as many on cd as before), else 0.
 */
static int move_cost(const struct rp_plan *pl, const struct pair *q, int ce,
		     int cd)
{
	return pl->x[q->c0 + ce] <= pl->prefer[q->c0 + ce] &&
	       pl->x[q->c0 + cd] >= pl->prefer[q->c0 + cd];
}

/*
 * Whether state sid -- leaf w on side X, one unit too many of colour e
 * and one fewer of lo -- ends a chain that inserts a unit of colour a
 * between v (side S) and u: where the leaf has room for e; at u also
 * room left for a after it.
 */
static bool chain_ends(const struct rp_plan *pl, const struct rp_keep *k,
		       int sid, int S, int u, int a)
{
	int e = st_colour(pl, sid), X = st_side(pl, sid), w = st_leaf(pl, sid);
	int lo = k->lost[sid];

	if (X == S || w != u)
		return spare(pl, X, w, e) > 0;
	return spare(pl, X, w, e) > (e == a) &&
	       (e == a || spare(pl, X, w, a) + (lo == a) > 0);
}

/* Queues state sid: at the front when it costs no more than the state before. */
static void push(struct rp_keep *k, size_t *qh, size_t *qt, int sid, bool front)
{
	if (front) {
		*qh = (*qh + k->nq - 1) % k->nq;
		k->dq[*qh] = sid;
	} else {
		k->dq[*qt] = sid;
		*qt = (*qt + 1) % k->nq;
	}
}

/*
 * Places a unit of p through the augmenting chain of plan_colour.c's
 * augment() -- inserting a unit of colour a whose end v (side S) is full
 * in a, the other end u having room -- that moves the fewest running
 * flows (move_cost()), at most lim (-1: any), over both ends and every
 * colour at once: each (S, a) is a source of one search. Costs are 0 or
 * 1, so a 0-1 breadth-first search (a deque, cost 0 in front) finds the
 * cheapest. Few units are free to move, so a leaf is searched once per
 * colour in excess, not once as augment() does: states are (side, leaf,
 * colour), and no leaf is twice on one chain, so every leaf's loads are
 * as checked. A chain may end at u where u keeps room for a (a cycle
 * through both ends). False when there is no such chain.
 */
static bool place_cheapest(struct rp_plan *pl, struct rp_keep *k,
			   struct pair *p, int lim)
{
	int goal = -1, st = ++k->cur, src;
	size_t qh = 0, qt = 0;

	for (int side = 1; side >= 0; side--)
		for (int i = 0; i < p->nc; i++) {
			int a = pl->cs[p->c0 + i];
			int sid = state(pl, side, ep(p, side), a);

			if (spare(pl, !side, ep(p, !side), a) <= 0 ||
			    k->stamp[sid] == st)
				continue;
			k->stamp[sid] = st;
			k->dist[sid] = 0;
			k->prev[sid] = -1;
			k->lost[sid] = -1;
			k->root[sid] = sid;
			push(k, &qh, &qt, sid, false);
		}
	while (qh != qt && goal < 0) {
		int sid = k->dq[qh], e = st_colour(pl, sid), r = k->root[sid];
		int X = st_side(pl, sid), w = st_leaf(pl, sid), lo = k->lost[sid];
		int S = st_side(pl, r), u = ep(p, !S), a = st_colour(pl, r);
		int p0 = X ? pl->dst_p0[w] : pl->src_p0[w];
		int p1 = X ? pl->dst_p0[w + 1] : pl->src_p0[w + 1];

		qh = (qh + 1) % k->nq;
		if (k->done[sid] == st)
			continue;
		k->done[sid] = st;
		if (sid != r && chain_ends(pl, k, sid, S, u, a)) {
			goal = sid;
			break;
		}
		if (sid != r && X != S && w == u)
			continue;	/* u is an end, never a link */
		for (int j = p0; j < p1; j++) {
			int pi = X ? pl->dst_adj[j] : j;
			const struct pair *q = &pl->pairs[pi];
			int ci, y = ep(q, !X);

			if (!pair_routed(q))
				continue;
			ci = cidx(pl, q, e);
			if (ci < 0 || !pl->x[q->c0 + ci] ||
			    on_chain(pl, k, sid, !X, y))
				continue;
			/* w recolours a unit of q e -> d; y then has one d too many */
			for (int c = 0; c < q->nc; c++) {
				int d = pl->cs[q->c0 + c];
				int nid = state(pl, !X, y, d);
				int cost = k->dist[sid] + move_cost(pl, q, ci, c);

				if (d == e || (d != lo && spare(pl, X, w, d) <= 0) ||
				    (lim >= 0 && cost > lim) || k->done[nid] == st ||
				    (k->stamp[nid] == st && k->dist[nid] <= cost))
					continue;
				k->stamp[nid] = st;
				k->dist[nid] = cost;
				k->par[nid] = pi;
				k->prev[nid] = sid;
				k->lost[nid] = e;
				k->root[nid] = r;
				push(k, &qh, &qt, nid, cost == k->dist[sid]);
			}
		}
	}
	if (goal < 0)
		return false;
	/* walk back to the source, recolouring each pair's unit lost -> excess */
	for (src = goal; k->prev[src] >= 0; src = k->prev[src])
		move_unit(pl, k->par[src], k->lost[src], st_colour(pl, src));
	put_unit(pl, p, st_colour(pl, src));
	return true;
}

void rp_keep_place(struct rp_plan *pl, struct rp_keep *k, int pi)
{
	if (!place_cheapest(pl, k, &pl->pairs[pi], 0))
		k->def[k->ndef++] = pi;
}

int rp_keep_finish(struct rp_plan *pl, struct rp_keep *k)
{
	for (int r = 0; k->ndef; r++) {
		int lim = r < RP_KEEP_ROUNDS ? r : -1, n = 0;

		for (int i = 0; i < k->ndef; i++) {
			struct pair *p = &pl->pairs[k->def[i]];
			int s = -1;

			/* units placed since may have left room at both ends */
			for (int c = 0; c < p->nc && s < 0; c++)
				if (spare(pl, 0, p->src, pl->cs[p->c0 + c]) > 0 &&
				    spare(pl, 1, p->dst, pl->cs[p->c0 + c]) > 0)
					s = pl->cs[p->c0 + c];
			if (s >= 0)
				put_unit(pl, p, s);
			else if (!place_cheapest(pl, k, p, lim))
				k->def[n++] = k->def[i];
		}
		if (lim < 0 && n)
			return -EAGAIN;
		k->ndef = n;
	}
	return 0;
}
