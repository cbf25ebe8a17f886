/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepathd's Prometheus metrics, written for node_exporter's textfile
 * collector (Documentation/metrics.rst): every interval the daemon dumps
 * the module's flows, pins, DCQCN parameters and statistics, adds its own
 * plan and reload state, and replaces the file atomically (temp file in
 * the same directory, then rename), so a scrape never sees half a file.
 *
 * Label cardinality is bounded by the module: one flow series set per
 * flow (at most the module's max_flows), one rule series set per pin rule
 * (at most max_rules), one DCQCN series per device and parameter.
 */
#ifndef ROCEPATHD_METRICS_H
#define ROCEPATHD_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "objs.h"
#include "plan.h"

struct rp_nl;
struct rpd_config;
struct rpd_reconciler;

/* What one file holds; render() is a pure function of it. */
struct rpd_metrics_data {
	bool module;			/* the dumps below are valid */
	struct rp_pins pins;
	struct rp_flows flows;
	struct rp_dcqcns dcqcns;
	struct rp_stats stats;
	bool have_plan;			/* plan and planned_pins valid */
	struct rp_plan_summary plan;
	struct rpd_plan_info info;	/* its digests */
	uint64_t planned_pins;
	uint64_t plan_generation;	/* plans that changed this host's pins */
	uint32_t pin_generation;	/* rule set generation rocepathd installed */
	bool plan_ok;			/* the last plan attempt succeeded */
	bool reload_ok;			/* the last SIGHUP reload succeeded */
	uint64_t plans_ok, plans_failed;
	uint64_t reloads_ok, reloads_failed;
};

/* Daemon-side state kept between writes. */
struct rpd_metrics {
	int64_t next_ms;		/* next write (monotonic ms), 0: now */
	bool plan_ok, reload_ok;
	uint64_t plan_generation;
	uint64_t reloads_ok, reloads_failed;
	bool dir_missing_logged;
	bool write_failed_logged;
	char (*over)[128];		/* rules with more live QPs than ports */
	size_t nover;
};

void rpd_metrics_init(struct rpd_metrics *m);
void rpd_metrics_free(struct rpd_metrics *m);
/* rpd_rec_replan()'s result: < 0 failed, 1 the host's pins changed. */
void rpd_metrics_note_plan(struct rpd_metrics *m, int ret);
void rpd_metrics_note_reload(struct rpd_metrics *m, bool ok);

/*
 * Writes the document for @d to @fp. Returns 0 or -errno (-EINVAL would
 * be a bug: a name outside the format's grammar).
 */
int rpd_metrics_render(FILE *fp, const struct rpd_metrics_data *d);

/*
 * Writes @d to @path atomically: a temp file ".<name>.XXXXXX" in the same
 * directory (node_exporter reads only *.prom), mode 0644, renamed over
 * @path. On failure @path is untouched and the temp file removed.
 */
int rpd_metrics_write_file(const char *path, const struct rpd_metrics_data *d);

/*
 * Path sets (rules without rqpn/lqpn) whose live QPs outnumber their
 * ports: each new one is logged as a warning (NCCL opening more QPs per
 * connection than the placement's qps_per_connection), each that recovers
 * as info. Returns the number of new warnings.
 */
int rpd_metrics_check_qps(struct rpd_metrics *m, const struct rp_pins *pins);

/*
 * The periodic step: dumps pins (QP check), and when @path is set also
 * the flows, DCQCN parameters and statistics, and writes the file.
 * @nl NULL: the module is absent (daemon metrics only). @info NULL: no
 * good plan yet.
 */
int rpd_metrics_tick(struct rpd_metrics *m, const char *path, struct rp_nl *nl,
		     const struct rpd_reconciler *r,
		     const struct rpd_plan_info *info);

#endif
