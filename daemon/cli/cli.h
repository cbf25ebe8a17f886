/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepath CLI: global options and the command interface.
 *
 * main() parses the global options, opens the printer and dispatches
 * "rocepath [OPTIONS] OBJECT ..." to the object's function with argv[0]
 * being the first word after OBJECT (argc may be 0: print the default view
 * or usage). A command prints through cli->out and returns 0, or prints
 * one "Error: ..." line via rp_error() and returns non-zero (-errno); main
 * then exits with status 1.
 */
#ifndef ROCEPATH_CLI_H
#define ROCEPATH_CLI_H

#include <stdbool.h>

#include "out.h"

struct rp_cli {
	bool json;		/* -j: one JSON document on stdout */
	bool pretty;		/* -p: indented JSON (implies nothing in text) */
	bool debug;		/* -d/--debug: dump netlink traffic to stderr */
	struct rp_out *out;	/* printer for stdout, text or JSON */
};

typedef int (*rp_cmd_fn)(int argc, char **argv, const struct rp_cli *cli);

int cmd_dev(int argc, char **argv, const struct rp_cli *cli);
int cmd_pin(int argc, char **argv, const struct rp_cli *cli);
int cmd_qp(int argc, char **argv, const struct rp_cli *cli);
int cmd_flow(int argc, char **argv, const struct rp_cli *cli);
int cmd_dcqcn(int argc, char **argv, const struct rp_cli *cli);
int cmd_stats(int argc, char **argv, const struct rp_cli *cli);
int cmd_monitor(int argc, char **argv, const struct rp_cli *cli);
/* daemon/cli/cmd_plan.c (planner); weak so the CLI links without it. */
int cmd_plan(int argc, char **argv, const struct rp_cli *cli)
	__attribute__((weak));

/* daemon/cli/cmd_probe.c: path probing for measured switch hashes. */
int cmd_probe(int argc, char **argv, const struct rp_cli *cli);
/* daemon/cli/cmd_probe_sched.c: the probe budget's slots ("probe schedule"). */
int cmd_probe_schedule(int argc, char **argv, const struct rp_cli *cli);

/* daemon/cli/cmd_place.c: the placement advisor (planner). */
int cmd_place(int argc, char **argv, const struct rp_cli *cli);

/* daemon/cli/cmd_nccl.c: NCCL environment for this host's plan. */
int cmd_nccl_env(int argc, char **argv, const struct rp_cli *cli);

/* iproute2 matches(): true when arg is a non-empty prefix of word. */
bool rp_matches(const char *arg, const char *word);

/*
 * daemon/cli/kwargs.c: one key of a "KEY VALUE ..." argument list. It
 * stores its value as a string (str), a number in lo..hi (num), or, when
 * repeatable, appends it to list (nlist entries so far, at most max). A
 * list key takes one or more values, up to the next argument that is a
 * key ("probes A B host h"), and may be repeated ("probes A probes B").
 * Keys are matched by prefix in table order; the table ends with a NULL
 * name and has fewer than 32 keys.
 */
struct cli_kw {
	const char *name;
	const char **str;
	unsigned int *num;
	unsigned int lo, hi;
	const char **list;
	size_t *nlist;
	size_t max;
};

/*
 * Parses argv against kw for command cmd: 0 when done, 1 after "help"
 * printed usage, -EINVAL (the error printed) for an unknown key, a key
 * without a value, a non-repeatable key given twice, a number out of
 * range or a list that is full.
 */
int cli_kw_parse(const char *cmd, int argc, char **argv,
		 const struct cli_kw *kw, void (*usage)(void));

/* ---- Helpers shared by the cmd_*.c files (rocepath.c) ---- */
struct rp_nl;
struct rp_qp;
struct rp_dev;

/* Opens the family (with --debug tracing); prints the error itself. */
int cli_nl_open(const struct rp_cli *cli, struct rp_nl **nlp);
/*
 * Prints "Error: <extack>." when the kernel gave one, else
 * "Error: <what>: <strerror>."; for EPERM without CAP_NET_ADMIN
 * "Error: <what>: needs CAP_NET_ADMIN (run as root)."; returns ret.
 */
int cli_nl_err(struct rp_nl *nl, int ret, const char *what);
/* The process holds CAP_NET_ADMIN (true when that cannot be read). */
bool cli_net_admin(void);
/* "Error: <what>: missing argument" etc. for the keyword parsers. */
int cli_missing(const char *what);
int cli_unknown(const char *object, const char *arg);
int cli_dup(const char *what);
/* The value of a "dev IBDEV" argument: given once, present, a valid name (copied to ibdev, RP_IBDEV_LEN). */
int cli_ibdev_arg(const char *val, char *ibdev);
/* Parses an optional "dev IBDEV" (the only argument of show commands). */
int cli_dev_filter(int argc, char **argv, const char *cmd, const char **ibdev);

/*
 * Table-driven glue, as iproute2's rdma tool does it: an object is a table
 * of verbs, the first the default (argc == 0); argv[0] picks a verb by
 * prefix in table order, "help" calls usage, anything else is an error.
 */
struct cli_verb {
	const char *name;
	rp_cmd_fn fn;		/* gets the words after the verb */
};
int cli_dispatch(const char *object, const struct cli_verb *verbs,
		 void (*usage)(void), int argc, char **argv,
		 const struct rp_cli *cli);

/*
 * The one show path: takes "[dev IBDEV]" (by_dev) or no argument, opens
 * the family, runs dump_print (which dumps, then prints each object) inside
 * a JSON array (or as one object with single), and names cmd in errors.
 */
struct cli_show {
	const char *cmd;	/* "qp show" */
	bool by_dev;
	bool single;		/* one object, not an array (stats) */
	const char *own;	/* "QPs": without CAP_NET_ADMIN the module
				 * shows only the caller's own (a note on
				 * stderr says so) */
	int (*dump_print)(struct rp_nl *nl, const char *ibdev, struct rp_out *o);
};
int cli_show(const struct cli_show *s, int argc, char **argv,
	     const struct rp_cli *cli);
/* The one change path without output (flow reset, pin flush): same arguments. */
int cli_do(const char *cmd, bool by_dev,
	   int (*fn)(struct rp_nl *nl, const char *ibdev), int argc,
	   char **argv, const struct rp_cli *cli);

/*
 * Defines fn(nl, ibdev, o) for cli_show: dumps into a set_t with dump,
 * prints each element with print, frees the set with release.
 */
#define CLI_DUMP_PRINT(fn, set_t, dump, print, release)			\
static int fn(struct rp_nl *nl, const char *ibdev, struct rp_out *o)	\
{									\
	set_t set = { 0 };						\
	int ret = dump(nl, ibdev, &set);				\
									\
	for (size_t i = 0; !ret && i < set.n; i++)			\
		print(o, &set.v[i]);					\
	release(&set);							\
	return ret;							\
}

/* Object fields for show and monitor (no open/close, no newline). */
void cli_qp_fields(struct rp_out *o, const struct rp_qp *q);
void cli_dev_fields(struct rp_out *o, const struct rp_dev *d);

#endif /* ROCEPATH_CLI_H */
