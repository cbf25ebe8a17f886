// SPDX-License-Identifier: GPL-2.0
/*
 * json-c's verdict on the text the compact reader declines: its error with
 * line and column, or, for input only json-c takes (comments, trailing
 * commas, huge integers), its tree copied into a compact document. Such
 * files are small in practice, so the tree's cost no longer matters here.
 */
#include <errno.h>
#include <malloc.h>
#include <string.h>

#include <json-c/json.h>

#include "plan_json.h"

/*
 * glibc's fastbins make freeing a tree of a million small json-c objects
 * slow (malloc_consolidate walks them again and again). Off while a tree
 * lives, then back to glibc's default (64 * sizeof(size_t) / 4).
 */
#define RP_MXFAST_DEFAULT	(64 * sizeof(size_t) / 4)

void rp_json_tree_put(json_object *root)
{
	json_object_put(root);
	mallopt(M_MXFAST, RP_MXFAST_DEFAULT);
}

int rp_json_tree(struct pctx *c, const char *text, size_t len,
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

/* o and its subtree appended to d in document order. */
static int copy_tree(struct rp_jdoc *d, json_object *o, const char *key)
{
	static const enum rp_jtype type[] = {
		[json_type_null] = RP_JNULL, [json_type_boolean] = RP_JBOOL,
		[json_type_double] = RP_JDOUBLE, [json_type_int] = RP_JINT,
		[json_type_object] = RP_JOBJECT, [json_type_array] = RP_JARRAY,
		[json_type_string] = RP_JSTRING,
	};
	enum json_type jt = json_object_get_type(o);
	struct rp_jv *v;
	size_t at, n = 0;
	int ret;

	ret = rp_jdoc_add(d, type[jt], key, &at);
	if (ret)
		return ret;
	v = &d->v[at];
	switch (jt) {
	case json_type_boolean:
		v->b = json_object_get_boolean(o);
		break;
	case json_type_double:
		v->d = json_object_get_double(o);
		break;
	case json_type_int:
		/* above INT64_MAX json-c keeps it unsigned */
		v->i = json_object_get_int64(o);
		if (v->i == INT64_MAX && json_object_get_uint64(o) > INT64_MAX) {
			v->i = (int64_t)json_object_get_uint64(o);
			v->u64 = true;
		}
		break;
	case json_type_string:
		v->s = rp_jdoc_str(d, json_object_get_string(o),
				   json_object_get_string_len(o));
		if (!v->s)
			return -ENOMEM;
		break;
	case json_type_object: {
		json_object_object_foreach(o, k, m) {
			const char *kc = rp_jdoc_str(d, k, strlen(k));

			ret = kc ? copy_tree(d, m, kc) : -ENOMEM;
			if (ret)
				return ret;
			n++;
		}
		break;
	}
	case json_type_array:
		for (n = 0; n < json_object_array_length(o); n++) {
			ret = copy_tree(d, json_object_array_get_idx(o, n), NULL);
			if (ret)
				return ret;
		}
		break;
	default:
		break;
	}
	/* d->v may have moved while the subtree was added */
	if (jt == json_type_object || jt == json_type_array)
		d->v[at].n = n;
	d->v[at].skip = d->nv - at;
	return 0;
}

int rp_json_parse_c(struct pctx *c, const char *text, size_t len,
		    struct rp_jdoc *d)
{
	json_object *root;
	int ret;

	memset(d, 0, sizeof(*d));
	ret = rp_json_tree(c, text, len, &root);
	if (ret)
		return ret;
	ret = copy_tree(d, root, NULL);
	rp_json_tree_put(root);
	return ret;
}
