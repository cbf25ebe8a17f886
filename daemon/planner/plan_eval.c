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

/*
 * One tier's ECMP groups toward one leaf, each switch's worked out once:
 * a pair's flows ask for the same switches' again, for both baselines.
 * Switch x's group is at grp + x0[x] (x0: its first link), n[x] long,
 * valid when st[x] is the stamp of the leaf's pair.
 */
struct far_tier {
	int *grp, *n, *st;
	const int *x0;
	int (*group)(const struct rp_plan *pl, int x, int dst, int *grp,
		     int max);
};

struct far_groups {
	struct far_tier spine, super;
	int stamp;
};

static const int *far_group(const struct rp_plan *pl, struct far_tier *ft,
			    int stamp, int x, int dst, int *n)
{
	int *grp = ft->grp + ft->x0[x];

	if (ft->st[x] != stamp) {
		ft->st[x] = stamp;
		ft->n[x] = ft->group(pl, x, dst, grp, ft->x0[x + 1] - ft->x0[x]);
	}
	*n = ft->n[x];
	return grp;
}

/*
 * The member of a group of n that a switch's hash gives the default port,
 * 0 where it gives none (a table without the port). A group of one needs
 * no hash: most last spines have one link down to the leaf, and hashing
 * the whole input for every flow's last hop was a tenth of the baselines.
 */
static int ecmp_member(const struct rp_hash_model *m, const struct flow *f,
		       const struct rp_topo *t, int n)
{
	int k;

	if (n == 1)
		return 0;
	k = rp_hash_member(m, &t->nics[f->src_nic].addr,
			   &t->nics[f->dst_nic].addr, f->e_sport, n);
	return k < 0 ? 0 : k;
}

/*
 * Between pods, from the first spine s on toward dst (g's leaf): the
 * spine's link up and the superspine's link down, each by the switch's
 * hash of the default port (ECMP) or by the destination NIC's slot
 * (slice); returns the last spine.
 */
static int far_hops(const struct rp_plan *pl, const struct flow *f, int s,
		    int dst, struct far_groups *g, bool slice, int *uu,
		    int *ud)
{
	const struct rp_topo *t = pl->t;
	int slot = pl->nic_slot[f->dst_nic], n, m, u;
	const int *grp;

	grp = far_group(pl, &g->spine, g->stamp, s, dst, &n);
	m = slice ? slot % n :
	    ecmp_member(&t->sw[t->spine_sw[s]].hash, f, t, n);
	*uu = grp[m];
	u = t->ulinks[*uu].super;
	grp = far_group(pl, &g->super, g->stamp, u, dst, &n);
	m = slice ? slot % n :
	    ecmp_member(&t->sw[t->super_sw[u]].hash, f, t, n);
	*ud = grp[m];
	return t->ulinks[*ud].spine;
}

int rp_plan_baselines(struct rp_plan *pl, int *grp, int gmax)
{
	const struct rp_topo *t = pl->t;
	int ns = t->nspines, nu = t->nsupers;
	int *st = calloc(2 * ((size_t)ns + nu) + 1, sizeof(int));
	/* grp has room for three groups of any switch's links */
	struct far_groups g = {
		.spine = { grp + gmax, st, st + ns, pl->spine_u0,
			   rp_plan_spine_group },
		.super = { grp + 2 * gmax, st + 2 * ns, st + 2 * ns + nu,
			   pl->super_u0, rp_plan_super_group },
	};

	if (!st)
		return -ENOMEM;
	for (int i = 0; i < pl->npairs; i++) {
		struct pair *p = &pl->pairs[i];
		int ngl, nall, l0;

		if (!pair_routed(p))
			continue;
		g.stamp = i + 1;
		ngl = rp_plan_leaf_group(pl, p->src, p->dst, grp, gmax);
		l0 = pl->leaf_l0[p->src];
		nall = pl->leaf_l0[p->src + 1] - l0;
		for (int j = 0; j < p->nf; j++) {
			int fi = pl->order[p->f0 + j];
			struct flow *f = &pl->flows[fi];
			struct flow3 *f3 = pl->f3 ? &pl->f3[fi] : NULL;
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
				if (p->xpod)
					s = far_hops(pl, f, s, p->dst, &g,
						     false, &f3->e_uu, &f3->e_ud);
				db = bget(pl, p->dst, s);
				m = ecmp_member(&t->sw[t->spine_sw[s]].hash, f, t,
						db->n);
				f->e_dn = pl->blinks[db->s0 + m];
			}

			/* destination slice: uplink = slot of the dst NIC */
			slot = pl->nic_slot[f->dst_nic];
			for (int k = 0; k < nall; k++) {
				const struct rp_link *l =
					&t->links[l0 + (slot + k) % nall];

				if (l->up && (p->xpod ?
					      rp_plan_spine_reaches(pl, l->spine, p->dst) :
					      bcount(pl, p->dst, l->spine) > 0)) {
					pick = l0 + (slot + k) % nall;
					break;
				}
			}
			f->s_up = pick;
			s = t->links[pick].spine;
			if (p->xpod)
				s = far_hops(pl, f, s, p->dst, &g, true,
					     &f3->s_uu, &f3->s_ud);
			db = bget(pl, p->dst, s);
			f->s_dn = pl->blinks[db->s0 + slot % db->n];
		}
	}
	free(st);
	return 0;
}

unsigned int rp_plan_max_load(const struct rp_plan *pl, int mode, int *upl,
			      int *dnl)
{
	unsigned int mx = 0;

	memset(upl, 0, rp_topo_nload(pl->t) * sizeof(int));
	memset(dnl, 0, rp_topo_nload(pl->t) * sizeof(int));
	for (int i = 0; i < pl->nflows; i++) {
		const struct flow *f = &pl->flows[i];
		int u[2], d[2], n;

		if (mode == RP_MODE_PLAN && !st_loaded(f->status))
			continue;
		n = rp_plan_flow_links(pl, i, mode, u, d);
		for (int k = 0; k < n; k++) {
			if ((unsigned int)++upl[u[k]] > mx)
				mx = upl[u[k]];
			if ((unsigned int)++dnl[d[k]] > mx)
				mx = dnl[d[k]];
		}
	}
	return mx;
}
