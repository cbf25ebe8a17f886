/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath route planner: cluster files in, a balanced, switch-hash-aware
 * UDP source port plan out.
 *
 * The plan is a pure function of the topology and placement files: the same
 * files, with their elements in any order, give a byte-identical plan on
 * every host (everything is sorted canonically after parsing).
 *
 * All functions return 0 or -errno. Loaders fill *err (when not NULL) with
 * the file, the JSON path of the offending element, the reason and, for
 * malformed JSON, the line and column; rp_err_str() formats it as
 *   topology.json: .links[3].b: unknown switch "spine9"
 *   topology.json:12:7: malformed JSON: unexpected character
 *
 * Typical use (rocepathd, rocepath plan):
 *	struct rp_topo *t; struct rp_place *p; struct rp_plan *plan;
 *	struct rp_err err;
 *	if (rp_topo_load(tpath, &t, &err) ||
 *	    rp_place_load(ppath, t, &p, &err) ||
 *	    rp_plan_compute(t, p, &plan, &err))
 *		fprintf(stderr, "%s\n", rp_err_str(&err, buf, sizeof(buf)));
 *	rp_plan_host_pins(plan, "host0", &pins);  // struct rp_pins (objs.h)
 *	... rp_pins_free(&pins);
 *	rp_plan_free(plan); rp_place_free(p); rp_topo_free(t);  // this order
 */
#ifndef ROCEPATH_PLAN_H
#define ROCEPATH_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;
struct rp_pins;
struct rp_topo;
struct rp_place;
struct rp_plan;

/* Planned UDP source ports are taken from this range (RoCEv2 convention). */
#define RP_SPORT_MIN	49152
#define RP_SPORT_MAX	65535
#define RP_ROCE_DPORT	4791
/* ECMP baseline: first QPN an rxe device hands out after the GSI QP. */
#define RP_QPN_FIRST	17

struct rp_err {
	char file[256];		/* file name as given ("" if none) */
	char path[256];		/* JSON path, e.g. ".links[3].b" ("" if none) */
	char msg[512];		/* reason, lowercase, no full stop */
	int line, col;		/* 1-based, malformed JSON only (else 0) */
};

/* Formats err into buf ("file: path: reason"); returns buf. */
const char *rp_err_str(const struct rp_err *err, char *buf, size_t len);

/* Topology (Documentation/planner.rst, "Inputs and flows"). name is used in errors. */
int rp_topo_load(const char *path, struct rp_topo **out, struct rp_err *err);
int rp_topo_parse(const char *name, const char *text, size_t len,
		  struct rp_topo **out, struct rp_err *err);
void rp_topo_free(struct rp_topo *t);
/* 0 when the topology has a host of that name, else -ENOENT. */
int rp_topo_has_host(const struct rp_topo *t, const char *host);

/* Placement, validated against a topology (hosts, rails). */
int rp_place_load(const char *path, const struct rp_topo *t,
		  struct rp_place **out, struct rp_err *err);
int rp_place_parse(const char *name, const char *text, size_t len,
		   const struct rp_topo *t, struct rp_place **out,
		   struct rp_err *err);
void rp_place_free(struct rp_place *p);

/*
 * Computes the plan. Flows that cannot be placed (no path, no port that
 * hashes onto the assigned link) are kept in the plan's "unplaced" list with
 * a reason; they are never dropped silently. The plan refers to t and p:
 * free it before them. (rp_plan_from_files() plans own their t and p.)
 */
int rp_plan_compute(const struct rp_topo *t, const struct rp_place *p,
		    struct rp_plan **out, struct rp_err *err);
/*
 * A stable re-plan: as rp_plan_compute(), and where the plan leaves a
 * choice (spine, link, port), flows that prev also has (same job id, NICs
 * and QP index) keep prev's. The bound and the max link load are those of
 * rp_plan_compute(); prev must have been computed on the same t (else
 * -EINVAL) and may be freed once this returns. NULL prev: rp_plan_compute().
 */
int rp_plan_compute_stable(const struct rp_topo *t, const struct rp_place *p,
			   const struct rp_plan *prev, struct rp_plan **out,
			   struct rp_err *err);
/* Convenience: load both files and compute. */
int rp_plan_from_files(const char *topo_path, const char *place_path,
		       struct rp_plan **out, struct rp_err *err);
/*
 * Convenience for a stable re-plan: prev_path (NULL: none) is the placement
 * the running plan was computed from, planned first on the same topology.
 */
int rp_plan_from_files_stable(const char *topo_path, const char *place_path,
			      const char *prev_path, struct rp_plan **out,
			      struct rp_err *err);
void rp_plan_free(struct rp_plan *plan);

struct rp_plan_summary {
	unsigned int flows;		/* placed flows */
	unsigned int unplaced;		/* flows in "unplaced" */
	unsigned int max_link_flows;	/* most loaded directed fabric link */
	unsigned int lower_bound;	/* no plan can do better than this */
	/* Same flows with default QPN-derived ports (see planner.rst). */
	unsigned int ecmp_max_link_flows;
	/* Same flows with destination-slice pinning (Meta-style). */
	unsigned int slice_max_link_flows;
	/*
	 * max_link_flows - lower_bound, never clamped (negative when unplaced
	 * flows are not counted), and why it is not 0 (planner.rst)
	 */
	int bound_gap;
	char bound_gap_reason[512];
};
const struct rp_plan_summary *rp_plan_summary(const struct rp_plan *plan);
/*
 * FNV-1a 64 (digest.h) of every flow's identity and what the plan decided
 * for it (spine, links, port): equal on every host that planned the same
 * files with the same rocepath (plan_digest.c).
 */
uint64_t rp_plan_digest(const struct rp_plan *plan);

/*
 * The plan object of Documentation/planner.rst ("Output"). With host
 * set, only that host's flows (as sender) are listed; links and summary stay
 * fabric-wide. -ENOENT when host is not in the topology.
 */
int rp_plan_to_json(const struct rp_plan *plan, const char *host,
		    struct json_object **out);

enum rp_plan_format {
	RP_PLAN_TEXT,		/* `rocepath plan`: summary line, one per flow */
	RP_PLAN_JSON,		/* `-j`: the plan object on one line */
	RP_PLAN_JSON_PRETTY,	/* `-j -p`: indented by two spaces */
};

/*
 * Writes the plan (host as in rp_plan_to_json()) to out as a stream, ending
 * with a newline; the JSON is byte-identical to json-c's printing of
 * rp_plan_to_json() (plain, or pretty + spaced), without its memory.
 * -ENOENT for an unknown host, -EIO when writing fails.
 */
int rp_plan_write(const struct rp_plan *plan, const char *host,
		  enum rp_plan_format fmt, FILE *out);

/*
 * The host's pins, appended to *pins (empty or zeroed; emptied on error):
 * one rule per remote address the host sends to, any device, no QPNs,
 * sorted by remote address (IPv4 before IPv6, then by address bytes);
 * sports ascending and distinct (qps_per_connection per connection).
 * Nothing when the host sends nothing. -ENOENT when host is not in the
 * topology. JSON (`rocepath pin replace file` form): rp_pins_to_json().
 */
int rp_plan_host_pins(const struct rp_plan *plan, const char *host,
		      struct rp_pins *pins);

/* Lower level, for benchmarks and tests ---------------------------------- */

/*
 * Flows placed in both plans (same job id, NICs and QP index; both plans on
 * one topology, else -EINVAL) and how many of them kept their port.
 */
int rp_plan_stability(const struct rp_plan *before, const struct rp_plan *after,
		      unsigned int *common, unsigned int *same_port);

/* One directed-link load set for a way of choosing ports/paths. */
enum rp_plan_mode {
	RP_MODE_PLAN,	/* the computed plan */
	RP_MODE_ECMP,	/* default QPN-derived ports through the hash models */
	RP_MODE_SLICE,	/* destination-slice pinning */
};

#endif /* ROCEPATH_PLAN_H */
