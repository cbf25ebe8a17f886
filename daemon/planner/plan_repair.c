// SPDX-License-Identifier: GPL-2.0
/*
 * Repair after the port search: the route assignment does not know which
 * routes a flow's ports reach (correlated hashes, a hash that ignores the
 * source port, measured tables), so the port search may leave a flow on a
 * fallback path above the bound. Here flows on the busiest links move to
 * other paths that one of their free ports really takes, directly or by an
 * ejection chain (a flow moves onto a link at the limit and a flow on that
 * link moves on in turn), while the busiest links get fewer; then the flows
 * still on the busiest links are checked port by port, so that the
 * summary blames the hashes only for flows that no port can help.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan_model.h"

#define RP_REPAIR_BUDGET	512	/* flows' paths listed (reach()) per plan */
#define RP_REPAIR_CAND		64	/* flows tried per link */
#define RP_REPAIR_CHECK		64	/* flows checked for the summary */

struct move {
	int fi;
	struct rp_path old;
};

struct repair {
	struct rp_plan *pl;
	struct rp_walker *w;
	int nload, nkeys, max;
	int *ld, *hist;		/* load per directed link; links per load */
	int *head, *nxt, *prv;	/* flows per directed link (node 4 fi + k) */
	int *pos;		/* per flow: index in pl->order */
	uint8_t *lock;
	struct move *log;
	int nlog, caplog;
	long budget;
	uint16_t used[RP_SPORT_COUNT];
};

static bool movable(const struct rp_plan *pl, int fi)
{
	const struct flow *f = &pl->flows[fi];
	const struct rp_topo *t = pl->t;

	return f->status == ST_PLACED && f->pair >= 0 &&
	       pair_routed(&pl->pairs[f->pair]) &&
	       t->sw[t->leaf_sw[pl->pairs[f->pair].src]].hash.alg !=
	       RP_HASH_MEASURED;
}

static void cur_path(const struct rp_plan *pl, int fi, struct rp_path *p)
{
	const struct flow *f = &pl->flows[fi];
	const struct flow3 *g = pl->f3 ? &pl->f3[fi] : NULL;

	p->up = f->up;
	p->dn = f->dn;
	p->uu = g ? g->uu : -1;
	p->ud = g ? g->ud : -1;
	p->port = f->sport;
}

/* The directed links of a path: up keys, then down keys at nload + i. */
static int path_keys(const struct repair *r, const struct rp_path *p, int *k)
{
	int nl = r->pl->t->nlinks, n = 0;

	k[n++] = p->up;
	if (p->uu >= 0) {
		k[n++] = nl + p->uu;
		k[n++] = r->nload + nl + p->ud;
	}
	k[n++] = r->nload + p->dn;
	return n;
}

static bool has_key(const int *k, int n, int key)
{
	for (int i = 0; i < n; i++)
		if (k[i] == key)
			return true;
	return false;
}

static void load_add(struct repair *r, int key, int d)
{
	r->hist[r->ld[key]]--;
	r->ld[key] += d;
	r->hist[r->ld[key]]++;
	if (r->ld[key] > r->max)
		r->max = r->ld[key];
	while (r->max > 0 && !r->hist[r->max])
		r->max--;
}

static void node_link(struct repair *r, int node, int key)
{
	r->prv[node] = -1;
	r->nxt[node] = r->head[key];
	if (r->head[key] >= 0)
		r->prv[r->head[key]] = node;
	r->head[key] = node;
}

static void node_unlink(struct repair *r, int node, int key)
{
	if (r->prv[node] >= 0)
		r->nxt[r->prv[node]] = r->nxt[node];
	else
		r->head[key] = r->nxt[node];
	if (r->nxt[node] >= 0)
		r->prv[r->nxt[node]] = r->prv[node];
}

static void hold(struct repair *r, int fi, int d)
{
	struct rp_path p;
	int k[4], n;

	cur_path(r->pl, fi, &p);
	n = path_keys(r, &p, k);
	for (int i = 0; i < n; i++) {
		load_add(r, k[i], d);
		if (d > 0)
			node_link(r, 4 * fi + i, k[i]);
		else
			node_unlink(r, 4 * fi + i, k[i]);
	}
}

/* Puts flow fi on path p (its port included); logs the old one. */
static int apply(struct repair *r, int fi, const struct rp_path *p, bool log)
{
	struct rp_plan *pl = r->pl;
	const struct rp_topo *t = pl->t;
	struct flow *f = &pl->flows[fi];
	struct flow3 *g = pl->f3 ? &pl->f3[fi] : NULL;

	if (log) {
		if (r->nlog == r->caplog) {
			int cap = r->caplog ? 2 * r->caplog : 64;
			struct move *m = realloc(r->log, cap * sizeof(*m));

			if (!m)
				return -ENOMEM;
			r->log = m;
			r->caplog = cap;
		}
		r->log[r->nlog].fi = fi;
		cur_path(pl, fi, &r->log[r->nlog].old);
		r->nlog++;
	}
	hold(r, fi, -1);
	f->up = p->up;
	f->dn = p->dn;
	f->spine = t->links[p->up].spine;
	f->sport = p->port;
	if (g) {
		g->uu = p->uu;
		g->ud = p->ud;
		g->super = p->uu >= 0 ? t->ulinks[p->uu].super : -1;
		g->spine2 = p->ud >= 0 ? t->ulinks[p->ud].spine : f->spine;
	}
	hold(r, fi, 1);
	return 0;
}

static void undo(struct repair *r, int mark)
{
	while (r->nlog > mark) {
		r->nlog--;
		apply(r, r->log[r->nlog].fi, &r->log[r->nlog].old, false);
	}
}

/* The ports of fi's (source NIC, destination NIC) siblings; count. */
static int siblings(struct repair *r, int fi)
{
	const struct rp_plan *pl = r->pl;
	const struct flow *f = &pl->flows[fi];
	const struct pair *p = &pl->pairs[f->pair];
	int n = 0;

	for (int d = -1; d <= 1; d += 2)
		for (int j = r->pos[fi] + d; j >= p->f0 && j < p->f0 + p->nf;
		     j += d) {
			const struct flow *q = &pl->flows[pl->order[j]];

			if (q->src_nic != f->src_nic || q->dst_nic != f->dst_nic)
				break;
			if (q->status == ST_PLACED && n < RP_SPORT_COUNT)
				r->used[n++] = q->sport;
		}
	return n;
}

/* Fi's reachable paths (a copy); -EAGAIN when the budget is spent. */
static int reach(struct repair *r, int fi, struct rp_path **out)
{
	const struct rp_path *ps;
	int n;

	*out = NULL;
	if (r->budget <= 0)
		return -EAGAIN;
	r->budget--;
	rp_walker_flow(r->w, fi);
	n = rp_walk_paths(r->w, r->pl->flows[fi].sport - RP_SPORT_MIN,
			  r->used, siblings(r, fi), &ps);
	*out = malloc((n + 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, ps, n * sizeof(**out));
	return n;
}

/*
 * Links of p that fi does not hold yet: how many would rise above lim
 * (over, each to lim + 1 exactly), or -1 if one would rise further or p
 * still crosses key. *score orders direct moves (fullest link, then sum).
 */
static int over_of(const struct repair *r, const int *ok, int nok,
		   const struct rp_path *p, int key, int lim, long *score)
{
	int k[4], n = path_keys(r, p, k), over = 0, mx = 0;
	long sum = 0;

	if (has_key(k, n, key))
		return -1;
	for (int i = 0; i < n; i++) {
		int v;

		if (has_key(ok, nok, k[i]))
			continue;
		v = r->ld[k[i]] + 1;
		if (v > lim + 1)
			return -1;
		over += v == lim + 1;
		mx = v > mx ? v : mx;
		sum += v;
	}
	*score = (long)mx << 20 | sum;
	return over;
}

/*
 * Moves one flow off directed link key so that no link it joins exceeds
 * lim, through up to depth further moves; true on success (moves logged).
 */
static int relieve(struct repair *r, int key, int lim, int depth)
{
	const struct rp_plan *pl = r->pl;
	int cand[RP_REPAIR_CAND] = { 0 }, nc = 0;

	/* the flows on the link, flows new to a stable re-plan first */
	for (int pass = 0; pass < 2; pass++)
		for (int nd = r->head[key]; nd >= 0 && nc < RP_REPAIR_CAND;
		     nd = r->nxt[nd]) {
			int fi = nd / 4;

			if (r->lock[fi] || !movable(pl, fi) ||
			    (prev_flow(pl, fi) != NULL) != pass)
				continue;
			cand[nc++] = fi;
		}
	for (int c = 0; c < nc; c++) {
		int fi = cand[c], ok[4], nok, n, best = -1;
		struct rp_path *ps, cur;
		long score, bs = 0;

		n = reach(r, fi, &ps);
		if (n < 0) {
			free(ps);
			return n == -EAGAIN ? 0 : n;
		}
		cur_path(pl, fi, &cur);
		nok = path_keys(r, &cur, ok);
		for (int i = 0; i < n; i++)
			if (over_of(r, ok, nok, &ps[i], key, lim, &score) == 0 &&
			    (best < 0 || score < bs)) {
				best = i;
				bs = score;
			}
		if (best >= 0) {
			int rc = apply(r, fi, &ps[best], true);

			free(ps);
			return rc ? rc : 1;
		}
		/* an ejection chain through each link it would overfill */
		for (int i = 0; depth > 0 && i < n; i++) {
			int mark = r->nlog, k[4], nk, rc;
			int over = over_of(r, ok, nok, &ps[i], key, lim, &score);
			bool done = true;

			if (over <= 0 || over > 2)
				continue;
			r->lock[fi] = 1;
			rc = apply(r, fi, &ps[i], true);
			nk = path_keys(r, &ps[i], k);
			for (int j = 0; !rc && done && j < nk; j++) {
				if (r->ld[k[j]] <= lim)
					continue;
				rc = relieve(r, k[j], lim, depth - 1);
				done = rc == 1;
				rc = rc < 0 ? rc : 0;
			}
			r->lock[fi] = 0;
			for (int j = 0; !rc && done && j < nk; j++)
				done = r->ld[k[j]] <= lim;
			if (rc || done) {
				free(ps);
				return rc ? rc : 1;
			}
			undo(r, mark);
		}
		free(ps);
	}
	return 0;
}

struct room {
	const struct repair *r;
	int ok[4], nok, lim;
};

/* Whether fi (holding ok[]) fits on p with every link within lim. */
static int fits(void *arg, const struct rp_path *p)
{
	const struct room *rm = arg;
	int k[4], nk = path_keys(rm->r, p, k);

	for (int j = 0; j < nk; j++)
		if (rm->r->ld[k[j]] - has_key(rm->ok, rm->nok, k[j]) + 1 > rm->lim)
			return 0;
	return 1;
}

/*
 * Where fi could go with every link within lim: 2 some free port of it
 * takes such a path, 1 the groups allow one but no free port takes it
 * (the hashes), 0 there is none.
 */
static int has_room(struct repair *r, int fi, int lim)
{
	struct room rm = { .r = r, .lim = lim };
	struct rp_path *ps, cur;
	int n, found = 0;

	n = reach(r, fi, &ps);
	if (n < 0) {
		free(ps);
		return n;
	}
	cur_path(r->pl, fi, &cur);
	rm.nok = path_keys(r, &cur, rm.ok);
	for (int i = 0; i < n && !found; i++)
		found = fits(&rm, &ps[i]);
	free(ps);
	if (found)
		return 2;
	/* reach() aimed the walker at fi */
	return rp_walk_routes(r->w, fits, &rm);
}

static int repair_init(struct repair *r, struct rp_plan *pl, int *upl,
		       int *dnl)
{
	size_t nodes = 4 * (size_t)pl->nflows + 1;

	r->pl = pl;
	r->nload = rp_topo_nload(pl->t);
	r->nkeys = 2 * r->nload;
	r->budget = RP_REPAIR_BUDGET;
	r->ld = calloc(r->nkeys + 1, sizeof(int));
	r->hist = calloc(pl->nflows + 2, sizeof(int));
	r->head = malloc((r->nkeys + 1) * sizeof(int));
	r->nxt = malloc(nodes * sizeof(int));
	r->prv = malloc(nodes * sizeof(int));
	r->pos = malloc((pl->nflows + 1) * sizeof(int));
	r->lock = calloc(pl->nflows + 1, 1);
	if (!r->ld || !r->hist || !r->head || !r->nxt || !r->prv || !r->pos ||
	    !r->lock)
		return -ENOMEM;
	memset(r->head, -1, (r->nkeys + 1) * sizeof(int));
	for (int i = 0; i < pl->nflows; i++)
		r->pos[pl->order[i]] = i;
	/* flows that are not placed here (unprobed) keep their load */
	for (int i = 0; i < r->nload; i++) {
		r->ld[i] = upl[i];
		r->ld[r->nload + i] = dnl[i];
	}
	for (int i = 0; i < pl->nflows; i++)
		if (pl->flows[i].status == ST_PLACED && pl->flows[i].up >= 0) {
			struct rp_path p;
			int k[4], n;

			cur_path(pl, i, &p);
			n = path_keys(r, &p, k);
			for (int j = 0; j < n; j++)
				node_link(r, 4 * i + j, k[j]);
		}
	for (int i = 0; i < r->nkeys; i++) {
		if (r->ld[i] > pl->nflows)
			return -EINVAL;
		r->hist[r->ld[i]]++;
		r->max = r->ld[i] > r->max ? r->ld[i] : r->max;
	}
	return rp_walker_new(pl, &r->w);
}

static void repair_free(struct repair *r)
{
	rp_walker_free(r->w);
	free(r->ld);
	free(r->hist);
	free(r->head);
	free(r->nxt);
	free(r->prv);
	free(r->pos);
	free(r->lock);
	free(r->log);
}

/* Relieves every link at the max; 1 if the busiest links got fewer. */
static int repair_round(struct repair *r)
{
	int M = r->max, progress = 0;

	for (int key = 0; key < r->nkeys && r->max == M; key++) {
		int mark = r->nlog, before = r->hist[M], ret;

		if (r->ld[key] != M)
			continue;
		ret = relieve(r, key, M - 1, RP_REPAIR_DEPTH);
		if (ret < 0)
			return ret;
		/* keep a chain only if it took a link off the max */
		if (ret && r->max <= M && (r->max < M || r->hist[M] < before))
			progress = 1;
		else
			undo(r, mark);
		if (r->budget <= 0)
			break;
	}
	return progress;
}

int rp_plan_repair(struct rp_plan *pl, int *upl, int *dnl, int lb,
		   struct rp_repair_stats *st)
{
	struct repair *r = calloc(1, sizeof(*r));
	int ret;

	memset(st, 0, sizeof(*st));
	if (!r)
		return -ENOMEM;
	ret = repair_init(r, pl, upl, dnl);
	while (!ret && r->max > lb && r->max > 1 && r->budget > 0) {
		ret = repair_round(r);
		if (ret <= 0)
			break;
		ret = 0;
	}
	st->moved = r->nlog;
	/* the flows left on the busiest links: could a port help them? */
	st->complete = true;
	for (int key = 0; ret >= 0 && r->max > lb && key < r->nkeys; key++) {
		if (r->ld[key] != r->max)
			continue;
		for (int nd = r->head[key]; nd >= 0; nd = r->nxt[nd]) {
			int fi = nd / 4, room;

			if (!movable(pl, fi))
				continue;
			if (st->checked == RP_REPAIR_CHECK) {
				st->complete = false;
				break;
			}
			r->budget = r->budget > 0 ? r->budget : 1;
			room = has_room(r, fi, lb);
			if (room < 0) {
				ret = room;
				break;
			}
			st->checked++;
			st->blocked += room == 1;
			st->full += room == 0;
		}
	}
	if (ret >= 0) {
		for (int i = 0; i < r->nload; i++) {
			upl[i] = r->ld[i];
			dnl[i] = r->ld[r->nload + i];
		}
		ret = 0;
	}
	repair_free(r);
	free(r);
	return ret;
}
