/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One decoder for every nest of the family, driven by two tables: the
 * spec's attribute set (spec-gen.c, generated: type, multi-attr, max-len,
 * nested set) and a hand-written field map (which struct member holds
 * which attribute, since the struct layout is not in the spec).
 *
 * Rules, the same for every set: an attribute the map does not name is
 * skipped (newer kernels may add some), so are types beyond the set; a
 * number shorter than its spec type, a string without its NUL or longer
 * than the member or the spec's max-len, or an address not 4 or 16 bytes
 * long fails with -EINVAL. Every decoded struct starts with
 * `uint64_t attrs`, the bits of the attributes present (RP_HAS()).
 */
#ifndef ROCEPATH_SPEC_DECODE_H
#define ROCEPATH_SPEC_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "spec-gen.h"

struct nlattr;

/* The C type of a member the decoder writes. */
enum rp_dst {
	RP_DST_NONE,		/* not decoded: the attribute is skipped */
	RP_DST_BOOL,
	RP_DST_U16,
	RP_DST_U32,
	RP_DST_U64,
	RP_DST_STR,		/* char array, NUL-terminated */
	RP_DST_ADDR,		/* struct rp_addr */
	RP_DST_NEST,		/* a struct of a nested decoder */
};

struct rp_decoder;

struct rp_field {
	enum rp_dst dst;
	uint16_t off;		/* of the member (multi-attr: of the pointer) */
	uint16_t size;		/* of the member (multi-attr: of one element) */
	uint16_t count_off;	/* multi-attr: of the size_t count, else 0 */
	const struct rp_decoder *nest;	/* RP_DST_NEST */
};

struct rp_decoder {
	const char *what;		/* the struct's name, for tests */
	const struct rp_spec_set *set;
	const struct rp_field *fields;	/* indexed by attribute type */
	size_t nfields;			/* set->max + 1 */
	size_t size;			/* of the struct */
	uint64_t required;		/* attributes that must be present */
	/* Where set: number attributes without a field go to val[type]. */
	struct rp_field val;
};

#define RP_DST_OF(m) _Generic((m),					\
	bool: RP_DST_BOOL, uint16_t: RP_DST_U16, uint32_t: RP_DST_U32,	\
	uint64_t: RP_DST_U64, char *: RP_DST_STR,			\
	struct rp_addr: RP_DST_ADDR)
#define RP_MEMBER(T, m)	(((T *)0)->m)

/* A plain member: number, bool, char array or address. */
#define RP_FIELD(T, m) { .dst = RP_DST_OF(RP_MEMBER(T, m)),		\
	.off = offsetof(T, m), .size = sizeof(RP_MEMBER(T, m)) }
/* A multi-attr number: malloc'ed array m with count n. */
#define RP_ARRAY(T, m, n) { .dst = RP_DST_OF(*RP_MEMBER(T, m)),	\
	.off = offsetof(T, m), .size = sizeof(*RP_MEMBER(T, m)),	\
	.count_off = offsetof(T, n) }
/* A nest decoded by dec into member m. */
#define RP_NEST(T, m, dec) { .dst = RP_DST_NEST, .off = offsetof(T, m),	\
	.size = sizeof(RP_MEMBER(T, m)), .nest = &(dec) }
/* A multi-attr nest: malloc'ed array m with count n. */
#define RP_NEST_ARRAY(T, m, n, dec) { .dst = RP_DST_NEST,		\
	.off = offsetof(T, m), .size = sizeof(*RP_MEMBER(T, m)),	\
	.count_off = offsetof(T, n), .nest = &(dec) }
/* The val[] array of a struct indexed by attribute type. */
#define RP_VAL(T, m) { .dst = RP_DST_OF(RP_MEMBER(T, m)[0]),		\
	.off = offsetof(T, m), .size = sizeof(RP_MEMBER(T, m)[0]) }

#define RP_DECODER(T, spec_set, map, ...) {				\
	.what = #T, .set = &(spec_set), .fields = (map),		\
	.nfields = sizeof(map) / sizeof((map)[0]), .size = sizeof(T),	\
	__VA_ARGS__ }

/*
 * Fills obj (zeroed first) from the attributes of nest. On failure obj is
 * released and zeroed. 0 or -EINVAL / -ENOMEM.
 */
int rp_decode(const struct rp_decoder *dec, const struct nlattr *nest,
	      void *obj);
/* Frees obj's arrays (nested ones too) and zeroes it. */
void rp_decode_release(const struct rp_decoder *dec, void *obj);

/* u8, u16, u32 or u64. */
bool rp_spec_is_number(enum rp_spec_type t);

/* The field that decodes attribute type, or NULL when it is skipped. */
const struct rp_field *rp_decoder_field(const struct rp_decoder *dec,
					int type, struct rp_field *tmp);

#endif /* ROCEPATH_SPEC_DECODE_H */
