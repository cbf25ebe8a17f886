// SPDX-License-Identifier: GPL-2.0
/*
 * Stable re-plans: when a job starts or ends, the other jobs' flows keep
 * their spines, links and ports where the new plan allows it, since a
 * changed port is a path a running QP no longer follows. The previous plan
 * only biases choices the planner makes anyway (which spine first, which
 * of equally allowed links, which of the ports that hash right); the bound
 * and the colouring's success are as without it. See planner.rst.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan_model.h"

/* A flow's identity across placements: job id, NICs, QP index. */
static int cmp_key(const struct rp_plan *a, const struct flow *x,
		   const struct rp_plan *b, const struct flow *y)
{
	if (x->src_nic != y->src_nic)
		return x->src_nic < y->src_nic ? -1 : 1;
	if (x->dst_nic != y->dst_nic)
		return x->dst_nic < y->dst_nic ? -1 : 1;
	if (x->qp != y->qp)
		return x->qp < y->qp ? -1 : 1;
	return strcmp(a->p->jobs[x->job].id, b->p->jobs[y->job].id);
}

static int cmp_prev(const void *a, const void *b, void *ctx)
{
	const struct rp_plan *pv = ctx;

	return cmp_key(pv, &pv->flows[*(const int *)a], pv,
		       &pv->flows[*(const int *)b]);
}

int rp_plan_match_prev(struct rp_plan *pl)
{
	const struct rp_plan *pv = pl->prev;
	int *idx, ncs = 0;

	if (!pv)
		return 0;
	for (int i = 0; i < pl->npairs; i++)
		ncs = pl->pairs[i].c0 + pl->pairs[i].nc > ncs ?
		      pl->pairs[i].c0 + pl->pairs[i].nc : ncs;
	idx = malloc((pv->nflows + 1) * sizeof(int));
	pl->prev_of = malloc((pl->nflows + 1) * sizeof(int));
	pl->prefer = calloc(ncs + 1, sizeof(int));
	pl->seeded = calloc(pl->npairs + 1, sizeof(int));
	if (!idx || !pl->prev_of || !pl->prefer || !pl->seeded) {
		free(idx);
		return -ENOMEM;
	}
	for (int i = 0; i < pv->nflows; i++)
		idx[i] = i;
	qsort_r(idx, pv->nflows, sizeof(int), cmp_prev, (void *)pv);
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];
		int lo = 0, hi = pv->nflows - 1, found = -1;

		while (lo <= hi) {
			int mid = (lo + hi) / 2;
			int r = cmp_key(pv, &pv->flows[idx[mid]], pl, f);

			if (!r) {
				found = idx[mid];
				break;
			}
			if (r < 0)
				lo = mid + 1;
			else
				hi = mid - 1;
		}
		if (found >= 0 && pv->flows[found].status != ST_PLACED)
			found = -1;
		pl->prev_of[i] = found;
	}
	free(idx);
	/* per pair and common spine: flows that were on that spine */
	for (int i = 0; i < pl->npairs; i++) {
		const struct pair *p = &pl->pairs[i];

		if (!pair_routed(p))
			continue;
		for (int j = 0; j < p->nf; j++) {
			const struct flow *q = prev_flow(pl, pl->order[p->f0 + j]);

			if (!q || q->spine < 0)
				continue;
			for (int c = 0; c < p->nc; c++)
				if (pl->cs[p->c0 + c] == q->spine)
					pl->prefer[p->c0 + c]++;
		}
	}
	return 0;
}

int rp_plan_stability(const struct rp_plan *before, const struct rp_plan *after,
		      unsigned int *common, unsigned int *same_port)
{
	struct rp_plan tmp;
	int ret;

	if (before->t != after->t)
		return -EINVAL;
	/* match after's flows against before, as a re-plan would */
	memset(&tmp, 0, sizeof(tmp));
	tmp = *after;
	tmp.prev = before;
	tmp.prev_of = NULL;
	tmp.prefer = NULL;
	tmp.seeded = NULL;
	ret = rp_plan_match_prev(&tmp);
	*common = *same_port = 0;
	for (int i = 0; !ret && i < after->nflows; i++) {
		const struct flow *q = prev_flow(&tmp, i);
		const struct flow *f = &after->flows[i];

		if (!q)
			continue;
		(*common)++;
		if (f->status == ST_PLACED && f->sport == q->sport)
			(*same_port)++;
	}
	free(tmp.prev_of);
	free(tmp.prefer);
	free(tmp.seeded);
	return ret;
}
