/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepathd configuration: a JSON object read from /etc/rocepath/rocepathd.conf
 * (or -c FILE). Unknown keys are errors, so a typo never silently changes
 * behaviour; every error names the file and the key.
 *
 * The one model of that file, in the library because two programs read it:
 * rocepathd, and `rocepath nccl-env` (the DCQCN profile a device gets). Its
 * names keep the daemon's rpd_ prefix: it is the daemon's file.
 */
#ifndef ROCEPATH_RPD_CONFIG_H
#define ROCEPATH_RPD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec-gen.h"

#define RPD_CONFIG_DEFAULT "/etc/rocepath/rocepathd.conf"
#define RPD_DEBOUNCE_MS_DEFAULT 200
#define RPD_DEBOUNCE_MS_MAX 60000
#define RPD_RESYNC_S_DEFAULT 60
/* the stat poll beside inotify (statpoll.h): NFS and the like */
#define RPD_POLL_MS_DEFAULT 5000
#define RPD_POLL_MS_MAX 3600000
#define RPD_RESYNC_S_MAX 86400
#define RPD_DEV_NAME_LEN 64
/* Debian's prometheus-node-exporter reads its textfile collector from here. */
#define RPD_METRICS_PATH_DEFAULT "/var/lib/prometheus/node-exporter/rocepath.prom"
#define RPD_METRICS_INTERVAL_S_DEFAULT 15
#define RPD_METRICS_INTERVAL_S_MAX 3600
/* "probe_budget_pps": answers per second per switch (0: no budget) */
#define RPD_PROBE_BUDGET_MAX 1000000
/* systemd's StateDirectory=rocepath */
#define RPD_STATE_DIR_DEFAULT "/var/lib/rocepath"

/* "log_level": syslog priorities, so the journal prefix is the level itself. */
enum rpd_log_level {
	RPD_LOG_ERR = 3,
	RPD_LOG_WARN = 4,
	RPD_LOG_INFO = 6,
	RPD_LOG_DEBUG = 7,
};

/* "error", "warn", "info", "debug" -> level; -EINVAL when unknown. */
int rpd_log_level_parse(const char *name);
/* The name of @level, "?" when it is none of them. */
const char *rpd_log_level_name(int level);

/* One "dcqcn" entry: a device name or fnmatch(3) pattern ("*"). */
struct rpd_dcqcn_profile {
	char dev[RPD_DEV_NAME_LEN];
	uint64_t set;		/* bit i: rp_dcqcn_params[i] given */
	uint32_t val[RP_DCQCN_NPARAMS];
};

/* The parameters that apply to one device after merging profiles. */
struct rpd_dcqcn_values {
	uint64_t set;
	uint32_t val[RP_DCQCN_NPARAMS];
};

struct rpd_config {
	char *path;		/* the file it came from */
	char *topology;		/* absolute, or relative to the config's dir */
	char *placement;
	char *host;		/* config "host", else the system host name */
	int log_level;		/* RPD_LOG_* */
	int debounce_ms;
	int resync_s;		/* periodic pin check, 0 = off */
	int poll_ms;		/* stat poll of the two files, 0 = off */
	char *metrics_path;	/* Prometheus textfile, NULL = not written */
	char *status_file;	/* rpd_status.h, NULL = not written */
	int metrics_interval_s;	/* metrics and QP check period, 0 = off */
	bool stable_replan;	/* re-plan with a previous placement (default) */
	char *state_dir;	/* where the re-plan state is kept */
	char *previous_placement; /* scheduler's previous placement, or NULL */
	/* path probing for measured switch hashes (plan_probe.h) */
	unsigned int probe_rate_pps, probe_tries, probe_timeout_ms, probe_ttl;
	/* ICMP answers/s each switch may be asked for, fabric-wide; 0 = off */
	unsigned int probe_budget_pps;
	struct rpd_dcqcn_profile *dcqcn;
	size_t n_dcqcn;
};

/*
 * Parse @text (JSON) as if read from @path. On error returns -errno and
 * writes "<path>: key '<key>': <reason>" to @err.
 */
int rpd_config_parse(const char *text, const char *path, struct rpd_config *cfg,
		     char *err, size_t errlen);
int rpd_config_load(const char *path, struct rpd_config *cfg, char *err,
		    size_t errlen);
void rpd_config_free(struct rpd_config *cfg);

/*
 * Merge the profiles that match @dev: "*" first, then other patterns in
 * file order, then an exact name, later ones overriding earlier ones.
 * Returns the number of profiles that matched.
 */
int rpd_config_dcqcn_for(const struct rpd_config *cfg, const char *dev,
			 struct rpd_dcqcn_values *out);

#endif
