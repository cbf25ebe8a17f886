/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Switch ECMP hash models (Documentation/planner.rst, "Hash model"): CRCs written from
 * their definitions, XOR16 and measured sport tables.
 */
#ifndef ROCEPATH_PLAN_HASH_H
#define ROCEPATH_PLAN_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"

enum rp_hash_alg {
	RP_HASH_CRC16_CCITT,	/* CRC-16/CCITT-FALSE */
	RP_HASH_CRC32,		/* CRC-32/ISO-HDLC */
	RP_HASH_CRC32C,		/* CRC-32/ISCSI (Castagnoli) */
	RP_HASH_XOR16,		/* XOR of big-endian 16-bit words */
	RP_HASH_TABLE,		/* measured: sport -> member */
	RP_HASH_MEASURED,	/* learnt by probing from the hosts (no model) */
};

enum rp_hash_sel { RP_SEL_FULL, RP_SEL_LO16, RP_SEL_HI16 };

enum rp_hash_field {
	RP_F_SRC_IP, RP_F_DST_IP, RP_F_PROTOCOL, RP_F_SRC_PORT, RP_F_DST_PORT,
};

#define RP_HASH_MAX_FIELDS	16

struct rp_hash_model {
	enum rp_hash_alg alg;
	enum rp_hash_sel sel;
	uint32_t seed;
	unsigned int nfields;
	enum rp_hash_field fields[RP_HASH_MAX_FIELDS];
	int32_t *table;		/* RP_HASH_TABLE: 65536 entries, -1 = absent */
	/* RP_HASH_MEASURED behaves as a table without entries in the models */
};

uint16_t rp_crc16_ccitt(const void *buf, size_t len);
uint32_t rp_crc32(const void *buf, size_t len);
uint32_t rp_crc32c(const void *buf, size_t len);
uint16_t rp_xor16(const void *buf, size_t len);

/* Parses "crc32" etc.; -EINVAL when unknown. */
int rp_hash_alg_parse(const char *s, enum rp_hash_alg *alg);
int rp_hash_sel_parse(const char *s, enum rp_hash_sel *sel);
int rp_hash_field_parse(const char *s, enum rp_hash_field *f);
const char *rp_hash_alg_name(enum rp_hash_alg alg);

/*
 * Builds the hash input (seed, then the fields) into buf (>= 4 + 16 * 16
 * bytes) and returns its length.
 */
size_t rp_hash_input(const struct rp_hash_model *m, const struct rp_addr *src,
		     const struct rp_addr *dst, uint16_t sport, uint8_t *buf);

/*
 * The selected hash value for a packet of the flow, or -1 when the model is
 * a table without an entry for sport.
 */
int64_t rp_hash_value(const struct rp_hash_model *m, const struct rp_addr *src,
		      const struct rp_addr *dst, uint16_t sport);

/* ECMP member (0..group-1), or -1 as above. group must be > 0. */
int rp_hash_member(const struct rp_hash_model *m, const struct rp_addr *src,
		   const struct rp_addr *dst, uint16_t sport,
		   unsigned int group);

/*
 * Fast path for port searches: fixed src/dst, varying sport. Prepare once,
 * then rp_hash_ctx_member() per port.
 *
 * CRCs and XOR16 are affine over GF(2): for inputs of one length,
 * H(a ^ b) = H(a) ^ H(b) ^ H(0). So H(input with sport s) is H(input with
 * sport 0) XOR a contribution of s's two bytes that depends only on the
 * algorithm and how many bytes follow each: two 256-entry table look-ups
 * per port instead of hashing the whole input. The tables are shared
 * through a struct rp_hash_lin cache (zeroed before first use).
 */
#define RP_HASH_MAX_INPUT	(4 + RP_HASH_MAX_FIELDS * 16)

struct rp_hash_lin {
	/* [alg][bytes after the byte] -> contribution of each byte value */
	uint32_t *t[RP_HASH_XOR16][RP_HASH_MAX_INPUT];
};
void rp_hash_lin_free(struct rp_hash_lin *l);

struct rp_hash_ctx {
	const struct rp_hash_model *m;
	uint8_t buf[RP_HASH_MAX_INPUT];
	size_t len;
	size_t sport_off[RP_HASH_MAX_FIELDS];
	unsigned int nsport;
	/* affine form, when lin is set: value = base ^ contributions */
	bool lin;
	uint32_t base;
	const uint32_t *thi[RP_HASH_MAX_FIELDS], *tlo[RP_HASH_MAX_FIELDS];
	uint32_t xhi[RP_HASH_MAX_FIELDS];	/* XOR16: shift of each byte */
	uint32_t xlo[RP_HASH_MAX_FIELDS];
};
/*
 * lin may be NULL (every port then hashes the whole input, as it does for
 * measured tables); a table that cannot be allocated falls back the same.
 */
void rp_hash_ctx_init(struct rp_hash_ctx *c, const struct rp_hash_model *m,
		      const struct rp_addr *src, const struct rp_addr *dst,
		      struct rp_hash_lin *lin);
/*
 * rp_hash_ctx_init() from like, a context of the same addresses whose
 * model m differs from at most in seed and select (NULL, or another
 * model: the full init). The inputs then differ only in the seed's four
 * bytes, so the base moves by their linear part: four table look-ups
 * instead of hashing the whole input.
 */
void rp_hash_ctx_init_like(struct rp_hash_ctx *c,
			   const struct rp_hash_model *m,
			   const struct rp_addr *src, const struct rp_addr *dst,
			   struct rp_hash_lin *lin,
			   const struct rp_hash_ctx *like);
int rp_hash_ctx_member(struct rp_hash_ctx *c, uint16_t sport,
		       unsigned int group);
/*
 * Solving instead of searching: for a linear context (CRCs, XOR16) and a
 * power-of-two group, the member of port0 ^ x (x < 2^nbits) is
 * m0 ^ XOR of col[j] over the bits j set in x, since the selected value
 * is affine in the port and the member is its low bits. Returns log2 of
 * the group, or -1 when the hop is not of that kind (tables, other group
 * sizes).
 */
int rp_hash_ctx_lin(const struct rp_hash_ctx *c, uint16_t port0,
		    unsigned int nbits, unsigned int group, uint32_t *m0,
		    uint32_t *col);

/* Linux: rdma_flow_label_to_udp_sport(rdma_calc_flow_label(lqpn, rqpn)). */
uint16_t rp_qpn_sport(uint32_t lqpn, uint32_t rqpn);

#endif /* ROCEPATH_PLAN_HASH_H */
