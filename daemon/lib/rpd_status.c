// SPDX-License-Identifier: GPL-2.0
/* rocepathd's status file: written by the daemon, read by the tools. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "atomic.h"
#include "out.h"
#include "rpd_status.h"

static const char *const digest_keys[] = { "plan_digest", "input_digest",
	"topology_digest", "placement_digest", "probes_digest" };

/* in digest_keys' order */
static void digests(const struct rpd_status *st, uint64_t v[5])
{
	v[0] = st->plan;
	v[1] = st->input;
	v[2] = st->topology;
	v[3] = st->placement;
	v[4] = st->probes;
}

static json_object *digest_json(const struct rpd_status *st, int i)
{
	char buf[RP_DIGEST_LEN];
	uint64_t v[5];

	if (!st->plan_valid)
		return NULL;	/* json-c's null */
	digests(st, v);
	return json_object_new_string(rp_digest_fmt(v[i], buf));
}

static int render(FILE *fp, void *arg)
{
	const struct rpd_status *st = arg;
	json_object *o = json_object_new_object();
	int ret = 0;

	if (!o)
		return -ENOMEM;
	json_object_object_add(o, "pid", json_object_new_int64(st->pid));
	json_object_object_add(o, "updated", json_object_new_int64(st->updated));
	json_object_object_add(o, "plan_valid", json_object_new_boolean(st->plan_valid));
	json_object_object_add(o, "last_plan_ok", json_object_new_boolean(st->last_plan_ok));
	json_object_object_add(o, "pins", json_object_new_int64(st->pins));
	for (int i = 0; i < 5; i++)
		json_object_object_add(o, digest_keys[i], digest_json(st, i));
	json_object_object_add(o, "last_error", st->last_error[0] ?
			       json_object_new_string(st->last_error) : NULL);
	if (fprintf(fp, "%s\n", json_object_to_json_string_ext(o,
		    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -EIO;
	json_object_put(o);
	return ret;
}

int rpd_status_write(const char *path, const struct rpd_status *st)
{
	/* no fsync: the file is in /run and describes this boot only */
	return rp_write_atomic(path, false, render, (void *)st);
}

static int bad(char *err, size_t errlen, const char *path, const char *key,
	       const char *why)
{
	snprintf(err, errlen, "%s: key '%s': %s", path, key, why);
	return -EINVAL;
}

/* @root's member @key when it has @type, else NULL. */
static json_object *member(json_object *root, const char *key,
			   enum json_type type)
{
	json_object *x;

	if (!json_object_object_get_ex(root, key, &x) ||
	    !json_object_is_type(x, type))
		return NULL;
	return x;
}

static int parse(json_object *root, const char *path, struct rpd_status *st,
		 char *err, size_t errlen)
{
	static const char *const ints[] = { "pid", "updated", "pins" };
	static const char *const bools[] = { "plan_valid", "last_plan_ok" };
	bool *bv[] = { &st->plan_valid, &st->last_plan_ok };
	uint64_t dv[5] = { 0 };
	json_object *x;
	int64_t iv[3];

	if (!json_object_is_type(root, json_type_object))
		return bad(err, errlen, path, "", "not a JSON object");
	for (int i = 0; i < 3; i++) {
		x = member(root, ints[i], json_type_int);
		iv[i] = x ? json_object_get_int64(x) : -1;
		if (iv[i] < 0)
			return bad(err, errlen, path, ints[i],
				   "missing or not a non-negative integer");
	}
	st->pid = iv[0];
	st->updated = iv[1];
	st->pins = iv[2];
	for (int i = 0; i < 2; i++) {
		x = member(root, bools[i], json_type_boolean);
		if (!x)
			return bad(err, errlen, path, bools[i],
				   "missing or not true or false");
		*bv[i] = json_object_get_boolean(x);
	}
	for (int i = 0; i < 5 && st->plan_valid; i++) {
		x = member(root, digest_keys[i], json_type_string);
		if (!x)
			return bad(err, errlen, path, digest_keys[i],
				   "missing or not a string");
		if (rp_digest_parse(json_object_get_string(x), &dv[i]))
			return bad(err, errlen, path, digest_keys[i],
				   "not fnv1a64: and 16 hex digits");
	}
	st->plan = dv[0];
	st->input = dv[1];
	st->topology = dv[2];
	st->placement = dv[3];
	st->probes = dv[4];
	x = member(root, "last_error", json_type_string);
	if (x)
		snprintf(st->last_error, sizeof(st->last_error), "%s",
			 json_object_get_string(x));
	return 0;
}

/* more than a status file can be: a last_error of 1 KiB, escaped */
#define STATUS_MAX (64 * 1024)

int rpd_status_read(const char *path, struct rpd_status *st, char *err,
		    size_t errlen)
{
	json_object *root;
	size_t len;
	char *buf;
	FILE *f;
	int ret;

	memset(st, 0, sizeof(*st));
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	buf = malloc(STATUS_MAX + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	/* a read error (a directory: EISDIR) is not "not valid JSON" */
	errno = 0;
	len = fread(buf, 1, STATUS_MAX + 1, f);
	ret = ferror(f) ? (errno ? -errno : -EIO) : 0;
	fclose(f);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		goto out;
	}
	if (len > STATUS_MAX) {
		snprintf(err, errlen, "%s: larger than %d KiB: not a status file",
			 path, STATUS_MAX / 1024);
		ret = -EFBIG;
		goto out;
	}
	buf[len] = '\0';
	root = json_tokener_parse(buf);
	if (!root) {
		snprintf(err, errlen, "%s: not valid JSON", path);
		ret = -EINVAL;
		goto out;
	}
	ret = parse(root, path, st, err, errlen);
	json_object_put(root);
out:
	free(buf);
	return ret;
}

bool rpd_status_running(const struct rpd_status *st)
{
	char path[64], comm[32] = "";
	FILE *f;

	if (st->pid <= 0 || (kill(st->pid, 0) && errno != EPERM))
		return false;
	/* a pid reused since the daemon died is someone else's */
	snprintf(path, sizeof(path), "/proc/%ld/comm", st->pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strcmp(comm, "rocepathd\n");
}

void rpd_status_print(struct rp_out *o, const char *path,
		      const struct rpd_status *st, bool running)
{
	char buf[RP_DIGEST_LEN], when[32] = "?";
	uint64_t v[5];
	struct tm tm;
	time_t t;

	rp_out_string(o, "status_file", NULL, path);
	if (!st) {
		rp_out_bool(o, "running", NULL, false);
		rp_out_text(o, "rocepathd: no status in %s (not running here, or \"status_file\" elsewhere)\n",
			    path);
		return;
	}
	t = st->updated;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rp_out_text(o, "rocepathd pid %ld %s, status of %s: ", st->pid,
		    running ? "running" : "NOT running", when);
	rp_out_bool(o, "running", NULL, running);
	rp_out_int(o, "pid", NULL, st->pid);
	rp_out_int(o, "updated", NULL, st->updated);
	rp_out_bool(o, "plan_valid", NULL, st->plan_valid);
	rp_out_bool(o, "last_plan_ok", NULL, st->last_plan_ok);
	rp_out_uint(o, "pins", NULL, st->pins);
	rp_out_text(o, "%s, %llu pin%s, last plan %s\n",
		    st->plan_valid ? "plan valid" : "no good plan yet",
		    (unsigned long long)st->pins, st->pins == 1 ? "" : "s",
		    st->last_plan_ok ? "ok" : "failed");
	digests(st, v);
	for (int i = 0; i < 5; i++) {
		if (st->plan_valid)
			rp_out_string(o, digest_keys[i], NULL,
				      rp_digest_fmt(v[i], buf));
		else
			rp_out_null(o, digest_keys[i], NULL);
	}
	/* the line --check prints, so the two compare with diff */
	if (st->plan_valid)
		rp_out_text(o, "digest plan " RP_DIGEST_FMT " input " RP_DIGEST_FMT
			    " topology " RP_DIGEST_FMT " placement " RP_DIGEST_FMT
			    " probes " RP_DIGEST_FMT "\n",
			    (unsigned long long)st->plan,
			    (unsigned long long)st->input,
			    (unsigned long long)st->topology,
			    (unsigned long long)st->placement,
			    (unsigned long long)st->probes);
	if (st->last_error[0])
		rp_out_string(o, "last_error", "last error: %s\n", st->last_error);
	else
		rp_out_null(o, "last_error", NULL);
}
