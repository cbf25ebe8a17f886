// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath dcqcn show [dev IBDEV]
 * rocepath dcqcn set dev IBDEV PARAM VALUE [PARAM VALUE ...]
 * PARAM names are mlx5's debugfs cc_params file names plus np_enable and
 * rp_enable; values are unsigned integers in the spec's range for each
 * (checked here and again by the kernel's policy). rp_dcqcn_check()'s
 * rules between parameters are checked here on the values given; the
 * module checks them again with the device's values for the others.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "rp_netlink.h"
#include "parse.h"

static void dcqcn_print(struct rp_out *o, const struct rp_dcqcn *d)
{
	rp_out_open_object(o, NULL);
	rp_out_string(o, "dev", "%s:", d->ibdev);
	for (int a = 0; a <= ROCEPATH_A_DCQCN_MAX; a++) {
		const char *name = rp_dcqcn_name(a);
		char fmt[64];

		if (!name || !RP_HAS(d, a))
			continue;
		snprintf(fmt, sizeof(fmt), " %s %%llu", name);
		rp_out_uint(o, name, fmt, d->val[a]);
	}
	/* Dump-only state, not settable. */
	if (RP_HAS(d, ROCEPATH_A_DCQCN_SOFT))
		rp_out_bool(o, "soft", " soft %s", d->val[ROCEPATH_A_DCQCN_SOFT]);
	if (RP_HAS(d, ROCEPATH_A_DCQCN_FQ_MISSING))
		rp_out_bool(o, "fq_missing", " fq_missing %s",
			    d->val[ROCEPATH_A_DCQCN_FQ_MISSING]);
	rp_out_close_object(o);
	rp_out_nl(o);
}

CLI_DUMP_PRINT(dcqcn_dump_print, struct rp_dcqcns, rp_dcqcn_dump, dcqcn_print,
	       rp_dcqcns_free)

static int dcqcn_show(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_show show = {
		.cmd = "dcqcn show", .by_dev = true, .dump_print = dcqcn_dump_print,
	};

	return cli_show(&show, argc, argv, cli);
}

static int dcqcn_set(int argc, char **argv, const struct rp_cli *cli)
{
	uint32_t given[RP_DCQCN_NPARAMS] = { 0 };
	struct rp_dcqcn d = { 0 };
	uint64_t known = 0;
	struct rp_nl *nl;
	int ret, nparams = 0;
	char why[128];

	while (argc > 0) {
		const char *kw = argv[0], *val = argc > 1 ? argv[1] : NULL;
		const struct rp_dcqcn_param *p;
		uint32_t x;
		int i;

		if (!strcmp(kw, "dev")) {
			ret = cli_ibdev_arg(val, d.ibdev);
			if (ret)
				return ret;
			RP_SET(&d, ROCEPATH_A_DCQCN_IBDEV);
		} else {
			i = rp_dcqcn_param_find(kw);
			if (i < 0)
				return rp_error("dcqcn set: unknown parameter \"%s\", try \"rocepath dcqcn help\"",
						kw);
			p = &rp_dcqcn_params[i];
			if (RP_HAS(&d, p->attr))
				return cli_dup(kw);
			if (!val)
				return cli_missing(kw);
			ret = rp_parse_u32(val, UINT32_MAX, &x);
			if (ret)
				return rp_error("%s: \"%s\" is not an unsigned 32-bit number",
						kw, val);
			/* The spec's range, worded as the kernel's policy rejection. */
			if (x < p->min || x > p->max)
				return rp_error("%s out of range %u..%u", kw, p->min,
						p->max);
			d.val[p->attr] = x;
			RP_SET(&d, p->attr);
			given[i] = x;
			known |= 1ULL << i;
			nparams++;
		}
		argc -= 2;
		argv += 2;
	}
	if (!d.ibdev[0])
		return rp_error("dcqcn set: dev IBDEV is required");
	if (!nparams)
		return rp_error("dcqcn set: at least one PARAM VALUE is required");
	if (rp_dcqcn_check(given, known, why, sizeof(why)))
		return rp_error("dcqcn set: %s", why);
	ret = cli_nl_open(cli, &nl);
	if (ret)
		return ret;
	ret = rp_dcqcn_set(nl, &d);
	if (ret)
		cli_nl_err(nl, ret, "dcqcn set");
	rp_nl_close(nl);
	return ret;
}

static void dcqcn_usage(void)
{
	printf("Usage: rocepath dcqcn show [dev IBDEV]\n"
	       "       rocepath dcqcn set dev IBDEV PARAM VALUE [PARAM VALUE ...]\n"
	       "PARAM :=");
	for (int a = 0, col = 9; a <= ROCEPATH_A_DCQCN_MAX; a++) {
		const char *name = rp_dcqcn_name(a);

		if (!name)
			continue;
		if (col + strlen(name) > 76) {
			printf("\n        ");
			col = 8;
		}
		col += printf(" %s", name);
	}
	printf("\n");
}

int cmd_dcqcn(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_verb verbs[] = {
		{ "show", dcqcn_show }, { "list", dcqcn_show },
		{ "set", dcqcn_set }, { NULL, NULL },
	};

	return cli_dispatch("dcqcn", verbs, dcqcn_usage, argc, argv, cli);
}
