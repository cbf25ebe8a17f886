/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepathd's status file: what the running daemon plans with, for the
 * operator's tools (`rocepath stats`, `rocepathd --status`) on the host
 * itself. The daemon replaces it atomically after every plan, from the
 * same figures as the rocepath_plan_info metric, so the two agree:
 *
 *   {"pid": 1234, "updated": 1764848000, "plan_valid": true,
 *    "last_plan_ok": true, "pins": 4,
 *    "plan_digest": "fnv1a64:<16 hex digits>", "input_digest": ...,
 *    "topology_digest": ..., "placement_digest": ..., "probes_digest": ...,
 *    "last_error": null | "<why the last plan failed>"}
 *
 * The digests are null until the first good plan. In the library because
 * the daemon writes it and the CLI reads it, as rpd_config.h.
 */
#ifndef ROCEPATH_RPD_STATUS_H
#define ROCEPATH_RPD_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "digest.h"

struct rp_out;

/* systemd's RuntimeDirectory=rocepath */
#define RPD_STATUS_FILE_DEFAULT "/run/rocepath/status.json"

struct rpd_status {
	long pid;
	int64_t updated;		/* unix seconds of the write */
	bool plan_valid;		/* digests and pins are a good plan's */
	bool last_plan_ok;		/* the last plan attempt succeeded */
	uint64_t pins;			/* the plan's for this host */
	/* digests: plan, input, topology, placement, probes */
	uint64_t plan, input, topology, placement, probes;
	char last_error[1024];		/* "" when none */
};

/* Replaces path atomically (temporary file, rename); -errno. */
int rpd_status_write(const char *path, const struct rpd_status *st);
/*
 * Reads path into st; -ENOENT when there is none, -EINVAL when it is not
 * a status file (err says which key), other -errno.
 */
int rpd_status_read(const char *path, struct rpd_status *st, char *err,
		    size_t errlen);
/* Whether st->pid is a live rocepathd (not a pid reused by another). */
bool rpd_status_running(const struct rpd_status *st);
/*
 * Prints st (NULL: no status file) read from path: JSON keys status_file,
 * running, pid, updated, plan_valid, last_plan_ok, pins, the five
 * *_digest keys and last_error; text, one line of state and --check's
 * "digest plan ..." line.
 */
void rpd_status_print(struct rp_out *o, const char *path,
		      const struct rpd_status *st, bool running);

#endif
