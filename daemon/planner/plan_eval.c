// SPDX-License-Identifier: GPL-2.0
/*
 * Baselines the plan is compared with (default QPN-derived ports through the
 * hash models, destination-slice pinning) and directed link loads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_model.h"

/*
 * Default QPNs as rxe allocates them on freshly loaded devices: every NIC
 * numbers its QPs 17, 18, ... (RXE_MIN_QP_INDEX 16 is taken by the GSI
 * QP); the QPs of each connection are created in canonical flow order, the
 * sender's and the receiver's side at once.
 */
int rp_plan_assign_qpns(struct rp_plan *pl)
{
	uint32_t *next = malloc((pl->t->nnics + 1) * sizeof(*next));

	if (!next)
		return -ENOMEM;
	for (int i = 0; i < pl->t->nnics; i++)
		next[i] = RP_QPN_FIRST;
	for (int i = 0; i < pl->nflows; i++) {
		struct flow *f = &pl->flows[i];

		f->lqpn = next[f->src_nic]++;
		f->rqpn = next[f->dst_nic]++;
		f->e_sport = rp_qpn_sport(f->lqpn, f->rqpn);
	}
	free(next);
	return 0;
}

void rp_plan_baselines(struct rp_plan *pl, int *grp, int gmax)
{
	const struct rp_topo *t = pl->t;

	for (int i = 0; i < pl->npairs; i++) {
		struct pair *p = &pl->pairs[i];
		int ngl, nall, l0;

		if (!pair_routed(p))
			continue;
		ngl = rp_plan_leaf_group(pl, p->src, p->dst, grp, gmax);
		l0 = pl->leaf_l0[p->src];
		nall = pl->leaf_l0[p->src + 1] - l0;
		for (int j = 0; j < p->nf; j++) {
			struct flow *f = &pl->flows[pl->order[p->f0 + j]];
			const struct rp_nic *sn = &t->nics[f->src_nic];
			const struct rp_nic *dn = &t->nics[f->dst_nic];
			int m, s, slot, pick = -1;
			struct bundle *db;

			m = rp_hash_member(&t->sw[t->leaf_sw[p->src]].hash,
					   &sn->addr, &dn->addr, f->e_sport,
					   ngl);
			f->e_up = f->e_dn = -1;
			/* a measured hash has no model: the baseline is unknown */
			if (m >= 0 || t->sw[t->leaf_sw[p->src]].hash.alg !=
				      RP_HASH_MEASURED) {
				f->e_up = grp[m < 0 ? 0 : m];
				s = t->links[f->e_up].spine;
				db = bget(pl, p->dst, s);
				m = rp_hash_member(&t->sw[t->spine_sw[s]].hash,
						   &sn->addr, &dn->addr,
						   f->e_sport, db->n);
				f->e_dn = pl->blinks[db->s0 + (m < 0 ? 0 : m)];
			}

			/* destination slice: uplink = slot of the dst NIC */
			slot = pl->nic_slot[f->dst_nic];
			for (int k = 0; k < nall; k++) {
				const struct rp_link *l =
					&t->links[l0 + (slot + k) % nall];

				if (l->up && bcount(pl, p->dst, l->spine)) {
					pick = l0 + (slot + k) % nall;
					break;
				}
			}
			f->s_up = pick;
			s = t->links[pick].spine;
			db = bget(pl, p->dst, s);
			f->s_dn = pl->blinks[db->s0 + slot % db->n];
		}
	}
}

unsigned int rp_plan_max_load(const struct rp_plan *pl, int mode, int *upl,
			      int *dnl)
{
	unsigned int mx = 0;

	memset(upl, 0, pl->t->nlinks * sizeof(int));
	memset(dnl, 0, pl->t->nlinks * sizeof(int));
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];
		int u = mode == RP_MODE_PLAN ? f->up :
			mode == RP_MODE_ECMP ? f->e_up : f->s_up;
		int d = mode == RP_MODE_PLAN ? f->dn :
			mode == RP_MODE_ECMP ? f->e_dn : f->s_dn;

		if (mode == RP_MODE_PLAN && !st_loaded(f->status))
			continue;
		if (u >= 0 && (unsigned int)++upl[u] > mx)
			mx = upl[u];
		if (d >= 0 && (unsigned int)++dnl[d] > mx)
			mx = dnl[d];
	}
	return mx;
}
