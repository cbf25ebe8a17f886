/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FNV-1a 64 over bytes: the one digest of a file's content, written
 * "fnv1a64:<16 hex digits>". The topology digest a probe file is keyed on
 * (planner), the daemon's input and plan digests and its change poll all
 * use it, so a digest printed by one is comparable with the others.
 */
#ifndef ROCEPATH_DIGEST_H
#define ROCEPATH_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define RP_FNV1A64_INIT 14695981039346656037ull

/*
 * The digest's text: "fnv1a64:" and 16 lowercase hex digits. RP_DIGEST_FMT
 * takes an unsigned long long, for a line of several digests; RP_DIGEST_LEN
 * is the text's size with its NUL.
 */
#define RP_DIGEST_FMT "fnv1a64:%016llx"
#define RP_DIGEST_LEN 25

/* Continues the digest @h (RP_FNV1A64_INIT to start) over @len bytes. */
uint64_t rp_fnv1a64(uint64_t h, const void *buf, size_t len);
/* Writes @h as its text into @buf, RP_DIGEST_LEN bytes; returns @buf. */
char *rp_digest_fmt(uint64_t h, char *buf);
/*
 * Reads a digest's text, exactly as rp_digest_fmt() writes it (no sign,
 * space, "0x" or upper case), from @s into @h; 0 or -EINVAL.
 */
int rp_digest_parse(const char *s, uint64_t *h);

#endif
