// SPDX-License-Identifier: GPL-2.0
/*
 * rocepath pin add remote ADDR sport PORT[,PORT...] [dev IBDEV] [rqpn N] [lqpn N]
 * rocepath pin del remote ADDR [dev IBDEV] [rqpn N] [lqpn N]
 * rocepath pin show | flush | replace file PINS.json
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rp_netlink.h"
#include "parse.h"
#include "pins.h"

#define MAX_CLI_SPORTS	(ROCEPATH_SPORT_MAX - ROCEPATH_SPORT_MIN + 1)

static const char *errno_hint(int ret)
{
	switch (ret) {
	case -EINVAL:
		return "invalid value";
	case -ERANGE:
		return "out of range";
	case -EEXIST:
		return "port listed twice";
	default:
		return strerror(-ret);
	}
}

/*
 * Parses the keyword arguments of add (with_sports) and del into *p.
 * Everything is checked before anything is sent.
 */
static int parse_pin(int argc, char **argv, const char *cmd, bool with_sports,
		     struct rp_pin *p)
{
	static uint16_t ports[MAX_CLI_SPORTS];
	bool have_remote = false;
	size_t n = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	while (argc > 0) {
		const char *kw = argv[0], *val = argc > 1 ? argv[1] : NULL;
		uint32_t x;

		if (!strcmp(kw, "remote")) {
			if (have_remote)
				return cli_dup("remote");
			if (!val)
				return cli_missing("remote");
			if (rp_addr_parse(val, &p->remote))
				return rp_error("remote: \"%s\" is not an IPv4 or IPv6 address",
						val);
			have_remote = true;
			RP_SET(p, ROCEPATH_A_PIN_REMOTE);
		} else if (with_sports && (!strcmp(kw, "sport") ||
					   !strcmp(kw, "sports"))) {
			if (n)
				return cli_dup("sport");
			if (!val)
				return cli_missing("sport");
			ret = rp_parse_sports(val, ports, MAX_CLI_SPORTS, &n);
			if (ret)
				return rp_error("sport: \"%s\": %s (ports are %d..%d, comma separated)",
						val, errno_hint(ret),
						ROCEPATH_SPORT_MIN,
						ROCEPATH_SPORT_MAX);
		} else if (!strcmp(kw, "dev")) {
			ret = cli_ibdev_arg(val, p->ibdev);
			if (ret)
				return ret;
			RP_SET(p, ROCEPATH_A_PIN_IBDEV);
		} else if (!strcmp(kw, "rqpn") || !strcmp(kw, "lqpn")) {
			int attr = kw[0] == 'r' ? ROCEPATH_A_PIN_RQPN :
						  ROCEPATH_A_PIN_LQPN;

			if (RP_HAS(p, attr))
				return cli_dup(kw);
			if (!val)
				return cli_missing(kw);
			ret = rp_parse_u32(val, ROCEPATH_QPN_MAX, &x);
			if (ret)
				return rp_error("%s: \"%s\" is not a QP number (0..%d)",
						kw, val, ROCEPATH_QPN_MAX);
			if (attr == ROCEPATH_A_PIN_RQPN)
				p->rqpn = x;
			else
				p->lqpn = x;
			RP_SET(p, attr);
		} else {
			return cli_unknown(cmd, kw);
		}
		argc -= 2;
		argv += 2;
	}
	if (!have_remote)
		return rp_error("%s: remote ADDR is required", cmd);
	if (with_sports && !n)
		return rp_error("%s: sport PORT[,PORT...] is required", cmd);
	if (n && rp_pin_set_sports(p, ports, n))
		return rp_error_ret(-ENOMEM, "%s: out of memory", cmd);
	return 0;
}

static int pin_change(int argc, char **argv, const struct rp_cli *cli,
		      bool add)
{
	const char *cmd = add ? "pin add" : "pin del";
	struct rp_nl *nl;
	struct rp_pin p;
	int ret;

	ret = parse_pin(argc, argv, cmd, add, &p);
	if (ret)
		goto out;
	ret = cli_nl_open(cli, &nl);
	if (ret)
		goto out;
	ret = add ? rp_pin_add(nl, &p, NULL) : rp_pin_del(nl, &p, NULL);
	if (ret)
		cli_nl_err(nl, ret, cmd);
	rp_nl_close(nl);
out:
	rp_pin_release(&p);
	return ret;
}

/* Pins are not per device: the dump takes no filter. */
static int pin_dump(struct rp_nl *nl, const char *ibdev, struct rp_pins *set)
{
	(void)ibdev;
	return rp_pin_dump(nl, set);
}

CLI_DUMP_PRINT(pin_dump_print, struct rp_pins, pin_dump, rp_pin_print, rp_pins_free)

static int pin_show(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_show show = {
		.cmd = "pin show", .dump_print = pin_dump_print,
	};

	return cli_show(&show, argc, argv, cli);
}

static int flush_all(struct rp_nl *nl, const char *ibdev)
{
	(void)ibdev;
	return rp_pin_flush(nl, NULL);
}

static int pin_flush(int argc, char **argv, const struct rp_cli *cli)
{
	return cli_do("pin flush", false, flush_all, argc, argv, cli);
}

static int pin_replace(int argc, char **argv, const struct rp_cli *cli)
{
	struct rp_pins pins = { 0 };
	const char *file = NULL;
	char err[512];
	struct rp_nl *nl;
	int ret;

	while (argc > 0) {
		if (!strcmp(argv[0], "file")) {
			if (file)
				return cli_dup("file");
			if (argc < 2)
				return cli_missing("file");
			file = argv[1];
		} else {
			return cli_unknown("pin replace", argv[0]);
		}
		argc -= 2;
		argv += 2;
	}
	if (!file)
		return rp_error("pin replace: file PINS.json is required");
	ret = rp_pins_load(file, &pins, err, sizeof(err));
	if (ret)
		return rp_error_ret(ret, "%s", err);
	ret = cli_nl_open(cli, &nl);
	if (ret)
		goto out;
	ret = rp_pin_replace(nl, pins.v, pins.n, NULL, NULL);
	if (ret)
		cli_nl_err(nl, ret, "pin replace");
	rp_nl_close(nl);
out:
	rp_pins_free(&pins);
	return ret;
}

static void pin_usage(void)
{
	printf("Usage: rocepath pin add remote ADDR sport PORT[,PORT...] [dev IBDEV] [rqpn N] [lqpn N]\n"
	       "       rocepath pin del remote ADDR [dev IBDEV] [rqpn N] [lqpn N]\n"
	       "       rocepath pin show\n"
	       "       rocepath pin flush\n"
	       "       rocepath pin replace file PINS.json\n"
	       "ADDR := IPv4 or IPv6 address; PORT := %d..%d\n",
	       ROCEPATH_SPORT_MIN, ROCEPATH_SPORT_MAX);
}

static int pin_add(int argc, char **argv, const struct rp_cli *cli)
{
	return pin_change(argc, argv, cli, true);
}

static int pin_del(int argc, char **argv, const struct rp_cli *cli)
{
	return pin_change(argc, argv, cli, false);
}

int cmd_pin(int argc, char **argv, const struct rp_cli *cli)
{
	static const struct cli_verb verbs[] = {
		{ "show", pin_show }, { "list", pin_show }, { "add", pin_add },
		{ "delete", pin_del }, { "flush", pin_flush },
		{ "replace", pin_replace }, { NULL, NULL },
	};

	return cli_dispatch("pin", verbs, pin_usage, argc, argv, cli);
}
