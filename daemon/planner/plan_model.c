// SPDX-License-Identifier: GPL-2.0
/*
 * The planner's model built from topology and placement: flows in canonical
 * order, leaf-spine bundles and leaf pairs with their common spines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_model.h"
#include "plan_probe.h"

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
	rp_hash_lin_free(&pl->lin);
	free(pl->prev_of);
	free(pl->prefer);
	free(pl->seeded);
	if (pl->own_probes)
		rp_probes_free(pl->own_probes);
	free(pl->own_probes);
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

int rp_plan_make_flows(struct rp_plan *pl)
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

int rp_plan_make_bundles(struct rp_plan *pl)
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

int rp_plan_make_pairs(struct rp_plan *pl)
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

