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
#include "plan_jread.h"

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
 * Parses a whole document into d (free it with rp_jdoc_free(), also after
 * an error): the compact reader, or json-c for what that declines, whose
 * verdict on malformed JSON is reported with line:column.
 */
int rp_json_parse(struct pctx *c, const char *text, size_t len,
		  struct rp_jdoc *d);
/*
 * json-c's parse of text into d: its error with line:column, or its tree
 * copied into d (plan_jcompat.c).
 */
int rp_json_parse_c(struct pctx *c, const char *text, size_t len,
		    struct rp_jdoc *d);
/*
 * json-c's tree of text, for a caller that edits and prints it (free it
 * with rp_json_tree_put()); its error with line:column.
 */
int rp_json_tree(struct pctx *c, const char *text, size_t len,
		 json_object **out);
void rp_json_tree_put(json_object *root);
/*
 * The end of a parse: frees the document and reports -ENOMEM, which names
 * no JSON path, against the file ("out of memory"). Returns ret.
 */
int rp_json_end(struct pctx *c, struct rp_jdoc *d, int ret);
/* Typed member access; *v NULL when absent and optional. */
int rp_json_member(struct pctx *c, const struct rp_jv *obj, const char *opath,
		   const char *key, enum rp_jtype type, bool required,
		   const struct rp_jv **v);
/* "expected an object" and the like, at path, for a value not of type. */
int rp_json_type(struct pctx *c, const struct rp_jv *v, const char *path,
		 enum rp_jtype type);
/* Integer member in lo..hi ("what" names it in the error). */
int rp_json_int(struct pctx *c, const struct rp_jv *obj, const char *opath,
		const char *key, bool required, int64_t lo, int64_t hi,
		const char *what, int64_t *out);
/* Non-empty string member. */
int rp_json_str(struct pctx *c, const struct rp_jv *obj, const char *opath,
		const char *key, bool required, const char **out);
/* rp_read_file() with the error ("cannot read: ...") naming the file. */
int rp_json_load_file(const char *path, char **text, size_t *len,
		      struct rp_err *err);

/*
 * A placement document (plan_place.c): parsed, an object, with a "jobs"
 * array; d is freed on error.
 */
int rp_place_json(struct pctx *c, const char *text, size_t len,
		  struct rp_jdoc *d, const struct rp_jv **jobs);

#endif /* ROCEPATH_PLAN_JSON_H */
