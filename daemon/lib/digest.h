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

/* Continues the digest @h (RP_FNV1A64_INIT to start) over @len bytes. */
uint64_t rp_fnv1a64(uint64_t h, const void *buf, size_t len);

#endif
