/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON helpers shared by the cluster file parsers (plan_topo.c,
 * plan_place.c): every error names the file, the JSON path and the reason.
 * All return 0 or -errno (-EINVAL for bad input, with the error filled in).
 */
#ifndef ROCEPATH_PLAN_JSON_H
#define ROCEPATH_PLAN_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "plan_int.h"

struct pctx {
	const char *file;
	struct rp_err *err;
	char path[256];
};


/* snprintf for JSON paths: long paths are cut, which is fine for errors */
void rp_json_pathf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Fills c->err with the file, path and reason; returns -EINVAL. */
int rp_json_err(struct pctx *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Parses a whole document (free it with rp_json_put()); malformed JSON is
 * reported with line:column.
 */
int rp_json_parse(struct pctx *c, const char *text, size_t len,
		  json_object **out);
/* Frees a tree from rp_json_parse(). */
void rp_json_put(json_object *root);
/*
 * The end of a parse: frees the tree and reports -ENOMEM, which names no
 * JSON path, against the file ("out of memory"). Returns ret.
 */
int rp_json_end(struct pctx *c, json_object *root, int ret);
/* Typed member access; *v NULL when absent and optional. */
int rp_json_member(struct pctx *c, json_object *obj, const char *opath,
		   const char *key, enum json_type type, bool required,
		   json_object **v);
/* Integer member in lo..hi ("what" names it in the error). */
int rp_json_int(struct pctx *c, json_object *obj, const char *opath,
		const char *key, bool required, int64_t lo, int64_t hi,
		const char *what, int64_t *out);
/* Non-empty string member. */
int rp_json_str(struct pctx *c, json_object *obj, const char *opath,
		const char *key, bool required, const char **out);
/* rp_read_file() with the error ("cannot read: ...") naming the file. */
int rp_json_load_file(const char *path, char **text, size_t *len,
		      struct rp_err *err);

/*
 * A placement document (plan_place.c): parsed, an object, with a "jobs"
 * array; *root is freed (and NULL) on error.
 */
int rp_place_json(struct pctx *c, const char *text, size_t len,
		  json_object **root, json_object **jobs);

#endif /* ROCEPATH_PLAN_JSON_H */
