// SPDX-License-Identifier: GPL-2.0
/*
 * JSON helpers of the cluster file parsers: errors with file, JSON path and
 * reason, whole-file reads, typed member access.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "plan_json.h"

void rp_err_set(struct rp_err *err, const char *file, const char *path,
		int line, int col, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	err->line = line;
	err->col = col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

const char *rp_err_str(const struct rp_err *err, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	if (err->file[0])
		n += snprintf(buf + n, len - n, "%s", err->file);
	if (n < len && err->line)
		n += snprintf(buf + n, len - n, ":%d:%d", err->line, err->col);
	if (n < len && n)
		n += snprintf(buf + n, len - n, ": ");
	if (n < len && err->path[0])
		n += snprintf(buf + n, len - n, "%s: ", err->path);
	if (n < len)
		snprintf(buf + n, len - n, "%s", err->msg);
	return buf;
}

int rp_read_file(const char *path, char **text, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				close(fd);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			int e = -errno;

			if (e == -EINTR)
				continue;
			free(buf);
			close(fd);
			return e;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	buf[n] = 0;
	*text = buf;
	*len = n;
	return 0;
}

void rp_json_pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

int rp_json_end(struct pctx *c, json_object *root, int ret)
{
	rp_json_put(root);
	if (ret == -ENOMEM)
		rp_err_set(c->err, c->file, "", 0, 0, "out of memory");
	return ret;
}

int rp_json_err(struct pctx *c, const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rp_err_set(c->err, c->file, path, 0, 0, "%s", msg);
	return -EINVAL;
}

/*
 * glibc's fastbins make freeing a tree of a million small json-c objects
 * slow (malloc_consolidate walks them again and again): a quarter of the
 * time of loading a 131k-GPU topology. Off while a tree lives, then back to
 * glibc's default (64 * sizeof(size_t) / 4).
 */
#define RP_MXFAST_DEFAULT	(64 * sizeof(size_t) / 4)

void rp_json_put(json_object *root)
{
	json_object_put(root);
	mallopt(M_MXFAST, RP_MXFAST_DEFAULT);
}

int rp_json_parse(struct pctx *c, const char *text, size_t len,
		  json_object **out)
{
	struct json_tokener *tok;
	enum json_tokener_error je;
	json_object *o;
	size_t end, i;
	int line = 1, col = 1;

	mallopt(M_MXFAST, 0);
	tok = json_tokener_new();
	if (!tok) {
		mallopt(M_MXFAST, RP_MXFAST_DEFAULT);
		return -ENOMEM;
	}
	o = json_tokener_parse_ex(tok, text, (int)len);
	je = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (!o && je == json_tokener_continue)
		je = json_tokener_error_parse_eof;
	if (o) {
		/* Only white space may follow the document. */
		while (end < len && strchr(" \t\r\n", text[end]))
			end++;
		if (end < len) {
			json_object_put(o);
			o = NULL;
			je = json_tokener_error_parse_unexpected;
		}
	}
	json_tokener_free(tok);
	if (o) {
		*out = o;
		return 0;
	}
	mallopt(M_MXFAST, RP_MXFAST_DEFAULT);
	if (end > len)
		end = len;
	for (i = 0; i < end && i < len; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	rp_err_set(c->err, c->file, "", line, col, "malformed JSON: %s",
		   json_tokener_error_desc(je));
	return -EINVAL;
}

/* Typed member access; *v NULL when absent and optional. */
int rp_json_member(struct pctx *c, json_object *obj, const char *opath,
		   const char *key, enum json_type type, bool required,
		   json_object **v)
{
	static const char *const tn[] = {
		[json_type_null] = "null", [json_type_boolean] = "a boolean",
		[json_type_double] = "a number", [json_type_int] = "an integer",
		[json_type_object] = "an object", [json_type_array] = "an array",
		[json_type_string] = "a string",
	};
	char p[300];

	/* paths are formatted only for errors: members are read by the 100,000 */
	*v = NULL;
	if (!json_object_object_get_ex(obj, key, v) || !*v) {
		*v = NULL;
		if (required)
			return rp_json_err(c, opath, "missing \"%s\"", key);
		return 0;
	}
	if (json_object_get_type(*v) != type) {
		rp_json_pathf(p, sizeof(p), "%s.%s", opath, key);
		return rp_json_err(c, p, "expected %s", tn[type]);
	}
	return 0;
}

int rp_json_int(struct pctx *c, json_object *obj, const char *opath,
		const char *key, bool required, int64_t lo, int64_t hi,
		const char *what, int64_t *out)
{
	json_object *v;
	char p[300];
	int64_t x;
	int ret;

	ret = rp_json_member(c, obj, opath, key, json_type_int, required, &v);
	if (ret || !v)
		return ret;
	errno = 0;
	x = json_object_get_int64(v);
	if (errno || x < lo || x > hi) {
		rp_json_pathf(p, sizeof(p), "%s.%s", opath, key);
		return rp_json_err(c, p, "%s %s out of range (%lld..%lld)", what,
				   json_object_get_string(v), (long long)lo,
				   (long long)hi);
	}
	*out = x;
	return 0;
}

int rp_json_str(struct pctx *c, json_object *obj, const char *opath,
		const char *key, bool required, const char **out)
{
	json_object *v;
	char p[300];
	int ret;

	ret = rp_json_member(c, obj, opath, key, json_type_string, required, &v);
	if (ret || !v)
		return ret;
	*out = json_object_get_string(v);
	if (!**out) {
		rp_json_pathf(p, sizeof(p), "%s.%s", opath, key);
		return rp_json_err(c, p, "empty string");
	}
	return 0;
}

int rp_json_load_file(const char *path, char **text, size_t *len,
		      struct rp_err *err)
{
	int ret = rp_read_file(path, text, len);

	if (ret)
		rp_err_set(err, path, "", 0, 0, "cannot read: %s",
			   strerror(-ret));
	return ret;
}
