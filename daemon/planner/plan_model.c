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
	free(pl->leaf_s0);
	free(pl->leaf_sp);
	free(pl->nic_slot);
	free(pl->f3);
	free(pl->ubundles);
	free(pl->ubidx);
	free(pl->ublinks);
	free(pl->spine_ub0);
	free(pl->super_ub0);
	free(pl->super_ubl);
	free(pl->spine_u0);
	free(pl->super_u0);
	free(pl->super_ul);
	free(pl->super_pl);
	free(pl->super_pp0);
	free(pl->ureach);
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

/*
 * Stable counting sort of the n items idx[] by key[item] (0 <= key <
 * range), through tmp[n] and cnt[range + 1]. Sorting by the least
 * significant key first and the most significant last gives the order of
 * a comparator on all the keys with ties in the original order, in O(n)
 * per key instead of qsort's n log n calls.
 */
static void csort(int *idx, int *tmp, int n, const int *key, int range,
		  int *cnt)
{
	memset(cnt, 0, (range + 1) * sizeof(int));
	for (int i = 0; i < n; i++)
		cnt[key[idx[i]] + 1]++;
	for (int k = 0; k < range; k++)
		cnt[k + 1] += cnt[k];
	for (int i = 0; i < n; i++)
		tmp[cnt[key[idx[i]]]++] = idx[i];
	memcpy(idx, tmp, n * sizeof(int));
}

/* The keys of each item, least significant first; -ENOMEM. */
static int radix_sort(int *idx, int n, const int *const *keys,
		      const int *ranges, int nkeys)
{
	int *tmp = malloc((n + 1) * sizeof(int)), *cnt, rmax = 0;

	for (int k = 0; k < nkeys; k++)
		rmax = ranges[k] > rmax ? ranges[k] : rmax;
	cnt = malloc((rmax + 1) * sizeof(int));
	if (!tmp || !cnt) {
		free(tmp);
		free(cnt);
		return -ENOMEM;
	}
	for (int k = 0; k < nkeys; k++)
		csort(idx, tmp, n, keys[k], ranges[k], cnt);
	free(tmp);
	free(cnt);
	return 0;
}

/*
 * Flows into canonical order: by job, rail, source host, destination host,
 * QP (ties in the order made). Radix passes over the keys, then the
 * permutation applied in place (cycle by cycle: no second flow array).
 */
static int sort_flows(struct rp_plan *pl)
{
	const struct rp_topo *t = pl->t;
	int n = pl->nflows, *key = malloc((5 * (size_t)n + 1) * sizeof(int));
	int *perm = malloc(((size_t)n + 1) * sizeof(int));
	int ranges[5] = { 1, t->nhosts, t->nhosts, 1, pl->p->njobs };
	const int *keys[5];
	int ret;

	if (!key || !perm) {
		free(key);
		free(perm);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		const struct flow *f = &pl->flows[i];

		key[i] = f->qp;
		key[n + i] = t->nics[f->dst_nic].host;
		key[2 * n + i] = t->nics[f->src_nic].host;
		key[3 * n + i] = f->rail;
		key[4 * n + i] = f->job;
		ranges[0] = f->qp >= ranges[0] ? f->qp + 1 : ranges[0];
		ranges[3] = f->rail >= ranges[3] ? f->rail + 1 : ranges[3];
		perm[i] = i;
	}
	for (int k = 0; k < 5; k++)
		keys[k] = key + (size_t)k * n;
	ret = radix_sort(perm, n, keys, ranges, 5);
	free(key);
	if (ret) {
		free(perm);
		return ret;
	}
	/* flows[i] = old flows[perm[i]], one cycle at a time */
	for (int i = 0; i < n; i++) {
		struct flow x;
		int j = i;

		if (perm[i] == i || perm[i] < 0)
			continue;
		x = pl->flows[i];
		while (perm[j] != i) {
			int k = perm[j];

			pl->flows[j] = pl->flows[k];
			perm[j] = -1;
			j = k;
		}
		pl->flows[j] = x;
		perm[j] = -1;
	}
	free(perm);
	return 0;
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
	return sort_flows(pl);
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
	/* each leaf's spines in index order: pairs list theirs from these */
	pl->leaf_s0 = calloc(t->nleaves + 2, sizeof(int));
	pl->leaf_sp = calloc(nb + 1, sizeof(int));
	if (!pl->leaf_s0 || !pl->leaf_sp)
		return -ENOMEM;
	k = 0;
	for (int l = 0; l < t->nleaves; l++) {
		const int *row = &pl->bidx[(size_t)l * t->nspines];

		pl->leaf_s0[l] = k;
		for (int s = 0; s < t->nspines; s++)
			if (row[s] >= 0)
				pl->leaf_sp[k++] = s;
	}
	pl->leaf_s0[t->nleaves] = k;
	return 0;
}

/* ---- the superspine tier ---------------------------------------------- */

static int cmp_super_port(const void *a, const void *b, void *ctx)
{
	const struct rp_topo *t = ctx;
	const struct rp_ulink *x = &t->ulinks[*(const int *)a];
	const struct rp_ulink *y = &t->ulinks[*(const int *)b];

	if (x->super != y->super)
		return x->super < y->super ? -1 : 1;
	return x->super_port < y->super_port ? -1 :
	       x->super_port > y->super_port;
}

bool rp_plan_spine_reaches(const struct rp_plan *pl, int spine, int leaf)
{
	for (int b = pl->spine_ub0[spine]; b < pl->spine_ub0[spine + 1]; b++)
		if (ureaches(pl, pl->ubundles[b].super, leaf))
			return true;
	return false;
}

/*
 * A superspine's links down into one pod, in super_port order: its group
 * toward a leaf lies among them (leaf-spine links stay in a pod), so
 * rp_plan_super_group() reads those instead of all the superspine's links.
 * Left unbuilt (NULL) when a spine has no pod or the index would be large.
 */
static int super_by_pod(struct rp_plan *pl)
{
	const struct rp_topo *t = pl->t;
	size_t cells = (size_t)t->nsupers * t->npods;
	int nu = t->nulinks;

	if (!t->npods || cells > 16u * 1024 * 1024)
		return 0;
	for (int i = 0; i < nu; i++)
		if (rp_spine_pod(t, t->ulinks[i].spine) < 0)
			return 0;
	pl->super_pl = malloc((nu + 1) * sizeof(int));
	pl->super_pp0 = calloc(cells + 2, sizeof(int));
	if (!pl->super_pl || !pl->super_pp0)
		return -ENOMEM;
	for (int i = 0; i < nu; i++) {
		const struct rp_ulink *l = &t->ulinks[i];

		pl->super_pp0[(size_t)l->super * t->npods +
			      rp_spine_pod(t, l->spine) + 1]++;
	}
	for (size_t c = 0; c < cells; c++)
		pl->super_pp0[c + 1] += pl->super_pp0[c];
	/* in super_ul's order, so each cell keeps super_port order */
	for (int k = 0; k < nu; k++) {
		const struct rp_ulink *l = &t->ulinks[pl->super_ul[k]];
		size_t c = (size_t)l->super * t->npods + rp_spine_pod(t, l->spine);

		pl->super_pl[pl->super_pp0[c]++] = pl->super_ul[k];
	}
	/* the fill moved each start to the next cell's: back one cell */
	for (size_t c = cells; c > 0; c--)
		pl->super_pp0[c] = pl->super_pp0[c - 1];
	pl->super_pp0[0] = 0;
	return 0;
}

/*
 * Spine-superspine bundles (up links only, ordered by (spine, super)),
 * each superspine's bundles and links, and for every leaf the
 * superspines with an up path down to it. Nothing without superspines.
 */
int rp_plan_make_upper(struct rp_plan *pl)
{
	const struct rp_topo *t = pl->t;
	size_t cells = (size_t)t->nspines * t->nsupers;
	int nu = t->nulinks, nb = 0, k = 0, ret;
	int *pos;

	if (!t->nsupers)
		return 0;
	if (cells > 64u * 1024 * 1024 ||
	    (size_t)t->nleaves * t->nsupers > 256u * 1024 * 1024)
		return -E2BIG;
	pl->f3 = calloc(pl->nflows + 1, sizeof(*pl->f3));
	pl->ubidx = malloc((cells + 1) * sizeof(int));
	pl->ubundles = calloc(nu + 1, sizeof(*pl->ubundles));
	pl->ublinks = calloc(2 * nu + 1, sizeof(int));
	pl->spine_ub0 = calloc(t->nspines + 2, sizeof(int));
	pl->super_ub0 = calloc(t->nsupers + 2, sizeof(int));
	pl->super_ubl = calloc(nu + 1, sizeof(int));
	pl->spine_u0 = calloc(t->nspines + 2, sizeof(int));
	pl->super_u0 = calloc(t->nsupers + 2, sizeof(int));
	pl->super_ul = calloc(nu + 1, sizeof(int));
	pl->ureach = calloc((size_t)t->nleaves * t->nsupers + 1, 1);
	pos = calloc(t->nsupers + 2, sizeof(int));
	if (!pl->f3 || !pl->ubidx || !pl->ubundles || !pl->ublinks ||
	    !pl->spine_ub0 || !pl->super_ub0 || !pl->super_ubl ||
	    !pl->spine_u0 || !pl->super_u0 || !pl->super_ul || !pl->ureach ||
	    !pos) {
		free(pos);
		return -ENOMEM;
	}
	for (int i = 0; i < pl->nflows; i++) {
		struct flow3 *g = &pl->f3[i];

		g->super = g->spine2 = g->uu = g->ud = -1;
		g->e_uu = g->e_ud = g->s_uu = g->s_ud = -1;
	}
	for (size_t i = 0; i < cells; i++)
		pl->ubidx[i] = -1;
	/* count up links per cell, number the bundles in cell order */
	for (int i = 0; i < nu; i++) {
		const struct rp_ulink *l = &t->ulinks[i];

		pl->spine_u0[l->spine + 1]++;
		if (l->up)
			pl->ubidx[(size_t)l->spine * t->nsupers + l->super]--;
	}
	for (size_t i = 0; i < cells; i++) {
		struct ubundle *b;

		if (pl->ubidx[i] == -1)
			continue;
		b = &pl->ubundles[nb];
		b->spine = i / t->nsupers;
		b->super = i % t->nsupers;
		b->l0 = k;
		b->s0 = k + (-1 - pl->ubidx[i]);
		k += 2 * (-1 - pl->ubidx[i]);
		pl->spine_ub0[b->spine + 1]++;
		pl->super_ub0[b->super + 1]++;
		pl->ubidx[i] = nb++;
	}
	pl->nubundles = nb;
	for (int s = 0; s < t->nspines; s++) {
		pl->spine_ub0[s + 1] += pl->spine_ub0[s];
		pl->spine_u0[s + 1] += pl->spine_u0[s];
	}
	for (int u = 0; u < t->nsupers; u++)
		pl->super_ub0[u + 1] += pl->super_ub0[u];
	for (int b = 0; b < nb; b++) {
		int u = pl->ubundles[b].super;

		pl->super_ubl[pl->super_ub0[u] + pos[u]++] = b;
	}
	/* ulinks are sorted by (spine, spine port): fill in that order */
	for (int i = 0; i < nu; i++) {
		const struct rp_ulink *l = &t->ulinks[i];
		struct ubundle *b;

		pl->super_u0[l->super + 1]++;
		if (!l->up)
			continue;
		b = &pl->ubundles[pl->ubidx[(size_t)l->spine * t->nsupers +
					    l->super]];
		pl->ublinks[b->l0 + b->n] = i;
		pl->ublinks[b->s0 + b->n] = i;
		b->n++;
	}
	for (int b = 0; b < nb; b++)
		qsort_r(&pl->ublinks[pl->ubundles[b].s0], pl->ubundles[b].n,
			sizeof(int), cmp_super_port, (void *)t);
	for (int u = 0; u < t->nsupers; u++)
		pl->super_u0[u + 1] += pl->super_u0[u];
	for (int i = 0; i < nu; i++)
		pl->super_ul[i] = i;
	qsort_r(pl->super_ul, nu, sizeof(int), cmp_super_port, (void *)t);
	free(pos);
	ret = super_by_pod(pl);
	if (ret)
		return ret;
	/* superspines with an up path down to each leaf */
	for (int leaf = 0; leaf < t->nleaves; leaf++)
		for (int i = pl->leaf_l0[leaf]; i < pl->leaf_l0[leaf + 1]; i++) {
			int s = t->links[i].spine;

			if (!t->links[i].up)
				continue;
			for (int b = pl->spine_ub0[s]; b < pl->spine_ub0[s + 1]; b++)
				pl->ureach[(size_t)leaf * t->nsupers +
					   pl->ubundles[b].super] = 1;
		}
	return 0;
}

/* ---- pairs --------------------------------------------------------- */

/*
 * order[0..n) (flow indices, ascending) by source leaf, destination leaf,
 * source NIC, destination NIC, then index: the flows of a pair together.
 */
static int sort_order(struct rp_plan *pl, int n)
{
	const struct rp_topo *t = pl->t;
	size_t nf = pl->nflows;
	int *key = malloc((4 * nf + 1) * sizeof(int));
	int ranges[4] = { t->nnics, t->nnics, t->nleaves, t->nleaves };
	const int *keys[4];
	int ret;

	if (!key)
		return -ENOMEM;
	/* keyed by flow index, as order[] holds them */
	for (int k = 0; k < 4; k++)
		keys[k] = key + k * nf;
	for (int i = 0; i < n; i++) {
		int fi = pl->order[i];
		const struct flow *f = &pl->flows[fi];

		key[fi] = f->dst_nic;
		key[nf + fi] = f->src_nic;
		key[2 * nf + fi] = t->nics[f->dst_nic].leaf;
		key[3 * nf + fi] = t->nics[f->src_nic].leaf;
	}
	ret = radix_sort(pl->order, n, keys, ranges, 4);
	free(key);
	return ret;
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

/* Common spines of a pair within a pod, into cs from *ncs on. */
static void pair_common(struct rp_plan *pl, struct pair *p, int *cs, int *ncs)
{
	/* both leaves' spines in index order: their intersection */
	const int *a = &pl->leaf_sp[pl->leaf_s0[p->src]];
	const int *ae = &pl->leaf_sp[pl->leaf_s0[p->src + 1]];
	const int *b = &pl->leaf_sp[pl->leaf_s0[p->dst]];
	const int *be = &pl->leaf_sp[pl->leaf_s0[p->dst + 1]];
	int k = 0;

	p->c0 = *ncs;
	while (a < ae && b < be) {
		if (*a < *b) {
			a++;
		} else if (*b < *a) {
			b++;
		} else {
			cs[p->c0 + k] = *a;
			k++;
			a++;
			b++;
		}
	}
	p->nc = p->nk = k;
	p->k0 = p->c0;
	*ncs += k;
}

/*
 * First- and last-hop spines of a pair between pods: the source leaf's
 * spines with an up path to dst, and the destination leaf's spines that a
 * superspine reached from one of them links down to. umark (per
 * superspine) marks those superspines with the pair's stamp.
 */
static void pair_hops(struct rp_plan *pl, struct pair *p, int *umark, int *cs,
		      int *ncs)
{
	int st = p - pl->pairs + 1, nf = 0, nl = 0;

	p->c0 = *ncs;
	/* the source leaf's spines (a bundle: up links), in index order */
	for (int i = pl->leaf_s0[p->src]; i < pl->leaf_s0[p->src + 1]; i++) {
		int s = pl->leaf_sp[i];
		bool first = false;

		for (int b = pl->spine_ub0[s]; b < pl->spine_ub0[s + 1]; b++) {
			int u = pl->ubundles[b].super;

			if (ureaches(pl, u, p->dst)) {
				umark[u] = st;
				first = true;
			}
		}
		if (!first)
			continue;
		cs[p->c0 + nf] = s;
		nf++;
	}
	p->nc = nf;
	p->k0 = p->c0 + nf;
	for (int i = pl->leaf_s0[p->dst]; nf && i < pl->leaf_s0[p->dst + 1]; i++) {
		int s = pl->leaf_sp[i];
		bool last = false;

		for (int b = pl->spine_ub0[s]; b < pl->spine_ub0[s + 1] && !last; b++)
			last = umark[pl->ubundles[b].super] == st;
		if (!last)
			continue;
		cs[p->k0 + nl] = s;
		nl++;
	}
	p->nk = nl;
	*ncs += nf + nl;
}

int rp_plan_make_pairs(struct rp_plan *pl)
{
	const struct rp_topo *t = pl->t;
	int n = 0, np = 0, ncs = 0, *mark, *trimmed, ret;
	size_t bound = 0;

	for (int i = 0; i < pl->nflows; i++) {
		struct flow *f = &pl->flows[i];

		if (t->nics[f->src_nic].addr.family !=
		    t->nics[f->dst_nic].addr.family) {
			f->status = ST_FAMILY;
			continue;
		}
		pl->order[n++] = i;
	}
	ret = sort_order(pl, n);
	if (ret)
		return ret;
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
	/*
	 * common spines; between pods first- and last-hop spines. One pass
	 * into room for every spine of both leaves, trimmed after: counting
	 * first cost as much as the pass (the pages never written are never
	 * touched).
	 */
	for (int i = 0; i < np; i++) {
		const struct pair *p = &pl->pairs[i];

		if (p->src != p->dst)
			bound += pl->leaf_s0[p->src + 1] - pl->leaf_s0[p->src] +
				 pl->leaf_s0[p->dst + 1] - pl->leaf_s0[p->dst];
	}
	mark = calloc(t->nsupers + 1, sizeof(int));
	pl->cs = calloc(bound + 1, sizeof(int));
	if (!mark || !pl->cs) {
		free(mark);
		return -ENOMEM;
	}
	for (int i = 0; i < np; i++) {
		struct pair *p = &pl->pairs[i];

		if (p->src == p->dst)
			continue;
		p->xpod = t->nsupers && xpod(t, p->src, p->dst);
		if (p->xpod)
			pair_hops(pl, p, mark, pl->cs, &ncs);
		else
			pair_common(pl, p, pl->cs, &ncs);
	}
	free(mark);
	trimmed = realloc(pl->cs, (ncs + 1) * sizeof(int));
	if (trimmed)
		pl->cs = trimmed;
	pl->x = calloc(ncs + 1, sizeof(int));
	if (!pl->x)
		return -ENOMEM;
	for (int i = 0; i < np; i++) {
		struct pair *p = &pl->pairs[i];

		if (p->src == p->dst)
			continue;
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

static uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7FEB352Du;
	x ^= x >> 15;
	x *= 0x846CA68Bu;
	return x ^ (x >> 16);
}

static int pair_cmp(const struct rp_plan *pl, int i, int k, int attempt,
		    bool xpod_first)
{
	const struct pair *x = &pl->pairs[i], *y = &pl->pairs[k];

	if (attempt) {
		uint32_t hx = mix32(i * 0x9E3779B9u + attempt);
		uint32_t hy = mix32(k * 0x9E3779B9u + attempt);

		if (hx != hy)
			return hx < hy ? -1 : 1;
		return i - k;
	}
	if (xpod_first && x->xpod != y->xpod)
		return x->xpod ? -1 : 1;
	if (x->nc != y->nc)
		return x->nc < y->nc ? -1 : 1;
	if (x->d != y->d)
		return x->d > y->d ? -1 : 1;
	return i - k;
}

struct porder_ctx {
	const struct rp_plan *pl;
	int attempt;
	bool xpod_first;
};

static int cmp_porder(const void *a, const void *b, void *arg)
{
	const struct porder_ctx *c = arg;

	return pair_cmp(c->pl, *(const int *)a, *(const int *)b, c->attempt,
			c->xpod_first);
}

void rp_plan_pair_order(const struct rp_plan *pl, int *order, int attempt,
			bool xpod_first)
{
	struct porder_ctx c = { pl, attempt, xpod_first };

	for (int i = 0; i < pl->npairs; i++)
		order[i] = i;
	qsort_r(order, pl->npairs, sizeof(int), cmp_porder, &c);
}
