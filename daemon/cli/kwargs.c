// SPDX-License-Identifier: GPL-2.0
/*
 * The "KEY VALUE ..." argument lists of the planner commands (plan,
 * probe): one parser, so every such command refuses a key given twice,
 * a key without a value and a number out of range the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "parse.h"

static const struct cli_kw *kw_find(const struct cli_kw *kw, const char *arg)
{
	for (; kw->name; kw++)
		if (rp_matches(arg, kw->name))
			return kw;
	return NULL;
}

static int kw_store(const char *cmd, const struct cli_kw *k, const char *val)
{
	uint32_t v;

	if (k->list) {
		if (*k->nlist == k->max)
			return rp_error("%s: more than %zu %s arguments", cmd,
					k->max, k->name);
		k->list[(*k->nlist)++] = val;
		return 0;
	}
	if (k->num) {
		if (rp_parse_u32(val, k->hi, &v) || v < k->lo)
			return rp_error("%s: %s \"%s\": not a number in %u..%u",
					cmd, k->name, val, k->lo, k->hi);
		*k->num = v;
		return 0;
	}
	*k->str = val;
	return 0;
}

int cli_kw_parse(const char *cmd, int argc, char **argv,
		 const struct cli_kw *kw, void (*usage)(void))
{
	/* Bit i: kw[i] was given; a command has far fewer than 32 keys. */
	uint32_t seen = 0;

	while (argc > 0) {
		const struct cli_kw *k = kw_find(kw, argv[0]);
		uint32_t bit;
		int ret;

		if (!k && rp_matches(argv[0], "help")) {
			usage();
			return 1;
		}
		if (!k)
			return rp_error("%s: unknown argument \"%s\"", cmd, argv[0]);
		if (argc < 2)
			return rp_error("%s: \"%s\" needs a value", cmd, argv[0]);
		bit = 1u << (k - kw);
		if (!k->list && (seen & bit)) {
			char what[64];

			snprintf(what, sizeof(what), "%s: %s", cmd, k->name);
			return cli_dup(what);
		}
		seen |= bit;
		ret = kw_store(cmd, k, argv[1]);
		if (ret)
			return ret;
		argc -= 2;
		argv += 2;
		/*
		 * A list takes the values up to the next key, so the synopsis
		 * "probes FILE ..." means what it says; repeating the key
		 * ("probes A probes B") works too.
		 */
		for (; k->list && argc > 0 && !kw_find(kw, argv[0]); argc--, argv++) {
			ret = kw_store(cmd, k, argv[0]);
			if (ret)
				return ret;
		}
	}
	return 0;
}
