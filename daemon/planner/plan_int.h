/* SPDX-License-Identifier: GPL-2.0 */
/* Planner internals shared by the planner's .c files and its unit tests. */
#ifndef ROCEPATH_PLAN_INT_H
#define ROCEPATH_PLAN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"
#include "plan_hash.h"

enum rp_tier { RP_TIER_LEAF, RP_TIER_SPINE, RP_TIER_SUPER };

struct rp_switch {
	char *name;
	enum rp_tier tier;
	int tidx;			/* index among its tier's switches */
	int pod;			/* index in t->pods, -1: none */
	int plane;			/* index in t->planes, -1: none */
	struct rp_hash_model hash;
	int naddrs;			/* "addresses": ICMP errors come from these */
	struct rp_addr *addrs;
};

/* A switch address, for naming the switch an ICMP error comes from. */
struct rp_swaddr {
	struct rp_addr addr;
	int sw;				/* switch index */
};

/* A leaf-spine link, normalised so that the leaf is the "a" end. */
struct rp_link {
	int leaf, spine;		/* leaf / spine index (not switch index) */
	int leaf_port, spine_port;
	bool up;
};

/* A spine-superspine link, normalised so that the spine is the "a" end. */
struct rp_ulink {
	int spine, super;		/* spine / superspine index */
	int spine_port, super_port;
	bool up;
};

struct rp_nic {
	int host;			/* host index */
	int rail;
	char *netdev;
	char ip[48];			/* canonical text form */
	struct rp_addr addr;
	int leaf;			/* leaf index */
};

struct rp_host {
	char *name;
	int nic0, nnics;		/* nics[nic0 ..], sorted by rail */
};

struct rp_topo {
	int nsw;
	struct rp_switch *sw;		/* sorted by name */
	int nleaves, nspines;
	int *leaf_sw, *spine_sw;	/* tier index -> switch index */
	int nlinks;
	struct rp_link *links;		/* sorted (leaf, leaf_port) */
	/* three tiers: superspines and their links (0 and NULL without) */
	int nsupers;
	int *super_sw;			/* superspine index -> switch index */
	int nulinks;
	struct rp_ulink *ulinks;	/* sorted (spine, spine_port) */
	/* pod and plane names, sorted (0 and NULL when the file has none) */
	int npods;
	char **pods;
	int nplanes;
	char **planes;
	int nhosts;
	struct rp_host *hosts;		/* sorted by name */
	int nnics;
	struct rp_nic *nics;		/* by (host, rail) */
	int nswaddrs;
	struct rp_swaddr *swaddrs;	/* every switch address, sorted */
	bool measured;			/* some switch hash is "measured" */
	uint64_t digest;		/* FNV-1a 64 of the file's bytes */
};

enum rp_pattern { RP_PAT_RING, RP_PAT_ALLTOALL };

struct rp_job {
	char *id;
	enum rp_pattern pattern;
	int qps;
	int nrails, *rails;		/* ascending */
	int nhosts, *hosts;		/* host indices, in the listed order */
};

struct rp_place {
	int njobs;
	struct rp_job *jobs;		/* sorted by id */
};

/* Topology helpers */
/* Switch index of an address in some switch's "addresses", else -1. */
int rp_topo_find_swaddr(const struct rp_topo *t, const struct rp_addr *a);
/* NIC index of an address, else -1. */
int rp_topo_find_nic_addr(const struct rp_topo *t, const struct rp_addr *a);
/*
 * Parses IPv4/IPv6 text, zero-filled past the address; canon (may be NULL)
 * gets the canonical form. IPv4-mapped IPv6 stays IPv6 (see plan_topo.c).
 */
int rp_topo_addr_parse(const char *s, struct rp_addr *a, char *canon,
		       size_t len);
int rp_topo_find_host(const struct rp_topo *t, const char *name);
int rp_topo_host_nic(const struct rp_topo *t, int host, int rail);
static inline const char *rp_leaf_name(const struct rp_topo *t, int leaf)
{
	return t->sw[t->leaf_sw[leaf]].name;
}
static inline const char *rp_spine_name(const struct rp_topo *t, int spine)
{
	return t->sw[t->spine_sw[spine]].name;
}
static inline const char *rp_super_name(const struct rp_topo *t, int super)
{
	return t->sw[t->super_sw[super]].name;
}
/* Pod of a leaf or spine (-1 without pods). */
static inline int rp_leaf_pod(const struct rp_topo *t, int leaf)
{
	return t->sw[t->leaf_sw[leaf]].pod;
}
static inline int rp_spine_pod(const struct rp_topo *t, int spine)
{
	return t->sw[t->spine_sw[spine]].pod;
}
/* Directed link loads are indexed links first, then ulinks. */
static inline int rp_topo_nload(const struct rp_topo *t)
{
	return t->nlinks + t->nulinks;
}

void rp_err_set(struct rp_err *err, const char *file, const char *path,
		int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* qsort comparators: ints ascending, jobs by id (plan_place.c) */
int rp_cmp_int(const void *a, const void *b);
int rp_job_cmp(const void *a, const void *b);

/* Reads a whole file; -errno. */
int rp_read_file(const char *path, char **text, size_t *len);

#endif /* ROCEPATH_PLAN_INT_H */
