/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus text exposition format (version 0.0.4), as node_exporter's
 * textfile collector reads it: one "# HELP" and "# TYPE" line per metric
 * family, then its samples, each family exactly once. Names and label
 * names are checked against the format's grammar and label values and
 * help texts are escaped, so nothing a device or a file names can break
 * the output. No timestamps: the textfile collector rejects them.
 *
 * Errors are sticky: the first one (-EINVAL for a bad name, -EEXIST for a
 * family written twice, -errno of the stream) is kept and returned by
 * rp_prom_end(); later calls do nothing.
 */
#ifndef ROCEPATH_PROM_H
#define ROCEPATH_PROM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RP_PROM_FAMILIES_MAX 128

enum rp_prom_type { RP_PROM_COUNTER, RP_PROM_GAUGE };

struct rp_prom_label {
	const char *name;
	const char *value;
};

struct rp_prom {
	FILE *fp;
	int err;
	size_t nfam;
	char fam[RP_PROM_FAMILIES_MAX][96];
};

void rp_prom_begin(struct rp_prom *p, FILE *fp);
/* 0, or the first error of the whole document. */
int rp_prom_end(struct rp_prom *p);

/*
 * Starts a family. Counter names must end in "_total" (the convention the
 * format's tools check). Samples then belong to it until the next call.
 */
void rp_prom_family(struct rp_prom *p, const char *name, enum rp_prom_type t,
		    const char *help);
/* One sample of the current family; nlabels may be 0 (labels NULL). */
void rp_prom_u64(struct rp_prom *p, const struct rp_prom_label *labels,
		 size_t nlabels, uint64_t v);
void rp_prom_f64(struct rp_prom *p, const struct rp_prom_label *labels,
		 size_t nlabels, double v);

/* Grammar checks, exported for tests. */
bool rp_prom_name_ok(const char *name);
bool rp_prom_label_name_ok(const char *name);
/* Writes @s escaped as a label value (\\, \", \n) or help (\\, \n). */
void rp_prom_escape(FILE *fp, const char *s, bool label);

#endif /* ROCEPATH_PROM_H */
