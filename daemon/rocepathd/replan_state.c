// SPDX-License-Identifier: GPL-2.0
/* rocepathd stable re-plan state: the placements a plan came from. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "atomic.h"
#include "plan_int.h"	/* rp_read_file() */
#include "replan_state.h"

#define STATE_VERSION 1

void rpd_replan_state_free(struct rpd_replan_state *st)
{
	free(st->placement);
	free(st->previous);
	memset(st, 0, sizeof(*st));
}

static char *dup_bytes(const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

/* A string member, or null when @nullable; copied into *out. */
static int get_text(json_object *root, const char *key, bool nullable,
		    char **out, size_t *len)
{
	json_object *v;

	if (!json_object_object_get_ex(root, key, &v))
		return -EINVAL;
	if (nullable && json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	*len = json_object_get_string_len(v);
	*out = dup_bytes(json_object_get_string(v), *len);
	return *out ? 0 : -ENOMEM;
}

int rpd_replan_state_load(const char *dir, struct rpd_replan_state *st,
			  char *err, size_t errlen)
{
	enum json_tokener_error jerr = json_tokener_success;
	json_object *root = NULL, *ver;
	char *path = NULL, *text = NULL;
	const char *why = NULL;
	size_t len;
	int ret;

	rpd_replan_state_free(st);
	if (asprintf(&path, "%s/%s", dir, RPD_REPLAN_STATE_FILE) < 0)
		return -ENOMEM;
	ret = rp_read_file(path, &text, &len);
	if (ret) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(-ret));
		goto out;
	}
	if (strlen(text) != len) {
		why = "contains a NUL byte";
		goto bad;
	}
	root = json_tokener_parse_verbose(text, &jerr);
	if (!root) {
		why = json_tokener_error_desc(jerr);
		goto bad;
	}
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "version", &ver) ||
	    !json_object_is_type(ver, json_type_int) ||
	    json_object_get_int64(ver) != STATE_VERSION) {
		why = "not a version 1 state object";
		goto bad;
	}
	ret = get_text(root, "placement", false, &st->placement,
		       &st->placement_len);
	if (!ret)
		ret = get_text(root, "previous", true, &st->previous,
			       &st->previous_len);
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		why = "\"placement\" must be a string and \"previous\" a string or null";
		goto bad;
	}
	goto out;
bad:
	ret = -EINVAL;
	snprintf(err, errlen, "%s: not a valid state file: %s", path, why);
out:
	if (ret)
		rpd_replan_state_free(st);
	json_object_put(root);
	free(text);
	free(path);
	return ret;
}

static int render_state(FILE *fp, void *arg)
{
	json_object *root = arg;
	const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);

	if (!s)
		return -ENOMEM;
	return fprintf(fp, "%s\n", s) < 0 ? -EIO : 0;
}

int rpd_replan_state_save(const char *dir, const struct rpd_replan_state *st,
			  char *err, size_t errlen)
{
	json_object *root = json_object_new_object();
	json_object *prev = NULL;
	char *path = NULL;
	int ret = -ENOMEM;

	if (!root || asprintf(&path, "%s/%s", dir, RPD_REPLAN_STATE_FILE) < 0) {
		path = NULL;
		goto out;
	}
	if (st->previous) {
		prev = json_object_new_string_len(st->previous, st->previous_len);
		if (!prev)
			goto out;
	}
	if (json_object_object_add(root, "version",
				   json_object_new_int(STATE_VERSION)) ||
	    json_object_object_add(root, "placement",
				   json_object_new_string_len(st->placement ?: "",
							      st->placement_len)) ||
	    json_object_object_add(root, "previous", prev)) {
		prev = NULL;
		goto out;
	}
	ret = rp_write_atomic(path, true, render_state, root);
	/* outside systemd's StateDirectory= nobody made it: one level only */
	if (ret == -ENOENT && !mkdir(dir, 0755))
		ret = rp_write_atomic(path, true, render_state, root);
out:
	if (ret)
		snprintf(err, errlen, "%s: cannot write: %s",
			 path ? path : dir, strerror(-ret));
	json_object_put(root);
	free(path);
	return ret;
}

bool rpd_replan_previous(const struct rpd_replan_state *st, const char *cur,
			 size_t cur_len, const char **prev, size_t *prev_len)
{
	bool same = st->placement && st->placement_len == cur_len &&
		    !memcmp(st->placement, cur, cur_len);

	*prev = same ? st->previous : st->placement;
	*prev_len = same ? st->previous_len : st->placement_len;
	return same;
}

int rpd_replan_state_set(struct rpd_replan_state *st, const char *cur,
			 size_t cur_len, const char *prev, size_t prev_len)
{
	/* prev may point into st: copy before freeing */
	char *c = dup_bytes(cur, cur_len), *p = prev ? dup_bytes(prev, prev_len) : NULL;

	if (!c || (prev && !p)) {
		free(c);
		free(p);
		return -ENOMEM;
	}
	rpd_replan_state_free(st);
	st->placement = c;
	st->placement_len = cur_len;
	st->previous = p;
	st->previous_len = prev ? prev_len : 0;
	return 0;
}
