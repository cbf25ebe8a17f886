// SPDX-License-Identifier: GPL-2.0
/*
 * The placement advisor (plan_advise.h): candidate host sets for a new job,
 * built greedily from racks, each judged by planning the placement with the
 * job added; the best plan wins. The planner's model is reused as is: the
 * advisor only chooses hosts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_advise.h"
#include "plan_model.h"

/* A rack: the hosts that share their leaf on every rail of the job. */
struct rack {
	int size, nfree;
	int *free;			/* free host indices, by name */
	unsigned int load;		/* busiest link of its leaves, before */
	unsigned long sum;		/* total load of its leaves' links */
	int keyh;			/* its first host (by name): its key */
};

struct ctx {
	const struct rp_topo *t;
	const struct rp_place *p;
	const struct rp_advise_req *req;
	struct rp_job job;		/* the new job; hosts set per candidate */
	int nracks;
	struct rack *racks;
	int nfr;			/* racks with free hosts */
	int *rorder;			/* racks by their first host's name */
	int *keys;			/* per host: nrails leaf indices */
	int *pool;			/* the racks' free hosts */
	int *host_rack;			/* per host: its rack, -1 if none */
	int neligible;
	int *eligible;			/* free hosts with every rail, by name */
	int *upl, *dnl;			/* link load scratch */
	int *nic_tx, *nic_rx;		/* NIC load scratch */
};

/* A candidate before judging: hosts in ring order. */
struct cand {
	char strategy[64];
	int *hosts;
	int nracks;
	struct rp_advise_eval eval;
};

void rp_advice_free(struct rp_advice *a)
{
	if (!a)
		return;
	free(a->job);
	free(a->rails);
	for (int i = 0; i < a->nhosts; i++)
		free(a->hosts[i]);
	free(a->hosts);
	for (int i = 0; i < a->nracks; i++) {
		for (int k = 0; k < a->racks[i].nleaves; k++)
			free(a->racks[i].leaves[k]);
		free(a->racks[i].leaves);
	}
	free(a->racks);
	free(a->cands);
	free(a);
}

/* ---- judging a candidate --------------------------------------------- */

/*
 * Plans the placement with the new job on hosts[] (ring order) and fills
 * *ev. The combined placement borrows p's jobs: only its array is freed.
 */
static int judge(struct ctx *c, const int *hosts, struct rp_advise_eval *ev)
{
	const struct rp_topo *t = c->t;
	struct rp_place cp = { 0 };
	struct rp_plan *pl = NULL;
	int ret, ji = -1;

	memset(ev, 0, sizeof(*ev));
	cp.jobs = calloc(c->p->njobs + 1, sizeof(*cp.jobs));
	if (!cp.jobs)
		return -ENOMEM;
	memcpy(cp.jobs, c->p->jobs, c->p->njobs * sizeof(*cp.jobs));
	c->job.hosts = (int *)hosts;
	cp.jobs[c->p->njobs] = c->job;
	cp.njobs = c->p->njobs + 1;
	qsort(cp.jobs, cp.njobs, sizeof(*cp.jobs), rp_job_cmp);
	for (int j = 0; j < cp.njobs; j++)
		if (cp.jobs[j].id == c->job.id)
			ji = j;
	ret = rp_plan_compute(t, &cp, &pl, NULL);
	if (ret)
		goto out;
	ev->max_link_flows = pl->sum.max_link_flows;
	ev->lower_bound = pl->sum.lower_bound;
	ev->unplaced = pl->sum.unplaced;
	rp_plan_max_load(pl, RP_MODE_PLAN, c->upl, c->dnl);
	memset(c->nic_tx, 0, t->nnics * sizeof(int));
	memset(c->nic_rx, 0, t->nnics * sizeof(int));
	for (int i = 0; i < pl->nflows; i++) {
		c->nic_tx[pl->flows[i].src_nic]++;
		c->nic_rx[pl->flows[i].dst_nic]++;
	}
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];
		unsigned int m;

		if (f->job != ji)
			continue;
		m = c->nic_tx[f->src_nic];
		if ((unsigned int)c->nic_rx[f->dst_nic] > m)
			m = c->nic_rx[f->dst_nic];
		if (f->status == ST_PLACED && f->up >= 0) {
			int u[2], d[2], n = rp_plan_flow_links(pl, i, RP_MODE_PLAN,
							       u, d);

			ev->job_fabric_flows++;
			for (int k = 0; k < n; k++) {
				if ((unsigned int)c->upl[u[k]] > m)
					m = c->upl[u[k]];
				if ((unsigned int)c->dnl[d[k]] > m)
					m = c->dnl[d[k]];
			}
		}
		if (m > ev->job_max_link_flows)
			ev->job_max_link_flows = m;
	}
out:
	rp_plan_free(pl);
	free(cp.jobs);
	return ret;
}

/* Lower is better: the bound and max load of the fabric first. */
static int cmp_eval(const struct cand *a, const struct cand *b)
{
	const struct rp_advise_eval *x = &a->eval, *y = &b->eval;
	const unsigned int kx[] = { x->unplaced, x->max_link_flows,
		x->lower_bound, x->job_max_link_flows, x->job_fabric_flows,
		(unsigned int)a->nracks };
	const unsigned int ky[] = { y->unplaced, y->max_link_flows,
		y->lower_bound, y->job_max_link_flows, y->job_fabric_flows,
		(unsigned int)b->nracks };

	for (size_t i = 0; i < sizeof(kx) / sizeof(kx[0]); i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

/* ---- racks ------------------------------------------------------------- */

static int cmp_key(const struct ctx *c, int a, int b)
{
	const int *ka = &c->keys[(size_t)a * c->job.nrails];
	const int *kb = &c->keys[(size_t)b * c->job.nrails];

	for (int r = 0; r < c->job.nrails; r++)
		if (ka[r] != kb[r])
			return ka[r] < kb[r] ? -1 : 1;
	return 0;
}

static int cmp_host_key(const void *a, const void *b, void *arg)
{
	const struct ctx *c = arg;
	int x = *(const int *)a, y = *(const int *)b;
	int r = cmp_key(c, x, y);

	return r ? r : (x < y ? -1 : x > y);
}

static int cmp_rack_first(const void *a, const void *b, void *arg)
{
	const struct ctx *c = arg;

	return c->racks[*(const int *)a].keyh - c->racks[*(const int *)b].keyh;
}

/*
 * Racks of the hosts with a NIC on every rail of the job (keys: their
 * leaves, one per rail), their free hosts and the load of their leaves'
 * links in the plan of p.
 */
static int make_racks(struct ctx *c, const struct rp_plan *before)
{
	const struct rp_topo *t = c->t;
	int nr = c->job.nrails, nh = 0, ret = -ENOMEM;
	int *hk = NULL, *order = NULL, *busy = NULL;
	unsigned int *lmax = NULL;
	unsigned long *lsum = NULL;

	hk = calloc((size_t)t->nhosts * nr + 1, sizeof(int));
	c->keys = hk;
	order = calloc(t->nhosts + 1, sizeof(int));
	busy = calloc(t->nhosts + 1, sizeof(int));
	lmax = calloc(t->nleaves + 1, sizeof(*lmax));
	lsum = calloc(t->nleaves + 1, sizeof(*lsum));
	c->host_rack = malloc((t->nhosts + 1) * sizeof(int));
	c->eligible = calloc(t->nhosts + 1, sizeof(int));
	c->pool = calloc(t->nhosts + 1, sizeof(int));
	if (!hk || !order || !busy || !lmax || !lsum || !c->host_rack ||
	    !c->eligible || !c->pool)
		goto out;
	for (int j = 0; j < c->p->njobs; j++)
		for (int i = 0; i < c->p->jobs[j].nhosts; i++)
			busy[c->p->jobs[j].hosts[i]] = 1;
	for (int h = 0; h < t->nhosts; h++) {
		bool all = true;

		c->host_rack[h] = -1;
		for (int r = 0; r < nr && all; r++) {
			int n = rp_topo_host_nic(t, h, c->job.rails[r]);

			if (n < 0)
				all = false;
			else
				hk[(size_t)h * nr + r] = t->nics[n].leaf;
		}
		if (all)
			order[nh++] = h;
	}
	/* sort the hosts by their leaves; equal keys make one rack */
	qsort_r(order, nh, sizeof(int), cmp_host_key, c);
	c->racks = calloc(nh + 1, sizeof(*c->racks));
	if (!c->racks)
		goto out;
	for (int i = 0; i < nh; i++) {
		int h = order[i];
		struct rack *rk;

		if (!i || cmp_key(c, order[i - 1], h)) {
			rk = &c->racks[c->nracks++];
			rk->keyh = h;
			/* a rack's hosts are contiguous in order[] */
			rk->free = &c->pool[i];
		}
		rk = &c->racks[c->nracks - 1];
		rk->size++;
		c->host_rack[h] = c->nracks - 1;
		if (!busy[h])
			rk->free[rk->nfree++] = h;
	}
	c->rorder = calloc(c->nracks + 1, sizeof(int));
	if (!c->rorder)
		goto out;
	for (int i = 0; i < c->nracks; i++)
		c->rorder[i] = i;
	qsort_r(c->rorder, c->nracks, sizeof(int), cmp_rack_first, c);
	/* the eligible hosts by name (host index) */
	for (int h = 0; h < t->nhosts; h++)
		if (c->host_rack[h] >= 0 && !busy[h])
			c->eligible[c->neligible++] = h;

	/* load of each leaf's links in the plan without the job */
	rp_plan_max_load(before, RP_MODE_PLAN, c->upl, c->dnl);
	for (int l = 0; l < t->nlinks; l++) {
		int lf = t->links[l].leaf;
		unsigned int m = c->upl[l] > c->dnl[l] ? c->upl[l] : c->dnl[l];

		if (m > lmax[lf])
			lmax[lf] = m;
		lsum[lf] += c->upl[l] + c->dnl[l];
	}
	for (int i = 0; i < c->nracks; i++) {
		struct rack *rk = &c->racks[i];
		const int *k = &hk[(size_t)rk->keyh * nr];

		for (int r = 0; r < nr; r++) {
			if (lmax[k[r]] > rk->load)
				rk->load = lmax[k[r]];
			rk->sum += lsum[k[r]];
		}
	}
	ret = 0;
out:
	free(order);
	free(busy);
	free(lmax);
	free(lsum);
	return ret;
}

/* ---- candidates --------------------------------------------------------- */

/* Rack orders: most free first, or least loaded first. */
static int cmp_rack_free(const void *a, const void *b, void *arg)
{
	const struct ctx *c = arg;
	const struct rack *x = &c->racks[*(const int *)a];
	const struct rack *y = &c->racks[*(const int *)b];

	if (x->nfree != y->nfree)
		return x->nfree > y->nfree ? -1 : 1;
	if (x->load != y->load)
		return x->load < y->load ? -1 : 1;
	if (x->sum != y->sum)
		return x->sum < y->sum ? -1 : 1;
	return rp_cmp_int(a, b);
}

static int cmp_rack_load(const void *a, const void *b, void *arg)
{
	const struct ctx *c = arg;
	const struct rack *x = &c->racks[*(const int *)a];
	const struct rack *y = &c->racks[*(const int *)b];

	if (x->load != y->load)
		return x->load < y->load ? -1 : 1;
	if (x->sum != y->sum)
		return x->sum < y->sum ? -1 : 1;
	if (x->nfree != y->nfree)
		return x->nfree > y->nfree ? -1 : 1;
	return rp_cmp_int(a, b);
}

/*
 * Whole racks first: while no rack can hold what is left, the next rack
 * in ord is taken whole; then the rack that holds the rest most tightly
 * (best fit, earliest in ord on ties), so big free racks stay whole.
 */
static void fill(const struct ctx *c, const int *ord, int *take)
{
	int need = c->req->nhosts;

	while (need > 0) {
		int fit = -1, next = -1;

		for (int i = 0; i < c->nfr; i++) {
			const struct rack *rk = &c->racks[ord[i]];

			if (take[ord[i]])
				continue;
			if (next < 0)
				next = ord[i];
			if (rk->nfree >= need &&
			    (fit < 0 || rk->nfree < c->racks[fit].nfree))
				fit = ord[i];
		}
		if (fit >= 0) {
			take[fit] = need;
			return;
		}
		take[next] = c->racks[next].nfree;
		need -= take[next];
	}
}

/*
 * Balanced: the first racks of ord, as few as can hold the job but at
 * least k, share it as evenly as their free hosts allow (water filling).
 */
static void balance(const struct ctx *c, const int *ord, int k, int *take)
{
	int need = c->req->nhosts, n = 0, have = 0, level, placed;

	while (n < c->nfr && (n < k || have < need))
		have += c->racks[ord[n++]].nfree;
	for (level = 1;; level++) {
		int s = 0;

		for (int i = 0; i < n; i++)
			s += c->racks[ord[i]].nfree < level ?
			     c->racks[ord[i]].nfree : level;
		if (s >= need)
			break;
	}
	placed = 0;
	for (int i = 0; i < n; i++) {
		int f = c->racks[ord[i]].nfree;

		take[ord[i]] = f < level - 1 ? f : level - 1;
		placed += take[ord[i]];
	}
	/* the remainder, one more each, in ord's order */
	for (int i = 0; i < n && placed < need; i++)
		if (take[ord[i]] < c->racks[ord[i]].nfree) {
			take[ord[i]]++;
			placed++;
		}
}

/*
 * Hosts of a per-rack take in ring order: rack by rack, racks in the order
 * of their first host's name, hosts by name. Where host names group racks
 * (the usual case) this is plain name order, the order in which Slurm
 * lists a job's nodes, so the job the scheduler records plans the same.
 */
static int take_hosts(const struct ctx *c, const int *take, int *hosts)
{
	int n = 0, nr = 0;

	for (int j = 0; j < c->nracks; j++) {
		int i = c->rorder[j];

		for (int k = 0; k < take[i]; k++)
			hosts[n++] = c->racks[i].free[k];
		nr += take[i] > 0;
	}
	return nr;
}

static int racks_of(const struct ctx *c, const int *hosts)
{
	int n = 0;

	for (int i = 0; i < c->req->nhosts; i++) {
		bool seen = false;

		for (int k = 0; k < i && !seen; k++)
			seen = c->host_rack[hosts[k]] == c->host_rack[hosts[i]];
		n += !seen;
	}
	return n;
}

/* Partial Fisher-Yates with a 64-bit LCG: reproducible for one seed. */
static void draw(const struct ctx *c, int *hosts)
{
	uint64_t s = c->req->seed * 0x9E3779B97F4A7C15ull + 1;
	int n = c->neligible;
	int *pool = c->eligible;

	for (int i = 0; i < c->req->nhosts; i++) {
		int j, tmp;

		s = s * 6364136223846793005ull + 1442695040888963407ull;
		j = i + (int)((s >> 33) % (uint64_t)(n - i));
		tmp = pool[i];
		pool[i] = pool[j];
		pool[j] = tmp;
		hosts[i] = pool[i];
	}
	/* a scheduler hands its host list out sorted by name */
	qsort(hosts, c->req->nhosts, sizeof(int), rp_cmp_int);
	qsort(pool, n, sizeof(int), rp_cmp_int);
}

static bool same_hosts(const struct cand *a, const int *hosts, int n)
{
	return !memcmp(a->hosts, hosts, n * sizeof(int));
}

/*
 * Adds the candidate of take[] as cands[nc] (its strategy already set)
 * unless an earlier one has the same hosts or there is no room: each host
 * set is judged once. Returns the new count.
 */
static int add_cand(const struct ctx *c, struct cand *cands, int nc, int max,
		    const int *take)
{
	if (nc >= max)
		return nc;
	cands[nc].nracks = take_hosts(c, take, cands[nc].hosts);
	for (int i = 0; i < nc; i++)
		if (same_hosts(&cands[i], cands[nc].hosts, c->req->nhosts))
			return nc;
	return nc + 1;
}

/* Builds the candidates of the policy into cands; returns their number. */
static int make_cands(struct ctx *c, struct cand *cands, int max, int *take,
		      int *ordf, int *ordl)
{
	int n = c->req->nhosts, nc = 0, k;

	if (c->req->policy != RP_ADVISE_BEST) {
		int *h = cands[0].hosts;

		if (c->req->policy == RP_ADVISE_FIRST_FIT) {
			memcpy(h, c->eligible, n * sizeof(int));
			strcpy(cands[0].strategy, "first fit");
		} else {
			draw(c, h);
			snprintf(cands[0].strategy, sizeof(cands[0].strategy),
				 "random, seed %u", c->req->seed);
		}
		cands[0].nracks = racks_of(c, h);
		return 1;
	}
	/* the rack orders hold the racks with free hosts only */
	c->nfr = 0;
	for (int i = 0; i < c->nracks; i++)
		if (c->racks[i].nfree) {
			ordf[c->nfr] = ordl[c->nfr] = i;
			c->nfr++;
		}
	qsort_r(ordf, c->nfr, sizeof(int), cmp_rack_free, c);
	qsort_r(ordl, c->nfr, sizeof(int), cmp_rack_load, c);
	max--;		/* room for first fit, last */
	for (int o = 0; o < 2 && nc < max; o++) {
		memset(take, 0, c->nracks * sizeof(int));
		fill(c, o ? ordl : ordf, take);
		snprintf(cands[nc].strategy, sizeof(cands[nc].strategy),
			 "whole racks, %s first", o ? "least loaded" : "most free");
		nc = add_cand(c, cands, nc, max, take);
	}
	/* the racks the first fill used: the fewest that hold the job */
	k = cands[0].nracks;
	/*
	 * Ring traffic wants few racks (one connection per rack boundary);
	 * all-to-all wants one rack or many thin ones (a leaf with n of the
	 * job's N hosts sends n (N - n) connections up): spreads over k, 2k,
	 * 4k ... racks cover both, and the planner judges.
	 */
	for (int kk = k, last = 0; !last; kk *= 2) {
		if (kk >= c->nfr) {
			kk = c->nfr;
			last = 1;
		}
		for (int o = 0; o < 2 && nc < max; o++) {
			memset(take, 0, c->nracks * sizeof(int));
			balance(c, o ? ordl : ordf, kk, take);
			snprintf(cands[nc].strategy, sizeof(cands[nc].strategy),
				 "spread over %d+ racks, %s first", kk,
				 o ? "least loaded" : "most free");
			nc = add_cand(c, cands, nc, max, take);
		}
	}
	/*
	 * First fit as well: the greedy families miss uneven all-to-all
	 * splits that suit unevenly loaded racks (0.1 % of random small
	 * fabrics in test_place), and the advice should never be worse than
	 * what the scheduler does without it.
	 */
	memcpy(cands[nc].hosts, c->eligible, n * sizeof(int));
	strcpy(cands[nc].strategy, "first fit");
	cands[nc].nracks = racks_of(c, cands[nc].hosts);
	for (int i = 0; i < nc; i++)
		if (same_hosts(&cands[i], cands[nc].hosts, n))
			return nc;
	return nc + 1;
}

/* ---- the advice -------------------------------------------------------- */

static int check_req(struct ctx *c, struct rp_err *err)
{
	const struct rp_advise_req *q = c->req;
	const struct rp_topo *t = c->t;

	if (!q->job || !q->job[0]) {
		rp_err_set(err, "", "", 0, 0, "a job id is required");
		return -EINVAL;
	}
	for (int j = 0; j < c->p->njobs; j++)
		if (!strcmp(c->p->jobs[j].id, q->job)) {
			rp_err_set(err, "", ".jobs", 0, 0,
				   "job \"%s\" is already placed", q->job);
			return -EEXIST;
		}
	if (q->nhosts < 1) {
		rp_err_set(err, "", "", 0, 0, "hosts %d: a job needs 1 host or more",
			   q->nhosts);
		return -EINVAL;
	}
	if (q->pattern && strcmp(q->pattern, "ring") &&
	    strcmp(q->pattern, "alltoall")) {
		rp_err_set(err, "", "", 0, 0, "unknown pattern \"%s\" (ring, alltoall)",
			   q->pattern);
		return -EINVAL;
	}
	if (q->qps < 0 || q->qps > 1024) {
		rp_err_set(err, "", "", 0, 0,
			   "qps %d out of range (1..1024)", q->qps);
		return -EINVAL;
	}
	if (q->nrails < 0 || q->nrails > RP_ADVISE_MAX_RAILS) {
		rp_err_set(err, "", "", 0, 0, "%d rails: at most %d", q->nrails,
			   RP_ADVISE_MAX_RAILS);
		return -EINVAL;
	}
	for (int r = 0; r < q->nrails; r++) {
		bool found = false;

		for (int k = 0; k < r; k++)
			if (q->rails[k] == q->rails[r]) {
				rp_err_set(err, "", "", 0, 0, "duplicate rail %d",
					   q->rails[r]);
				return -EINVAL;
			}
		for (int i = 0; i < t->nnics && !found; i++)
			found = t->nics[i].rail == q->rails[r];
		if (!found) {
			rp_err_set(err, "", "", 0, 0, "rail %d: no host has a nic on it",
				   q->rails[r]);
			return -EINVAL;
		}
	}
	return 0;
}

/* The job's rails: as asked, or every rail of the topology; ascending. */
static int job_rails(struct ctx *c)
{
	const struct rp_topo *t = c->t;
	int *r = calloc(t->nnics + RP_ADVISE_MAX_RAILS + 1, sizeof(int));
	int n = 0;

	if (!r)
		return -ENOMEM;
	if (c->req->nrails) {
		memcpy(r, c->req->rails, c->req->nrails * sizeof(int));
		n = c->req->nrails;
	} else {
		for (int i = 0; i < t->nnics; i++)
			r[n++] = t->nics[i].rail;
	}
	qsort(r, n, sizeof(int), rp_cmp_int);
	c->job.nrails = 0;
	for (int i = 0; i < n; i++)
		if (!i || r[i] != r[i - 1])
			r[c->job.nrails++] = r[i];
	c->job.rails = r;
	return 0;
}

/* The rack's leaves (each once, in rail order), copied. */
static int rack_leaves(const struct ctx *c, const struct rack *rk,
		       struct rp_advise_rack *ar)
{
	const int *key = &c->keys[(size_t)rk->keyh * c->job.nrails];

	ar->leaves = calloc(c->job.nrails, sizeof(char *));
	if (!ar->leaves)
		return -ENOMEM;
	for (int r = 0; r < c->job.nrails; r++) {
		bool seen = false;

		for (int k = 0; k < r && !seen; k++)
			seen = key[k] == key[r];
		if (seen)
			continue;
		ar->leaves[ar->nleaves] = strdup(rp_leaf_name(c->t, key[r]));
		if (!ar->leaves[ar->nleaves])
			return -ENOMEM;
		ar->nleaves++;
	}
	return 0;
}

static int fill_advice(const struct ctx *c, const struct cand *cands, int nc,
		       int best, const struct rp_advise_eval *before,
		       struct rp_advice **out)
{
	const struct rp_topo *t = c->t;
	const struct cand *b = &cands[best];
	int n = c->req->nhosts, *ridx;
	struct rp_advice *a;

	a = calloc(1, sizeof(*a));
	ridx = calloc(n, sizeof(int));
	if (!a || !ridx)
		goto nomem;
	a->job = strdup(c->job.id);
	a->pattern = c->job.pattern == RP_PAT_RING ? "ring" : "alltoall";
	a->qps = c->job.qps;
	a->rails = malloc(c->job.nrails * sizeof(int));
	a->hosts = calloc(n, sizeof(char *));
	a->racks = calloc(n, sizeof(*a->racks));
	a->cands = calloc(nc, sizeof(*a->cands));
	if (!a->job || !a->rails || !a->hosts || !a->racks || !a->cands)
		goto nomem;
	a->nrails = c->job.nrails;
	memcpy(a->rails, c->job.rails, c->job.nrails * sizeof(int));
	a->free_hosts = c->neligible;
	a->strategy = a->cands[best].strategy;
	a->before = *before;
	a->after = b->eval;
	a->ncands = nc;
	a->chosen = best;
	for (int i = 0; i < nc; i++) {
		memcpy(a->cands[i].strategy, cands[i].strategy,
		       sizeof(a->cands[i].strategy));
		a->cands[i].nracks = cands[i].nracks;
		a->cands[i].eval = cands[i].eval;
	}
	for (int i = 0; i < n; i++) {
		int h = b->hosts[i], ri = c->host_rack[h], k;

		a->hosts[i] = strdup(t->hosts[h].name);
		if (!a->hosts[i])
			goto nomem;
		a->nhosts++;
		/* racks in order of first use */
		for (k = 0; k < a->nracks && ridx[k] != ri; k++)
			;
		if (k == a->nracks) {
			struct rp_advise_rack *ar = &a->racks[a->nracks++];

			ridx[k] = ri;
			if (rack_leaves(c, &c->racks[ri], ar))
				goto nomem;
			ar->size = c->racks[ri].size;
			ar->free = c->racks[ri].nfree;
			ar->load = c->racks[ri].load;
		}
		a->racks[k].taken++;
	}
	free(ridx);
	*out = a;
	return 0;
nomem:
	free(ridx);
	rp_advice_free(a);
	return -ENOMEM;
}

int rp_place_advise(const struct rp_topo *t, const struct rp_place *p,
		    const struct rp_advise_req *req, struct rp_advice **out,
		    struct rp_err *err)
{
	struct ctx c = { .t = t, .p = p, .req = req };
	int *take = NULL, *ordf = NULL, *ordl = NULL, nc = 0, best = 0, ret;
	struct rp_advise_eval before = { 0 };
	struct rp_plan *bp = NULL;
	struct cand cands[RP_ADVISE_MAX_CANDS];

	memset(cands, 0, sizeof(cands));
	ret = check_req(&c, err);
	if (ret)
		return ret;
	c.job.id = (char *)req->job;
	c.job.pattern = req->pattern && !strcmp(req->pattern, "alltoall") ?
			RP_PAT_ALLTOALL : RP_PAT_RING;
	c.job.qps = req->qps ? req->qps : 1;
	c.job.nhosts = req->nhosts;
	ret = job_rails(&c);
	if (ret)
		goto out;
	ret = -ENOMEM;
	c.upl = calloc(rp_topo_nload(t) + 1, sizeof(int));
	c.dnl = calloc(rp_topo_nload(t) + 1, sizeof(int));
	c.nic_tx = calloc(t->nnics + 1, sizeof(int));
	c.nic_rx = calloc(t->nnics + 1, sizeof(int));
	if (!c.upl || !c.dnl || !c.nic_tx || !c.nic_rx)
		goto out;
	ret = rp_plan_compute(t, p, &bp, err);
	if (ret)
		goto out;
	before.max_link_flows = bp->sum.max_link_flows;
	before.lower_bound = bp->sum.lower_bound;
	before.unplaced = bp->sum.unplaced;
	ret = make_racks(&c, bp);
	if (ret)
		goto out;
	if (c.neligible < req->nhosts) {
		int busy = 0, cap = 0;

		for (int i = 0; i < c.nracks; i++) {
			busy += c.racks[i].size - c.racks[i].nfree;
			cap += c.racks[i].size;
		}
		rp_err_set(err, "", "", 0, 0,
			   "job \"%s\" needs %d host%s, %d %s free: of the %d hosts, %d have a nic on every rail of the job, %d of those are in jobs",
			   req->job, req->nhosts, req->nhosts == 1 ? "" : "s",
			   c.neligible, c.neligible == 1 ? "is" : "are",
			   t->nhosts, cap, busy);
		ret = -ENOSPC;
		goto out;
	}
	ret = -ENOMEM;
	take = calloc(c.nracks + 1, sizeof(int));
	ordf = calloc(c.nracks + 1, sizeof(int));
	ordl = calloc(c.nracks + 1, sizeof(int));
	if (!take || !ordf || !ordl)
		goto out;
	for (int i = 0; i < RP_ADVISE_MAX_CANDS; i++) {
		cands[i].hosts = calloc(req->nhosts, sizeof(int));
		if (!cands[i].hosts)
			goto out;
	}
	nc = make_cands(&c, cands, RP_ADVISE_MAX_CANDS, take, ordf, ordl);
	for (int i = 0; i < nc; i++) {
		ret = judge(&c, cands[i].hosts, &cands[i].eval);
		if (ret)
			goto out;
		if (i && cmp_eval(&cands[i], &cands[best]) < 0)
			best = i;
	}
	ret = fill_advice(&c, cands, nc, best, &before, out);
out:
	if (ret && ret != -EINVAL && ret != -ENOSPC && ret != -EEXIST && err)
		rp_err_set(err, "", "", 0, 0, "cannot advise a placement: %s",
			   strerror(-ret));
	for (int i = 0; i < RP_ADVISE_MAX_CANDS; i++)
		free(cands[i].hosts);
	free(c.racks);
	free(c.rorder);
	free(c.pool);
	free(c.keys);
	free(c.host_rack);
	free(c.eligible);
	free(c.job.rails);
	free(c.upl);
	free(c.dnl);
	free(c.nic_tx);
	free(c.nic_rx);
	free(take);
	free(ordf);
	free(ordl);
	rp_plan_free(bp);
	return ret;
}
