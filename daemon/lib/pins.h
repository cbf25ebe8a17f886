/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pins JSON form, shared by `rocepath -j pin show`, the PINS.json file
 * of `rocepath pin replace file` and rocepathd:
 *
 *   [{"dev": "rxe0" | null, "remote": "192.0.2.2",
 *     "sports": [49152, 49153], "rqpn": 17 | null, "lqpn": null}, ...]
 *
 * Loading is strict: the top level must be an array of objects; "remote"
 * and "sports" are required; "dev", "rqpn", "lqpn" may be null or absent;
 * "sport_qps" (printed by pin show) is accepted and ignored; any other key
 * is an error, as are out-of-range ports or QPNs, duplicate ports within
 * a rule and two rules with the same key (dev, remote, rqpn, lqpn).
 */
#ifndef ROCEPATH_PINS_H
#define ROCEPATH_PINS_H

#include <stddef.h>

#include "objs.h"

struct json_object;
struct rp_out;

/* Emits one pin as an object (text: one line) through the printer. */
void rp_pin_print(struct rp_out *o, const struct rp_pin *p);
/*
 * Emits the rule that pinned a QP, as the key "rule" of the open object:
 * {"dev": "rxe0" | null, "remote": "192.0.2.2", "rqpn": 17 | null,
 * "lqpn": null}, or null when no rule did; text appends
 * " rule [dev D] remote A [rqpn N] [lqpn N]" (nothing when none).
 */
void rp_qp_rule_print(struct rp_out *o, const struct rp_qp *q);
/* The whole set as the JSON array above (NULL on -ENOMEM). */
struct json_object *rp_pins_to_json(const struct rp_pins *pins);

/*
 * Parses the JSON form into *pins (appended; emptied on error). On error
 * err gets "<what>: pin <index>: <reason>" ("what" names the source, e.g.
 * the file name) and the return is -EINVAL (or -ENOMEM).
 */
int rp_pins_from_json(struct json_object *arr, const char *what,
		      struct rp_pins *pins, char *err, size_t errlen);
/* Reads and parses a file ("-" is stdin); errors name the file. */
int rp_pins_load(const char *path, struct rp_pins *pins, char *err,
		 size_t errlen);
/* Writes the set to path atomically (temp file + rename). */
int rp_pins_save(const char *path, const struct rp_pins *pins);

/* Same key (dev, remote, rqpn, lqpn)? */
bool rp_pin_same_key(const struct rp_pin *a, const struct rp_pin *b);

/* Deep copies (sports, sport_qps); -ENOMEM leaves @dst released. */
int rp_pin_copy(struct rp_pin *dst, const struct rp_pin *src);
/* Appends a deep copy of @p. */
int rp_pins_add(struct rp_pins *s, const struct rp_pin *p);
/* Releases every pin, keeps the array for reuse. */
void rp_pins_clear(struct rp_pins *s);
/* @dst becomes a deep copy of @src (generation included). */
int rp_pins_copy(struct rp_pins *dst, const struct rp_pins *src);
/*
 * Sorts the ports of each pin and the pins by key then ports, so that two
 * sets with the same rules compare equal with rp_pins_equal() whatever
 * order a plan or a dump gave them in.
 */
void rp_pins_sort(struct rp_pins *s);
/* Order by key, then ports (sorted); sport_qps and attribute bits do not count. */
int rp_pin_cmp(const struct rp_pin *a, const struct rp_pin *b);
/* Same rules and port sets (both sorted)? */
bool rp_pins_equal(const struct rp_pins *a, const struct rp_pins *b);
/* One line for logs: "192.0.2.2 sport 49153,49154 [dev rxe0] [rqpn N] [lqpn N]". */
void rp_pin_format(const struct rp_pin *p, char *buf, size_t len);

#endif /* ROCEPATH_PINS_H */
