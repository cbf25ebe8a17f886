/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The planner's working model: flows, leaf pairs, leaf-spine bundles and
 * the plan that owns them, shared by the planner's steps (plan_model.c
 * builds it, plan_colour.c assigns spines, plan_ports.c picks ports,
 * plan_eval.c derives the baselines and loads, plan_out.c prints it).
 */
#ifndef ROCEPATH_PLAN_MODEL_H
#define ROCEPATH_PLAN_MODEL_H

#include "plan_int.h"


enum {
	ST_PLACED,
	ST_NO_PATH,
	ST_FAMILY,
	ST_NO_PORT,
	/* measured leaf hash (plan_probe_plan.c) */
	ST_UNPROBED,		/* path assigned, counted; no answers to pick from */
	ST_NO_PROBED,		/* answers, none onto the assigned spine */
	ST_PARALLEL,		/* probes cannot tell parallel links apart */
};

/* Flows whose assigned links count in the plan's loads. */
static inline bool st_loaded(int status)
{
	return status == 0 || status == ST_UNPROBED;
}

struct flow {
	int job, rail, qp;
	int src_nic, dst_nic;
	int pair;		/* -1: not routable (see status) */
	int spine;		/* planned spine, -1 when same leaf */
	int up, dn;		/* planned link indices, -1 when same leaf */
	int e_up, e_dn;		/* ECMP baseline links */
	int s_up, s_dn;		/* destination-slice links */
	uint32_t lqpn, rqpn;	/* ECMP baseline QPNs */
	uint16_t sport, e_sport;
	uint8_t status;
};

struct pair {
	int src, dst;		/* leaves */
	int d;			/* demand (flows) */
	int f0, nf;		/* into plan->order */
	int c0, nc;		/* common spines: plan->cs/x[c0 .. c0+nc) */
};

struct bundle {
	int leaf, spine, n;	/* n up links */
	int l0;			/* plan->blinks[l0..l0+n): by leaf port */
	int s0;			/* plan->blinks[s0..s0+n): by spine port */
};

struct rp_plan {
	const struct rp_topo *t;
	const struct rp_place *p;
	struct rp_topo *own_t;
	struct rp_place *own_p;

	int nflows;
	struct flow *flows;	/* canonical order */
	int *order;		/* flow indices grouped by pair */
	int npairs;
	struct pair *pairs;	/* sorted by (src, dst) */
	int *dst_adj;		/* pair indices sorted by (dst, src) */
	int *porder;		/* pair order of the colouring pass */
	int attempt;		/* colouring pass number (0: by constraint) */
	int *src_p0, *dst_p0;	/* per leaf: first pair (nleaves + 1) */
	int *cs, *x;		/* common spines and counts per pair */

	int nbundles;
	struct bundle *bundles;
	int *bidx;		/* [leaf * nspines + spine] -> bundle or -1 */
	int *blinks;
	int *leaf_l0;		/* per leaf: first link in t->links (+1) */

	int *nic_slot;		/* index of the NIC among its leaf's NICs */

	int *ld[2];		/* [leaf * nspines + spine] loads: 0 up, 1 down */
	int T;

	/* BFS scratch */
	int *stamp[2], *par[2], *exc[2], *lost[2], *queue;
	int cur_stamp;

	struct rp_plan_summary sum;
	struct rp_hash_lin lin;	/* port search: CRC contribution tables */
	/* stable re-plans (plan_stable.c); NULL without a previous plan */
	const struct rp_plan *prev;
	int *prev_of;		/* per flow: the same flow in prev, or -1 */
	int *prefer;		/* per common spine of a pair: flows there in prev */
	int *seeded;		/* per pair: units the colouring put as prefer says */
	bool seeding;		/* the colouring pass honours prefer */
	/* probe answers for measured leaves (plan_probe.h); may be NULL */
	const struct rp_probes *probes;
	struct rp_probes *own_probes;
};

static inline int bcount(const struct rp_plan *pl, int leaf, int spine)
{
	int b = pl->bidx[(size_t)leaf * pl->t->nspines + spine];

	return b < 0 ? 0 : pl->bundles[b].n;
}

static inline struct bundle *bget(const struct rp_plan *pl, int leaf,
				  int spine)
{
	return &pl->bundles[pl->bidx[(size_t)leaf * pl->t->nspines + spine]];
}

static inline bool pair_routed(const struct pair *p)
{
	return p->src != p->dst && p->nc > 0;
}

/* plan_out.c: the reason of each status, as "unplaced" lists it. */
extern const char *const rp_plan_status_reason[];
/* The summary's "ecmp_qpns": how the baseline's QPNs are numbered. */
#define RP_PLAN_ECMP_QPNS "rxe-sequential: each NIC numbers its QPs from 17 " \
	"in flow order, both ends of a connection at once; sport = " \
	"rdma_flow_label_to_udp_sport(rdma_calc_flow_label(lqpn, rqpn))"

/* plan_model.c: flows in canonical order, bundles, pairs. -errno. */
int rp_plan_make_flows(struct rp_plan *pl);
int rp_plan_make_bundles(struct rp_plan *pl);
int rp_plan_make_pairs(struct rp_plan *pl);

/* plan_colour.c: the bound, and a spine colouring within T (-EAGAIN). */
int rp_plan_lower_bound(struct rp_plan *pl);
/* attempt -1: units first on the spines pl->prefer names (stable re-plans) */
int rp_plan_colour(struct rp_plan *pl, int T, int attempt);

/* plan_ports.c */
int rp_plan_leaf_group(const struct rp_plan *pl, int leaf, int dst, int *grp,
		       int max);
int rp_plan_route_pair(struct rp_plan *pl, int pi, int *upl, int *dnl,
		       int *grp, int gmax, uint16_t *used);

/* plan_probe_plan.c: port of f (through a measured leaf) or -1 with
 * *status set; used[nrsv..nused) as in rp_plan_route_pair(). */
int rp_plan_probed_port(const struct rp_plan *pl, const struct flow *f,
			const struct flow *q, const uint16_t *used, int nused,
			int nrsv, struct rp_hash_ctx *sc, int want_s, int ngs,
			uint8_t *status);

/* plan_stable.c: prev_of and prefer from pl->prev. -errno. */
int rp_plan_match_prev(struct rp_plan *pl);
/* The flow's previous self, or NULL. */
static inline const struct flow *prev_flow(const struct rp_plan *pl, int i)
{
	return pl->prev_of && pl->prev_of[i] >= 0 ?
	       &pl->prev->flows[pl->prev_of[i]] : NULL;
}

/* plan_eval.c */
int rp_plan_assign_qpns(struct rp_plan *pl);
void rp_plan_baselines(struct rp_plan *pl, int *grp, int gmax);
unsigned int rp_plan_max_load(const struct rp_plan *pl, int mode, int *upl,
			      int *dnl);

#endif /* ROCEPATH_PLAN_MODEL_H */
