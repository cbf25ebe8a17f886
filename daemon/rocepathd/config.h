/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepathd configuration: a JSON object read from /etc/rocepath/rocepathd.conf
 * (or -c FILE). Unknown keys are errors, so a typo never silently changes
 * behaviour; every error names the file and the key.
 */
#ifndef ROCEPATHD_CONFIG_H
#define ROCEPATHD_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define RP_CONFIG_DEFAULT "/etc/rocepath/rocepathd.conf"
#define RP_DEBOUNCE_MS_DEFAULT 200
#define RP_DEBOUNCE_MS_MAX 60000
#define RP_RESYNC_S_DEFAULT 60
#define RP_RESYNC_S_MAX 86400
#define RP_DEV_NAME_LEN 64
/* Debian's prometheus-node-exporter reads its textfile collector from here. */
#define RP_METRICS_PATH_DEFAULT "/var/lib/prometheus/node-exporter/rocepath.prom"
#define RP_METRICS_INTERVAL_S_DEFAULT 15
#define RP_METRICS_INTERVAL_S_MAX 3600

/* DCQCN parameters, named as `rocepath dcqcn set` / mlx5 cc_params. */
struct rp_dcqcn_param {
	const char *name;
	int attr;		/* ROCEPATH_A_DCQCN_* */
	uint32_t max;		/* largest accepted value */
	int mlx5_debugfs;	/* 1 when mlx5 has a cc_params file of that name */
};

extern const struct rp_dcqcn_param rp_dcqcn_params[];
extern const size_t rp_dcqcn_nparams;
/* Index into rp_dcqcn_params, or -ENOENT. */
int rp_dcqcn_param_find(const char *name);

/* One "dcqcn" entry: a device name or fnmatch(3) pattern ("*"). */
struct rp_dcqcn_profile {
	char dev[RP_DEV_NAME_LEN];
	uint64_t set;		/* bit i: rp_dcqcn_params[i] given */
	uint32_t val[32];
};

/* The parameters that apply to one device after merging profiles. */
struct rp_dcqcn_values {
	uint64_t set;
	uint32_t val[32];
};

struct rp_config {
	char *path;		/* the file it came from */
	char *topology;		/* absolute, or relative to the config's dir */
	char *placement;
	char *host;		/* config "host", else the system host name */
	int log_level;		/* RP_LOG_* */
	int debounce_ms;
	int resync_s;		/* periodic pin check, 0 = off */
	char *metrics_path;	/* Prometheus textfile, NULL = not written */
	int metrics_interval_s;	/* metrics and QP check period, 0 = off */
	struct rp_dcqcn_profile *dcqcn;
	size_t n_dcqcn;
};

/*
 * Parse @text (JSON) as if read from @path. On error returns -errno and
 * writes "<path>: key '<key>': <reason>" to @err.
 */
int rp_config_parse(const char *text, const char *path, struct rp_config *cfg,
		    char *err, size_t errlen);
int rp_config_load(const char *path, struct rp_config *cfg, char *err,
		   size_t errlen);
void rp_config_free(struct rp_config *cfg);

/*
 * Merge the profiles that match @dev: "*" first, then other patterns in
 * file order, then an exact name, later ones overriding earlier ones.
 * Returns the number of profiles that matched.
 */
int rp_config_dcqcn_for(const struct rp_config *cfg, const char *dev,
			struct rp_dcqcn_values *out);

#endif
