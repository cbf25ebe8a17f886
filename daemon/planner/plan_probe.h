/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Path probing (Documentation/fabric.rst, "Probing"): the answers of
 * TTL-limited UDP probes, which switch after the sender's leaf a source
 * port reaches, for switches whose topology hash is "measured".
 *
 * The spine assignment never depends on these: every host computes the
 * same one from the two files. A host realises its own flows through a
 * measured leaf with ports it has probed onto the assigned spine.
 *
 * Probe file (rocepath probe ... out FILE, rocepathd's cache, `plan
 * ... probes FILE`):
 *   {"topology": "fnv1a64:<16 hex digits of the topology file's bytes>",
 *    "ttl": 2,
 *    "probes": [{"src_ip": "192.0.2.1", "dst_ip": "192.0.2.3",
 *                "sport": 49152, "switch": "spine2"}, ...]}
 * Only answered probes are listed. Answers taken on another topology file
 * are refused (-ESTALE): any change to it (a link marked down) re-probes.
 */
#ifndef ROCEPATH_PLAN_PROBE_H
#define ROCEPATH_PLAN_PROBE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "plan_hash.h"

struct json_object;

struct rp_probe {
	struct rp_addr src, dst;
	uint16_t sport;
	int sw;			/* switch index (rp_topo_switch_name()) */
};

struct rp_probes {
	uint64_t digest;	/* topology file the answers were taken on */
	unsigned int ttl;
	size_t n, cap;
	struct rp_probe *v;	/* sorted by (src, dst, sport), distinct */
};

/* Adds or replaces the answer for (src, dst, sport); -ENOMEM. */
int rp_probes_add(struct rp_probes *ps, const struct rp_probe *p);
/* The answer for (src, dst, sport), or NULL. */
const struct rp_probe *rp_probes_find(const struct rp_probes *ps,
				      const struct rp_addr *src,
				      const struct rp_addr *dst,
				      uint16_t sport);
/* First answer for (src, dst) in *first; how many there are (by sport). */
size_t rp_probes_range(const struct rp_probes *ps, const struct rp_addr *src,
		       const struct rp_addr *dst, size_t *first);
/* Drops every answer sent from src; how many it dropped. */
size_t rp_probes_forget_src(struct rp_probes *ps, const struct rp_addr *src);
/*
 * Drops the answers sent from host's NICs on netdev, and from its NICs
 * the topology names no netdev for (they may be on it): a link that came
 * up again may reach the fabric through other switch ports. *nics (may be
 * NULL) gets how many NICs that was; returns the answers dropped.
 */
size_t rp_probes_forget_link(const struct rp_topo *t, const char *host,
			     const char *netdev, struct rp_probes *ps,
			     unsigned int *nics);
/* Drops the answers of the pair src -> dst; returns how many. */
size_t rp_probes_forget_pair(struct rp_probes *ps, const struct rp_addr *src,
			     const struct rp_addr *dst);
/* Moves src's answers into dst (answers of both: src's win); src emptied. */
int rp_probes_merge(struct rp_probes *dst, struct rp_probes *src);
void rp_probes_free(struct rp_probes *ps);

/*
 * Parses a probe file for topology t: addresses must be NICs of t, switches
 * switches of t; -ESTALE (with the reason in err) when the digest is not
 * t's. out is zeroed first and freed on error.
 */
int rp_probes_parse(const struct rp_topo *t, const char *name,
		    const char *text, size_t len, struct rp_probes *out,
		    struct rp_err *err);
int rp_probes_load(const struct rp_topo *t, const char *path,
		   struct rp_probes *out, struct rp_err *err);
struct json_object *rp_probes_to_json(const struct rp_topo *t,
				      const struct rp_probes *ps);
/* FNV-1a 64 of the answers (plan_digest.c); a NULL or empty set has one too. */
uint64_t rp_probes_digest(const struct rp_probes *ps);
/* Writes the file atomically (temporary file, then rename); -errno. */
int rp_probes_save(const struct rp_topo *t, const struct rp_probes *ps,
		   const char *path);

/* Topology queries the prober needs ---------------------------------- */
uint64_t rp_topo_digest(const struct rp_topo *t);
/* true when some switch's hash is "measured" */
bool rp_topo_measured(const struct rp_topo *t);
const char *rp_topo_switch_name(const struct rp_topo *t, int sw);
int rp_topo_nswitches(const struct rp_topo *t);
/* The switch that lists address a in "addresses", or -1. */
int rp_topo_switch_of(const struct rp_topo *t, const struct rp_addr *a);
/* 0 when a is a NIC address of t (of host when host is not NULL). */
int rp_topo_check_nic(const struct rp_topo *t, const struct rp_addr *a,
		      const char *host);

/*
 * What a host must probe: one entry per (source NIC, destination NIC) of
 * its flows whose first hop after the leaf is chosen by a measured hash,
 * with how many distinct ports it needs onto each switch (want[], indexed
 * by switch) for the plan's assignment.
 */
struct rp_probe_pair {
	struct rp_addr src, dst;
	char src_ip[48], dst_ip[48];
	char netdev[32];		/* the source NIC's */
	int rail;			/* the source NIC's */
	unsigned int nflows;
	unsigned int *want;		/* [rp_topo_nswitches()] */
	/*
	 * [rp_topo_nswitches()]: 1 for the switches an answer may come
	 * from, the spines the source's leaf has an up link to. NULL: any.
	 */
	unsigned char *expect;
};

/*
 * The pairs of host's flows in plan (computed without probes); *pairs is
 * an array of *n, free with rp_probe_pairs_free(). -ENOENT: unknown host.
 */
int rp_plan_probe_pairs(const struct rp_plan *plan, const char *host,
			struct rp_probe_pair **pairs, size_t *n);
void rp_probe_pairs_free(struct rp_probe_pair *pairs, size_t n);

/*
 * The plan with probe answers (NULL: as rp_plan_compute_stable()). ps must
 * outlive the plan. Flows through a measured leaf get the lowest probed
 * port (not used by another flow of the pair) whose answer is the assigned
 * spine; without answers from their sender they keep their assigned path
 * (counted in the link loads) and no port.
 */
int rp_plan_compute_probed(const struct rp_topo *t, const struct rp_place *p,
			   const struct rp_plan *prev,
			   const struct rp_probes *ps, struct rp_plan **out,
			   struct rp_err *err);
/*
 * rp_plan_from_files_stable() with nprobes probe files merged (the plan
 * owns them).
 */
int rp_plan_from_files_probed(const char *topo_path, const char *place_path,
			      const char *prev_path,
			      const char *const *probe_paths, size_t nprobes,
			      struct rp_plan **out, struct rp_err *err);

/* The port walk (plan_probe_walk.c) --------------------------------------- */

struct rp_probe_opts {
	unsigned int ttl;		/* hops to the spine: 2 in two tiers */
	unsigned int tries;		/* sends per port before giving up */
	unsigned int timeout_ms;	/* wait for an answer per send */
	unsigned int rate_pps;		/* probe packets per second, at most */
	unsigned int max_ports;		/* per pair; 0: 8 per flow, >= 16 */
	/*
	 * Set by another thread to end the walk early (-ECANCELED): the
	 * daemon probes beside its event loop. NULL: the walk runs whole.
	 */
	const atomic_bool *cancel;
};
/* The flag c (may be NULL) is set: probing stops. */
static inline bool rp_cancel_set(const atomic_bool *c)
{
	return c && atomic_load(c);
}
/* o->cancel is set: the walk and the waits inside it stop. */
static inline bool rp_probe_cancelled(const struct rp_probe_opts *o)
{
	return rp_cancel_set(o->cancel);
}
#define RP_PROBE_OPTS_DEFAULT { .ttl = 2, .tries = 3, .timeout_ms = 500, \
				.rate_pps = 50, .max_ports = 0 }

/*
 * One port of one pair: *sw the answering switch (index) or -1; returns
 * the packets sent (>= 1), or -EADDRINUSE when a local socket holds the
 * port (it is skipped), or another -errno when probing cannot work at all
 * (the walk stops). why gets the reason of a missing answer or the error.
 */
typedef int (*rp_probe_fn)(void *ctx, const struct rp_probe_pair *pair,
			   uint16_t sport, const struct rp_probe_opts *o,
			   int *sw, char *why, size_t whylen);

struct rp_probe_fail {
	char src_ip[48], dst_ip[48];
	uint16_t sport;
	unsigned int tries;
	char why[96];
};

struct rp_probe_report {
	unsigned int packets;		/* probe packets sent */
	unsigned int ports;		/* ports probed (not from the cache) */
	unsigned int cached;		/* ports answered from the cache */
	unsigned int answered;		/* of ports, answered */
	unsigned int skipped;		/* ports that could not be probed */
	size_t nfails;
	struct rp_probe_fail *fails;	/* unanswered ports, in walk order */
	unsigned int short_pairs;	/* pairs that hit max_ports unsatisfied */
	/*
	 * Fresh answers from a switch the pair does not expect: the fabric
	 * is not what its cached answers were taken on, so they were dropped
	 * (dropped in all) and the pair walked again, once (reprobed pairs).
	 */
	unsigned int unexpected, reprobed;
	size_t dropped;
	char unexpected_first[120];	/* the first: "A -> B sport P" */
	int unexpected_sw;		/* its switch (index) */
	double seconds;
	char error[200];		/* why the walk stopped, if it did */
};
void rp_probe_report_free(struct rp_probe_report *r);
/* r->unexpected said in one line, naming the switch (plan_probe.c). */
void rp_probe_unexpected_fmt(const struct rp_topo *t,
			     const struct rp_probe_report *r, char *buf,
			     size_t len);

/*
 * Walks every pair's ports from RP_SPORT_MIN upward, taking answers from
 * ps (the cache) and probing the others with fn, until each switch has as
 * many answered ports as the pair wants, or max_ports are looked at. New
 * answers are added to ps. A new answer from a switch the pair does not
 * expect drops the pair's answers taken before (from the cache too) and
 * walks the pair again from its first port, once per walk. Unanswered
 * ports are in rep->fails; -errno when memory runs out or fn says probing
 * cannot work (rep->error says why).
 */
int rp_probe_walk(const struct rp_probe_pair *pairs, size_t n, int nsw,
		  const struct rp_probe_opts *o, rp_probe_fn fn, void *ctx,
		  struct rp_probes *ps, struct rp_probe_report *rep);

#endif /* ROCEPATH_PLAN_PROBE_H */
