// SPDX-License-Identifier: GPL-2.0
/* rocepathd configuration file parsing (json-c), shared with the CLI. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <linux/rocepath.h>

#include "rpd_config.h"
#include "rpd_status.h"
#include "objs.h"

static const struct {
	const char *name;
	int level;
} levels[] = {
	{ "error", RPD_LOG_ERR },
	{ "warn", RPD_LOG_WARN },
	{ "info", RPD_LOG_INFO },
	{ "debug", RPD_LOG_DEBUG },
};

int rpd_log_level_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (!strcmp(name, levels[i].name))
			return levels[i].level;
	return -EINVAL;
}

const char *rpd_log_level_name(int level)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (levels[i].level == level)
			return levels[i].name;
	return "?";
}

static int cfg_err(char *err, size_t errlen, const char *path, const char *key,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int cfg_err(char *err, size_t errlen, const char *path, const char *key,
		   const char *fmt, ...)
{
	char reason[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (key)
		snprintf(err, errlen, "%s: key '%s': %s", path, key, reason);
	else
		snprintf(err, errlen, "%s: %s", path, reason);
	return -EINVAL;
}

/* Relative paths are taken from the config file's directory. */
static char *resolve_path(const char *cfgpath, const char *p)
{
	const char *slash;
	char *out;

	if (p[0] == '/')
		return strdup(p);
	slash = strrchr(cfgpath, '/');
	if (!slash)
		return strdup(p);
	if (asprintf(&out, "%.*s/%s", (int)(slash - cfgpath), cfgpath, p) < 0)
		return NULL;
	return out;
}

static int get_string(json_object *v, const char *path, const char *key,
		      const char **out, char *err, size_t errlen)
{
	if (!json_object_is_type(v, json_type_string))
		return cfg_err(err, errlen, path, key, "expected a string");
	*out = json_object_get_string(v);
	if (!**out)
		return cfg_err(err, errlen, path, key, "must not be empty");
	return 0;
}

static int get_uint(json_object *v, const char *path, const char *key,
		    uint64_t min, uint64_t max, uint64_t *out, char *err,
		    size_t errlen)
{
	int64_t x;

	if (!json_object_is_type(v, json_type_int))
		return cfg_err(err, errlen, path, key, "expected an integer %llu..%llu",
			       (unsigned long long)min, (unsigned long long)max);
	errno = 0;
	x = json_object_get_int64(v);
	if (x < 0 || (uint64_t)x < min || (uint64_t)x > max ||
	    (x == INT64_MAX && errno == ERANGE))
		return cfg_err(err, errlen, path, key, "value out of range %llu..%llu",
			       (unsigned long long)min, (unsigned long long)max);
	*out = x;
	return 0;
}

static void merge(struct rpd_dcqcn_values *out, const struct rpd_dcqcn_profile *p)
{
	for (size_t i = 0; i < RP_DCQCN_NPARAMS; i++)
		if (p->set & (1ULL << i))
			out->val[i] = p->val[i];
	out->set |= p->set;
}

/* When @p applies to @dev: pass 0 for "*", 1 for another matching pattern, 2 for the exact name; else -1. */
static int profile_pass(const struct rpd_dcqcn_profile *p, const char *dev)
{
	if (!strcmp(p->dev, "*"))
		return 0;
	if (!strcmp(p->dev, dev))
		return 2;
	if (strpbrk(p->dev, "*?[") && !fnmatch(p->dev, dev, 0))
		return 1;
	return -1;
}

/*
 * Merges into @out the profiles that apply to @dev, in rpd_config_dcqcn_for()'s
 * order, naming them in @from (may be NULL); @own_only leaves out the other
 * patterns (pass 1). Returns how many applied.
 */
static int merge_for(const struct rpd_config *cfg, const char *dev, bool own_only,
		     struct rpd_dcqcn_values *out, char *from, size_t fromlen)
{
	size_t off = 0;
	int matched = 0;

	memset(out, 0, sizeof(*out));
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < cfg->n_dcqcn; i++) {
			const struct rpd_dcqcn_profile *p = &cfg->dcqcn[i];

			if (profile_pass(p, dev) != pass || (own_only && pass == 1))
				continue;
			merge(out, p);
			matched++;
			if (from && off < fromlen)
				off += snprintf(from + off, fromlen - off, "%s'%s'",
						off ? ", " : "", p->dev);
		}
	}
	return matched;
}

/*
 * The rules between parameters (rp_dcqcn_check()) on what the file alone
 * decides: a device named in the file gets "*", the patterns that match
 * it and its own profile; a pattern's devices get at least "*" and the
 * pattern. Which patterns meet on one device is known when the daemon
 * pushes (rpd_rec_dcqcn_dev() checks again), and the device's values for
 * the parameters no profile sets only in the module, which checks last.
 */
static int check_profiles(const struct rpd_config *cfg, const char *path,
			  char *err, size_t errlen)
{
	for (size_t i = 0; i < cfg->n_dcqcn; i++) {
		const char *dev = cfg->dcqcn[i].dev;
		char why[128], from[256] = "", key[256];
		struct rpd_dcqcn_values v;

		merge_for(cfg, dev, strpbrk(dev, "*?["), &v, from, sizeof(from));
		if (!rp_dcqcn_check(v.val, v.set, why, sizeof(why)))
			continue;
		snprintf(key, sizeof(key), "dcqcn.%s", dev);
		return cfg_err(err, errlen, path, key, "%s (profiles merged: %s)",
			       why, from);
	}
	return 0;
}

static int parse_dcqcn(json_object *obj, const char *path, struct rpd_config *cfg,
		       char *err, size_t errlen)
{
	size_t n = 0;
	char key[256];

	if (!json_object_is_type(obj, json_type_object))
		return cfg_err(err, errlen, path, "dcqcn",
			       "expected an object mapping device names to parameters");
	cfg->dcqcn = calloc(json_object_object_length(obj) + 1, sizeof(*cfg->dcqcn));
	if (!cfg->dcqcn)
		return -ENOMEM;

	json_object_object_foreach(obj, dev, params) {
		struct rpd_dcqcn_profile *p = &cfg->dcqcn[n];

		snprintf(key, sizeof(key), "dcqcn.%s", dev);
		if (!*dev || strlen(dev) >= sizeof(p->dev))
			return cfg_err(err, errlen, path, key,
				       "device name must be 1..%zu characters",
				       sizeof(p->dev) - 1);
		if (!json_object_is_type(params, json_type_object))
			return cfg_err(err, errlen, path, key,
				       "expected an object of parameters");
		strcpy(p->dev, dev);
		json_object_object_foreach(params, pname, pval) {
			uint64_t v;
			int i, ret;

			snprintf(key, sizeof(key), "dcqcn.%s.%s", dev, pname);
			i = rp_dcqcn_param_find(pname);
			if (i < 0)
				return cfg_err(err, errlen, path, key,
					       "unknown DCQCN parameter (see rocepathd(8) for the list)");
			/* The module's range, from the spec: what passes here is never refused at push time. */
			ret = get_uint(pval, path, key, rp_dcqcn_params[i].min,
				       rp_dcqcn_params[i].max, &v, err, errlen);
			if (ret)
				return ret;
			p->set |= 1ULL << i;
			p->val[i] = v;
		}
		n++;
		cfg->n_dcqcn = n;
	}
	return check_profiles(cfg, path, err, errlen);
}

/* "metrics": {"path": FILE | null, "interval_s": N} */
static int parse_metrics(json_object *obj, const char *path, struct rpd_config *cfg,
			 const char **mpath, char *err, size_t errlen)
{
	if (!json_object_is_type(obj, json_type_object))
		return cfg_err(err, errlen, path, "metrics",
			       "expected an object with path and interval_s");
	json_object_object_foreach(obj, k, v) {
		uint64_t x;
		int ret;

		if (!strcmp(k, "path")) {
			if (json_object_is_type(v, json_type_null)) {
				*mpath = NULL;
				continue;
			}
			ret = get_string(v, path, "metrics.path", mpath, err, errlen);
		} else if (!strcmp(k, "interval_s")) {
			ret = get_uint(v, path, "metrics.interval_s",
				       0, RPD_METRICS_INTERVAL_S_MAX, &x, err, errlen);
			cfg->metrics_interval_s = x;
		} else {
			char key[256];

			snprintf(key, sizeof(key), "metrics.%s", k);
			ret = cfg_err(err, errlen, path, key,
				      "unknown key (known: path, interval_s)");
		}
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * probe_*: positive integers, each with a sane ceiling; the budget may be
 * 0 (off). Whether a budget can probe every flow in time depends on the
 * files: the plan checks it (probe_budget.h).
 */
static int probe_key(json_object *val, const char *path, const char *key,
		     struct rpd_config *cfg, char *err, size_t errlen)
{
	unsigned int *dst = !strcmp(key, "probe_rate_pps") ? &cfg->probe_rate_pps :
			    !strcmp(key, "probe_tries") ? &cfg->probe_tries :
			    !strcmp(key, "probe_timeout_ms") ? &cfg->probe_timeout_ms :
			    !strcmp(key, "probe_budget_pps") ? &cfg->probe_budget_pps :
			    &cfg->probe_ttl;
	uint64_t max = dst == &cfg->probe_rate_pps ? 100000 :
		       dst == &cfg->probe_tries ? 100 :
		       dst == &cfg->probe_timeout_ms ? 60000 :
		       dst == &cfg->probe_budget_pps ? RPD_PROBE_BUDGET_MAX : 255;
	uint64_t v;
	int ret = get_uint(val, path, key, dst == &cfg->probe_budget_pps ? 0 : 1,
			   max, &v, err, errlen);

	if (!ret)
		*dst = v;
	return ret;
}

int rpd_config_parse(const char *text, const char *path, struct rpd_config *cfg,
		     char *err, size_t errlen)
{
	const char *topology = NULL, *placement = NULL, *host = NULL;
	const char *state_dir = RPD_STATE_DIR_DEFAULT, *prev_place = NULL;
	const char *mpath = RPD_METRICS_PATH_DEFAULT;
	const char *status = RPD_STATUS_FILE_DEFAULT;
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	json_object *root;
	int ret = 0;

	memset(cfg, 0, sizeof(*cfg));
	cfg->log_level = RPD_LOG_INFO;
	cfg->debounce_ms = RPD_DEBOUNCE_MS_DEFAULT;
	cfg->resync_s = RPD_RESYNC_S_DEFAULT;
	cfg->poll_ms = RPD_POLL_MS_DEFAULT;
	cfg->metrics_interval_s = RPD_METRICS_INTERVAL_S_DEFAULT;
	/* off: daemon.rst promises the pins are `rocepath plan` for the same files */
	cfg->stable_replan = false;
	cfg->probe_rate_pps = 50;
	cfg->probe_tries = 3;
	cfg->probe_timeout_ms = 500;
	cfg->probe_ttl = 2;

	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	root = json_tokener_parse_ex(tok, text, strlen(text));
	jerr = json_tokener_get_error(tok);
	if (!root || jerr != json_tokener_success ||
	    tok->char_offset < (int)strlen(text)) {
		/* Trailing garbage after a complete object is an error too. */
		size_t off = tok->char_offset;

		if (root && jerr == json_tokener_success) {
			while (text[off] == ' ' || text[off] == '\n' ||
			       text[off] == '\t' || text[off] == '\r')
				off++;
			if (!text[off])
				goto parsed;
			snprintf(err, errlen, "%s: invalid JSON: trailing data at offset %zu",
				 path, off);
		} else {
			snprintf(err, errlen, "%s: invalid JSON at offset %zu: %s", path,
				 off, json_tokener_error_desc(jerr == json_tokener_success ?
							       json_tokener_error_parse_eof : jerr));
		}
		json_object_put(root);
		json_tokener_free(tok);
		return -EINVAL;
	}
parsed:
	json_tokener_free(tok);
	if (!json_object_is_type(root, json_type_object)) {
		ret = cfg_err(err, errlen, path, NULL, "top level must be a JSON object");
		goto out;
	}

	json_object_object_foreach(root, key, val) {
		if (!strcmp(key, "topology")) {
			ret = get_string(val, path, key, &topology, err, errlen);
		} else if (!strcmp(key, "placement")) {
			ret = get_string(val, path, key, &placement, err, errlen);
		} else if (!strcmp(key, "host")) {
			ret = get_string(val, path, key, &host, err, errlen);
		} else if (!strcmp(key, "log_level")) {
			const char *s;

			ret = get_string(val, path, key, &s, err, errlen);
			if (!ret) {
				cfg->log_level = rpd_log_level_parse(s);
				if (cfg->log_level < 0)
					ret = cfg_err(err, errlen, path, key,
						      "'%s' is not one of error, warn, info, debug",
						      s);
			}
		} else if (!strcmp(key, "debounce_ms")) {
			uint64_t v;

			ret = get_uint(val, path, key, 0, RPD_DEBOUNCE_MS_MAX, &v, err, errlen);
			cfg->debounce_ms = v;
		} else if (!strcmp(key, "resync_interval_s")) {
			uint64_t v;

			ret = get_uint(val, path, key, 0, RPD_RESYNC_S_MAX, &v, err, errlen);
			cfg->resync_s = v;
		} else if (!strcmp(key, "poll_interval_ms")) {
			uint64_t v;

			ret = get_uint(val, path, key, 0, RPD_POLL_MS_MAX, &v, err, errlen);
			cfg->poll_ms = v;
		} else if (!strcmp(key, "stable_replan")) {
			if (!json_object_is_type(val, json_type_boolean))
				ret = cfg_err(err, errlen, path, key,
					      "expected true or false");
			cfg->stable_replan = json_object_get_boolean(val);
		} else if (!strcmp(key, "state_dir")) {
			ret = get_string(val, path, key, &state_dir, err, errlen);
		} else if (!strcmp(key, "previous_placement")) {
			ret = get_string(val, path, key, &prev_place, err, errlen);
		} else if (!strcmp(key, "probe_rate_pps") ||
			   !strcmp(key, "probe_tries") ||
			   !strcmp(key, "probe_timeout_ms") ||
			   !strcmp(key, "probe_ttl") ||
			   !strcmp(key, "probe_budget_pps")) {
			ret = probe_key(val, path, key, cfg, err, errlen);
		} else if (!strcmp(key, "dcqcn")) {
			ret = parse_dcqcn(val, path, cfg, err, errlen);
		} else if (!strcmp(key, "metrics")) {
			ret = parse_metrics(val, path, cfg, &mpath, err, errlen);
		} else if (!strcmp(key, "status_file")) {
			if (json_object_is_type(val, json_type_null))
				status = NULL;
			else
				ret = get_string(val, path, key, &status, err, errlen);
		} else {
			ret = cfg_err(err, errlen, path, key,
				      "unknown key (known: topology, placement, host, dcqcn, metrics, log_level, debounce_ms, resync_interval_s, poll_interval_ms, stable_replan, state_dir, previous_placement, probe_rate_pps, probe_tries, probe_timeout_ms, probe_ttl, probe_budget_pps, status_file)");
		}
		if (ret)
			goto out;
	}

	if (!topology) {
		ret = cfg_err(err, errlen, path, "topology", "missing (path of the topology file)");
		goto out;
	}
	if (!placement) {
		ret = cfg_err(err, errlen, path, "placement", "missing (path of the placement file)");
		goto out;
	}
	cfg->path = strdup(path);
	cfg->topology = resolve_path(path, topology);
	cfg->placement = resolve_path(path, placement);
	if (mpath) {
		cfg->metrics_path = resolve_path(path, mpath);
		if (!cfg->metrics_path) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (status) {
		cfg->status_file = resolve_path(path, status);
		if (!cfg->status_file) {
			ret = -ENOMEM;
			goto out;
		}
	}
	cfg->state_dir = resolve_path(path, state_dir);
	if (prev_place) {
		cfg->previous_placement = resolve_path(path, prev_place);
		if (!cfg->previous_placement) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (host) {
		cfg->host = strdup(host);
	} else {
		char hn[HOST_NAME_MAX + 1] = "";

		if (gethostname(hn, sizeof(hn)) < 0 || !hn[0]) {
			ret = cfg_err(err, errlen, path, "host",
				      "not set and the system host name is unavailable");
			goto out;
		}
		hn[HOST_NAME_MAX] = '\0';
		cfg->host = strdup(hn);
	}
	if (!cfg->path || !cfg->topology || !cfg->placement || !cfg->host ||
	    !cfg->state_dir)
		ret = -ENOMEM;
out:
	json_object_put(root);
	if (ret)
		rpd_config_free(cfg);
	return ret;
}

int rpd_config_load(const char *path, struct rpd_config *cfg, char *err,
		    size_t errlen)
{
	size_t len = 0, cap = 4096;
	char *buf;
	FILE *f;
	int ret;

	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-ret));
		return ret;
	}
	buf = malloc(cap);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	for (;;) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (len < cap - 1)
			break;
		if (cap >= (1 << 20)) {
			free(buf);
			fclose(f);
			snprintf(err, errlen, "%s: larger than 1 MiB", path);
			return -EFBIG;
		}
		cap *= 2;
		char *nb = realloc(buf, cap);

		if (!nb) {
			free(buf);
			fclose(f);
			return -ENOMEM;
		}
		buf = nb;
	}
	if (ferror(f)) {
		ret = -EIO;
		snprintf(err, errlen, "%s: read error", path);
		free(buf);
		fclose(f);
		return ret;
	}
	fclose(f);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		free(buf);
		snprintf(err, errlen, "%s: contains a NUL byte", path);
		return -EINVAL;
	}
	ret = rpd_config_parse(buf, path, cfg, err, errlen);
	free(buf);
	return ret;
}

void rpd_config_free(struct rpd_config *cfg)
{
	free(cfg->path);
	free(cfg->topology);
	free(cfg->placement);
	free(cfg->host);
	free(cfg->metrics_path);
	free(cfg->status_file);
	free(cfg->state_dir);
	free(cfg->previous_placement);
	free(cfg->dcqcn);
	memset(cfg, 0, sizeof(*cfg));
}

int rpd_config_dcqcn_for(const struct rpd_config *cfg, const char *dev,
			 struct rpd_dcqcn_values *out)
{
	return merge_for(cfg, dev, false, out, NULL, 0);
}
