/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strict parsers for user input (CLI arguments, config and pins files).
 * All return 0 or -EINVAL/-ERANGE and never print.
 */
#ifndef ROCEPATH_PARSE_H
#define ROCEPATH_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Decimal (or 0x hex) unsigned integer, whole string, <= max. */
int rp_parse_u32(const char *s, uint32_t max, uint32_t *v);
/* UDP source port, 49152..65535 (ROCEPATH_SPORT_MIN..MAX). */
int rp_parse_sport(const char *s, uint16_t *v);
/*
 * "PORT[,PORT...]": up to max ports, each in range, no duplicates, no
 * empty items. *n gets the count.
 */
int rp_parse_sports(const char *s, uint16_t *ports, size_t max, size_t *n);
/* RDMA device name: 1..63 printable characters without '/' or spaces. */
int rp_parse_ibdev(const char *s);

#endif /* ROCEPATH_PARSE_H */
