/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The planner's working model: flows, leaf pairs, leaf-spine and
 * spine-superspine bundles and the plan that owns them, shared by the
 * planner's steps (plan_model.c builds it, plan_colour.c computes the bound
 * and assigns spines on two tiers, plan_route.c assigns routes on three,
 * plan_ports.c picks ports, plan_eval.c derives the baselines and loads,
 * plan_out.c prints it).
 *
 * Link loads are indexed in one space: t->links first (up = leaf to spine,
 * down = spine to leaf), then t->ulinks at t->nlinks + k (up = spine to
 * superspine, down = superspine to spine); rp_topo_nload() entries.
 */
#ifndef ROCEPATH_PLAN_MODEL_H
#define ROCEPATH_PLAN_MODEL_H

#include "plan_int.h"
#include "plan_lsys.h"

struct rp_route;


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
	bool missed;		/* no port hashes onto the planned links */
};

/*
 * The superspine hop of a flow (pl->f3, NULL without superspines). A flow
 * between pods goes leaf, spine, superspine, spine2, leaf; within a pod
 * super is -1 and spine2 the flow's spine. Link indices are t->ulinks'.
 */
struct flow3 {
	int super, spine2;	/* planned */
	int uu, ud;		/* planned spine->super, super->spine2 links */
	int e_uu, e_ud;		/* ECMP baseline */
	int s_uu, s_ud;		/* destination slice */
};

struct pair {
	int src, dst;		/* leaves */
	int d;			/* demand (flows) */
	int f0, nf;		/* into plan->order */
	int c0, nc;		/* common spines: plan->cs/x[c0 .. c0+nc) */
	/*
	 * Between pods: c0/nc are the first-hop spines (a route to dst
	 * through a superspine), k0/nk the last-hop spines, in plan->cs too;
	 * within a pod k0 == c0 and nk == nc.
	 */
	int k0, nk;
	bool xpod;		/* src and dst in different pods */
};

struct bundle {
	int leaf, spine, n;	/* n up links */
	int l0;			/* plan->blinks[l0..l0+n): by leaf port */
	int s0;			/* plan->blinks[s0..s0+n): by spine port */
};

/* Parallel spine-superspine links (three tiers). */
struct ubundle {
	int spine, super, n;	/* n up links */
	int l0;			/* plan->ublinks[l0..l0+n): by spine port */
	int s0;			/* plan->ublinks[s0..s0+n): by superspine port */
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
	int *leaf_s0, *leaf_sp;	/* per leaf: its spines (a bundle), by index */

	int *nic_slot;		/* index of the NIC among its leaf's NICs */

	/* three tiers (all NULL / 0 without superspines) */
	struct flow3 *f3;
	int nubundles;
	struct ubundle *ubundles;	/* sorted (spine, super) */
	int *ubidx;		/* [spine * nsupers + super] -> ubundle or -1 */
	int *ublinks;
	int *spine_ub0;		/* per spine: its ubundles (nspines + 1) */
	int *super_ub0;		/* per superspine: super_ubl[..] (nsupers + 1) */
	int *super_ubl;		/* ubundle indices by (super, spine) */
	int *spine_u0;		/* per spine: first ulink in t->ulinks (+1) */
	int *super_u0;		/* per superspine: super_ul[..] (nsupers + 1) */
	int *super_ul;		/* ulink indices by (super, super_port) */
	/*
	 * the same by (super, the spine's pod, super_port); (super, pod)'s
	 * at super_pl[super_pp0[super * npods + pod] ..]; NULL: not built
	 */
	int *super_pl, *super_pp0;
	uint8_t *ureach;	/* [leaf * nsupers + super]: an up path down */
	struct rp_route *route;	/* route assignment state (plan_route.c) */
	struct rp_walker *walker;	/* port walks (plan.c owns it) */

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

static inline int ubcount(const struct rp_plan *pl, int spine, int super)
{
	int b = pl->ubidx[(size_t)spine * pl->t->nsupers + super];

	return b < 0 ? 0 : pl->ubundles[b].n;
}

/* Whether superspine u has an up path down to leaf (three tiers). */
static inline bool ureaches(const struct rp_plan *pl, int u, int leaf)
{
	return pl->ureach[(size_t)leaf * pl->t->nsupers + u];
}

/* Whether a spine of another pod than leaf's has an up path to leaf. */
bool rp_plan_spine_reaches(const struct rp_plan *pl, int spine, int leaf);

/* Whether the leaves are in different pods (their flows cross superspines). */
static inline bool xpod(const struct rp_topo *t, int a, int b)
{
	return rp_leaf_pod(t, a) != rp_leaf_pod(t, b);
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
/* Three tiers: superspine bundles, reachability, flow3. */
int rp_plan_make_upper(struct rp_plan *pl);
/*
 * order[0..npairs): pl->pairs indices in the order a greedy pass takes
 * them. Attempt 0: most constrained first (with xpod_first, pairs between
 * pods before the rest; then fewest common spines, then largest demand);
 * later attempts: a deterministic pseudo-random order, the same on every
 * host.
 */
void rp_plan_pair_order(const struct rp_plan *pl, int *order, int attempt,
			bool xpod_first);

/*
 * plan_route.c: three tiers, every flow a route within T (-EAGAIN). Its
 * state (pl->route) is freed by the caller with rp_plan_route_free(), not
 * by rp_plan_free(): the model is the bottom layer and calls no step.
 */
int rp_plan_route_assign(struct rp_plan *pl, int T, int attempt);
void rp_plan_route_free(struct rp_plan *pl);

/* plan_colour.c: the bound, and a spine colouring within T (-EAGAIN). */
int rp_plan_lower_bound(struct rp_plan *pl);
/* attempt -1: units first on the spines pl->prefer names (stable re-plans) */
int rp_plan_colour(struct rp_plan *pl, int T, int attempt);

/* plan_ports.c: ECMP groups toward a destination leaf (see planner.rst) */
int rp_plan_leaf_group(const struct rp_plan *pl, int leaf, int dst, int *grp,
		       int max);
/* a spine's up links (t->ulinks) toward a leaf of another pod */
int rp_plan_spine_group(const struct rp_plan *pl, int spine, int dst,
			int *grp, int max);
/* a superspine's links down (t->ulinks) toward dst's spines */
int rp_plan_super_group(const struct rp_plan *pl, int super, int dst,
			int *grp, int max);
struct rp_port_memo;
int rp_plan_route_pair(struct rp_plan *pl, int pi, int *upl, int *dnl,
		       int *grp, int gmax, uint16_t *used,
		       struct rp_port_memo *pm);

/*
 * One hashing switch on a flow's path: the member it must pick in its
 * group of n. The first hop (the source leaf) is always checked, since a
 * measured table may lack the port; later hops only with a choice.
 */
struct hop {
	int want, n;
	bool check;
	struct rp_hash_ctx c;
	int sw, src_nic, dst_nic;	/* plan_ports.c: what c is for */
	struct lhop_memo rows;		/* plan_ports.c: c's equations */
};

/*
 * What rp_plan_route_pair() keeps from flow to flow, pair to pair: each
 * hop's context and equations, and the port search's reduced system.
 */
struct rp_port_memo {
	struct hop h[4];
	struct lsys_memo sys;
};
void rp_port_memo_init(struct rp_port_memo *pm);

/* plan_probe_plan.c: port of f (through a measured leaf) or -1 with
 * *status set; used[nrsv..nused) as in rp_plan_route_pair(). */
int rp_plan_probed_port(const struct rp_plan *pl, const struct flow *f,
			const struct flow *q, const uint16_t *used, int nused,
			int nrsv, struct hop *rest, int nrest, uint8_t *status);

/* Whether port is among the n ports a connection's flows already took. */
static inline bool rp_port_taken(const uint16_t *used, int n, uint16_t port)
{
	for (int i = 0; i < n; i++)
		if (used[i] == port)
			return true;
	return false;
}

/* plan_stable.c: prev_of and prefer from pl->prev. -errno. */
int rp_plan_match_prev(struct rp_plan *pl);
/* The flow's previous self, or NULL. */
static inline const struct flow *prev_flow(const struct rp_plan *pl, int i)
{
	return pl->prev_of && pl->prev_of[i] >= 0 ?
	       &pl->prev->flows[pl->prev_of[i]] : NULL;
}

/* A flow's directed links in the load space (rp_topo_nload()); count. */
static inline int rp_plan_flow_links(const struct rp_plan *pl, int fi, int mode, int *up,
		       int *dn)
{
	const struct flow *f = &pl->flows[fi];
	const struct flow3 *g = pl->f3 ? &pl->f3[fi] : NULL;
	int n = 0, nl = pl->t->nlinks;

	up[0] = mode == RP_MODE_PLAN ? f->up :
		mode == RP_MODE_ECMP ? f->e_up : f->s_up;
	dn[0] = mode == RP_MODE_PLAN ? f->dn :
		mode == RP_MODE_ECMP ? f->e_dn : f->s_dn;
	if (up[0] < 0)
		return 0;
	n = 1;
	if (g) {
		int uu = mode == RP_MODE_PLAN ? g->uu :
			 mode == RP_MODE_ECMP ? g->e_uu : g->s_uu;
		int ud = mode == RP_MODE_PLAN ? g->ud :
			 mode == RP_MODE_ECMP ? g->e_ud : g->s_ud;

		if (uu >= 0) {
			up[1] = nl + uu;
			dn[1] = nl + ud;
			n = 2;
		}
	}
	return n;
}

/* plan_reach.c: where a flow's source port really goes, hop by hop. */
#define RP_SPORT_COUNT	16384	/* ports RP_SPORT_MIN.. a plan chooses from */

/* A path in link indices (uu/ud t->ulinks, -1 within a pod) and a port. */
struct rp_path {
	int up, uu, ud, dn;
	int port;		/* the first port (in scan order) onto it */
	int nports;		/* rp_walk_paths(): free ports onto it */
};

struct rp_walker;
int rp_walker_new(const struct rp_plan *pl, struct rp_walker **out);
void rp_walker_free(struct rp_walker *w);
/* Aims the walker at flow fi, which must be routed (pair_routed()). */
void rp_walker_flow(struct rp_walker *w, int fi);
/* The path port takes (the hashes of every hop); -1 if a hop has none. */
int rp_walk_port(struct rp_walker *w, uint16_t port, struct rp_path *out);
/*
 * Every distinct path some port not in used[] takes, ports scanned from
 * RP_SPORT_MIN + p0 on; *out is the walker's until its next call.
 */
int rp_walk_paths(struct rp_walker *w, uint32_t p0, const uint16_t *used,
		  int nused, const struct rp_path **out);

/* A path's busiest directed link in the loads upl/dnl (load space). */
long rp_path_load(const struct rp_plan *pl, const int *upl, const int *dnl,
		  const struct rp_path *x);
/*
 * The least busiest-link load over every path some port of the aimed flow
 * takes, solved instead of walked (linear hashes, power-of-two groups):
 * 0 and *least, or -1 when a hop cannot be solved or no port goes
 * anywhere. The paths are kept while the aim stays.
 */
int rp_walk_least(struct rp_walker *w, const int *upl, const int *dnl,
		  long *least);
/* The same when the loads have only grown since the last call on the aim. */
int rp_walk_least_grown(struct rp_walker *w, const int *upl, const int *dnl,
			long *least);
/* Whether the aim's paths are solved already (rp_walk_least() is cheap). */
bool rp_walk_solved(const struct rp_walker *w);
/*
 * Calls fn on every port (with its path) onto a solved path of the aimed
 * flow whose busiest link is at most lim: 0, or -1 without calling when a
 * hop cannot be solved or there are more than max such ports.
 */
typedef void (*rp_walk_fn)(void *arg, const struct rp_path *p);
int rp_walk_within(struct rp_walker *w, const int *upl, const int *dnl,
		   long lim, long max, rp_walk_fn fn, void *arg);

/*
 * Calls fn on every path the ECMP groups allow the flow, whatever the
 * port, until it returns non-zero; returns that.
 */
int rp_walk_routes(struct rp_walker *w,
		   int (*fn)(void *arg, const struct rp_path *p), void *arg);

/*
 * plan_repair.c: moves placed flows onto other paths their ports reach
 * while that lowers the busiest links (ejection chains), then checks the
 * flows left on the busiest links port by port for the summary.
 */
#define RP_REPAIR_DEPTH	3	/* further moves of one ejection chain */

struct rp_repair_stats {
	unsigned int moved;	/* flows that changed path */
	unsigned int checked;	/* flows on the busiest links checked */
	unsigned int blocked;	/* of those: a path with room, no port onto it */
	unsigned int full;	/* no path with room at all, port or not */
	bool complete;		/* every flow on the busiest links checked */
};
int rp_plan_repair(struct rp_plan *pl, int *upl, int *dnl, int lb,
		   struct rp_repair_stats *st);

/* plan_eval.c */
int rp_plan_assign_qpns(struct rp_plan *pl);
int rp_plan_baselines(struct rp_plan *pl, int *grp, int gmax);
unsigned int rp_plan_max_load(const struct rp_plan *pl, int mode, int *upl,
			      int *dnl);

#endif /* ROCEPATH_PLAN_MODEL_H */
