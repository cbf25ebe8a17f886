// SPDX-License-Identifier: GPL-2.0
/*
 * rocepathd: keeps this host's part of the rocepath plan installed.
 *
 * Reads the topology and placement files named in the config, computes the
 * plan with the shared planner, installs this host's pins with one atomic
 * pin-replace transaction when they differ from what is installed, pushes
 * the DCQCN profile to every RDMA device, and keeps both right through
 * file changes (inotify, a stat poll for NFS and the like, SIGHUP), module reloads, new RDMA devices, event
 * overruns and link flaps. SIGTERM/SIGINT exit leaving the pins in place.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "rpd_config.h"
#include "genl_watch.h"
#include "linkmon.h"
#include "metrics.h"
#include "rpd_log.h"
#include "rp_netlink.h"
#include "reconcile.h"
#include "out.h"
#include "plan_job.h"
#include "sd_notify.h"
#include "statpoll.h"
#include "status.h"
#include "watch.h"

#define RPD_VERSION "0.1"
#define RETRY_MS_MIN 500
#define RETRY_MS_MAX 30000
#define REARM_MS 1000

struct daemon {
	const char *cfg_path;
	bool dry_run;
	bool debug;		/* -d: debug whatever the config says */
	struct rpd_config cfg;
	struct rpd_kernel k;
	struct rpd_backend be;
	struct rpd_reconciler r;
	struct rpd_watch w;
	struct rpd_statpoll sp;
	struct rpd_genl g;
	bool have_genl;
	struct rpd_linkmon lm;
	struct rpd_metrics mx;
	struct rpd_status_out so;
	struct rpd_plan_job job;	/* the plan running beside the loop */
	struct rpd_reprobe reprobe;	/* links for the next job to probe again */
	bool reload_pending;		/* SIGHUP came while a job ran */
	int sfd;
	bool module;		/* family present, request socket open */
	bool ready;		/* READY=1 sent */
	bool stop;
	bool need_sync, need_dcqcn;
	int64_t t_plan;		/* debounced replan deadline (0: none) */
	int64_t t_change;	/* first file event of the pending change */
	int64_t t_retry;	/* kernel work retry deadline */
	int64_t t_rearm;	/* missing watch directory retry */
	int64_t t_resync;	/* periodic pin check */
	int64_t t_metrics;	/* next metrics file / QP check */
	int64_t t_poll;		/* next stat poll of the files (0: off) */
	int backoff_ms;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: rocepathd [-c FILE] [-n] [-t] [-s] [-d] [-V] [-h]\n"
		"  -c, --config FILE  configuration (default " RPD_CONFIG_DEFAULT ")\n"
		"  -n, --dry-run      plan and log, never touch the kernel\n"
		"  -t, --check        check the config and plan once, print this host's\n"
		"                     pins, exit (0: good, 1: bad)\n"
		"  -s, --status       print what the running daemon plans with (its\n"
		"                     status file), exit (0: running, 1: not)\n"
		"  -d, --debug        log level debug (overrides the config)\n"
		"  -V, --version      print the version\n"
		"  -h, --help         this help\n"
		"Signals: HUP reloads the config and files, TERM/INT exit (pins stay).\n");
}

static void status(struct daemon *d)
{
	if (!d->r.have_desired)
		rpd_sd_notifyf("STATUS=waiting for a valid plan: %s",
			       d->r.last_error[0] ? d->r.last_error : "planning");
	else if (!d->module && !d->dry_run)
		rpd_sd_notifyf("STATUS=waiting for the rocepath module (%zu pins planned)",
			       d->r.desired.n);
	else if (d->r.last_error[0])
		rpd_sd_notifyf("STATUS=%zu pins, generation %u, plan " RP_DIGEST_FMT "; last error: %s",
			       d->r.desired.n, d->r.installed_gen,
			       (unsigned long long)d->k.plan_info.plan,
			       d->r.last_error);
	else
		rpd_sd_notifyf("STATUS=%zu pins installed, generation %u, plan " RP_DIGEST_FMT,
			       d->r.desired.n, d->r.installed_gen,
			       (unsigned long long)d->k.plan_info.plan);
}

static void module_close(struct daemon *d)
{
	if (d->k.nl)
		rp_nl_close(d->k.nl);
	d->k.nl = NULL;
	if (d->have_genl)
		rpd_genl_mon_close(&d->g);
	d->module = false;
}

/* Open the request and monitor sockets; false while the module is absent. */
static bool module_open(struct daemon *d)
{
	int ret;

	if (d->dry_run)
		return d->module = true;
	if (d->module)
		return true;
	ret = rp_nl_open(&d->k.nl);
	if (ret) {
		d->k.nl = NULL;
		if (ret != -ENOENT)
			rpd_err("rocepath family: %s", strerror(-ret));
		return false;
	}
	if (d->have_genl && rpd_genl_mon_open(&d->g))
		rpd_warn("not following the monitor group; relying on periodic resync");
	d->module = true;
	rpd_info("rocepath module present (family id %u)", rp_nl_family_id(d->k.nl));
	return true;
}

static void update_linkmon(struct daemon *d)
{
	const char *nd[RPD_LINKMON_MAX], *ib[RPD_LINKMON_MAX];
	size_t n = 0;

	if (!d->lm.mngr)
		return;
	for (size_t i = 0; i < d->r.devs.n && n < RPD_LINKMON_MAX; i++) {
		nd[n] = d->r.devs.v[i].netdev;
		ib[n++] = d->r.devs.v[i].ibdev;
	}
	rpd_linkmon_set(&d->lm, nd, ib, n);
}

static void schedule_retry(struct daemon *d, int64_t now)
{
	d->backoff_ms = d->backoff_ms ? d->backoff_ms * 2 : RETRY_MS_MIN;
	if (d->backoff_ms > RETRY_MS_MAX)
		d->backoff_ms = RETRY_MS_MAX;
	d->t_retry = now + d->backoff_ms;
	rpd_dbg("retrying in %d ms", d->backoff_ms);
}

static void kernel_work(struct daemon *d, int64_t now)
{
	int ret;

	if (!module_open(d))
		return;	/* the nlctrl watch wakes us up when it appears */
	if (d->need_dcqcn) {
		ret = rpd_rec_dcqcn(&d->r);
		update_linkmon(d);
		d->need_dcqcn = false;
		/*
		 * A value the module rejects is a config problem: retrying will
		 * not help (SIGHUP after fixing it does). Anything else (a device
		 * going away under us, ENOMEM, a dump race) is retried. Pins are
		 * synced either way.
		 */
		if (ret < 0 && ret != -EINVAL && ret != -ERANGE &&
		    ret != -EOPNOTSUPP && ret != -EPERM) {
			d->need_dcqcn = true;
			schedule_retry(d, now);
		}
	}
	if (d->need_sync) {
		ret = rpd_rec_sync(&d->r);
		if (ret < 0) {
			if (ret == -ENOENT || ret == -ENODEV)
				module_close(d);
			else
				schedule_retry(d, now);
			status(d);
			return;
		}
		d->need_sync = false;
		/* a resync while the change is still being planned says nothing */
		if (d->t_change && d->r.have_desired && !d->t_plan &&
		    !d->job.running) {
			int64_t dt = now_ms() - d->t_change;

			if (ret > 0)
				rpd_info("file change applied: pins installed %lld ms after the first file event (debounce %d ms)",
					 (long long)dt, d->cfg.debounce_ms);
			else
				rpd_info("file change gave the installed pins; nothing pushed (%lld ms)",
					 (long long)dt);
		}
		if (!d->t_plan && !d->job.running)
			d->t_change = 0;
		if (d->r.have_desired) {
			d->backoff_ms = 0;
			if (!d->ready) {
				rpd_sd_notify("READY=1");
				d->ready = true;
				rpd_info("ready: %zu pins in place", d->r.desired.n);
			}
		}
	}
	status(d);
}

/*
 * A dry run on a real host must not overwrite the real daemon's status:
 * it writes only a status file its config names.
 */
static const char *status_path(const struct daemon *d)
{
	const char *p = d->cfg.status_file;

	return d->dry_run && p && !strcmp(p, RPD_STATUS_FILE_DEFAULT) ? NULL : p;
}

/* netdev's flows are to be probed anew, on r; said when r is full. */
static void reprobe_note(struct rpd_reprobe *r, const char *netdev)
{
	if (rpd_reprobe_add(r, netdev))
		rpd_warn("link %s: too many links to probe again; its cached answers stay",
			 netdev);
}

/* The plan's result, on the loop's side: applied, counted, announced. */
static void plan_done(struct daemon *d, struct rpd_plan_out *out)
{
	int ret = rpd_rec_apply(&d->r, out);

	/*
	 * Planning a large cluster peaks at tens of MiB that are freed right
	 * after; hand them back so the resident size stays small between plans.
	 */
	malloc_trim(0);
	rpd_metrics_note_plan(&d->mx, ret);
	rpd_status_note(&d->so, status_path(d), &d->r, &d->k.plan_info,
			ret >= 0);
	if (ret >= 0) {
		const struct rpd_plan_info *in = &d->k.plan_info;

		/* the fleet's audit trail: what every host planned, and from what */
		rpd_info("plan " RP_DIGEST_FMT " from input " RP_DIGEST_FMT
			 " (topology " RP_DIGEST_FMT ", placement " RP_DIGEST_FMT
			 ", probes " RP_DIGEST_FMT ")",
			 (unsigned long long)in->plan, (unsigned long long)in->input,
			 (unsigned long long)in->topology,
			 (unsigned long long)in->placement,
			 (unsigned long long)in->probes);
		d->need_sync = true;
		/* the metrics file shows the new digests now, not a period later */
		if (d->t_metrics)
			d->t_metrics = now_ms();
	}
	else
		d->t_change = 0;
	status(d);
}

/*
 * Plans on the job's thread; the loop goes on and plan_finished() applies
 * the result. Without a thread (out of resources) the plan runs here.
 */
static void do_plan(struct daemon *d)
{
	int ret;

	/*
	 * The poll's baseline is what is about to be read: a change the plan
	 * already sees is not polled again, one after it is.
	 */
	if (d->t_poll)
		rpd_statpoll_check(&d->sp);
	/* the job's thread owns the re-plan state from here until it is joined */
	for (size_t i = 0; i < d->reprobe.n; i++)
		reprobe_note(&d->k.replan.reprobe, d->reprobe.netdev[i]);
	d->reprobe.n = 0;
	ret = rpd_plan_job_start(&d->job, &d->r);
	if (!ret)
		return;
	rpd_warn("cannot plan beside the event loop (%s): planning in it",
		 strerror(-ret));
	rpd_rec_plan(&d->r, &d->job.out);
	plan_done(d, &d->job.out);
}

static void reload(struct daemon *d, int64_t now);

/* The job's eventfd fired: join it, then apply, or honour a SIGHUP. */
static void plan_finished(struct daemon *d, int64_t now)
{
	struct rpd_plan_out *out = rpd_plan_job_join(&d->job);

	if (!out)
		return;
	if (out->ret == -ECANCELED) {
		rp_pins_free(&out->pins);
		rpd_info("plan cancelled before its probing ended%s",
			 d->reload_pending ? ": reloading" : "");
	} else {
		plan_done(d, out);
	}
	if (d->reload_pending) {
		d->reload_pending = false;
		reload(d, now);
	}
}

static int watch_files(struct daemon *d, int64_t now)
{
	const char *paths[2] = { d->cfg.topology, d->cfg.placement };
	int ret = rpd_watch_set(&d->w, paths, 2);

	if (ret < 0) {
		rpd_err("watch: %s", strerror(-ret));
		return ret;
	}
	d->t_rearm = ret ? now + REARM_MS : 0;
	ret = rpd_statpoll_set(&d->sp, paths, 2, d->cfg.poll_ms);
	if (ret < 0) {
		rpd_err("poll: %s", strerror(-ret));
		return ret;
	}
	d->t_poll = d->cfg.poll_ms ? now + d->cfg.poll_ms : 0;
	return 0;
}

/* A file event (inotify or poll): re-plan once the files are quiet. */
static void files_changed(struct daemon *d, int64_t now)
{
	if (!d->t_change)
		d->t_change = now;
	d->t_plan = now + d->cfg.debounce_ms;
}

/*
 * A RoCE link came up: resync the pins, and when the plan probes, plan
 * again once things are quiet, probing that link's flows anew: it may
 * reach the fabric through other switch ports now.
 */
static void links_came_up(struct daemon *d, int64_t now)
{
	d->need_sync = true;
	if (!d->k.plan_info.probed)
		return;
	for (size_t i = 0; i < d->lm.n; i++)
		if (d->lm.l[i].came_up)
			reprobe_note(&d->reprobe, d->lm.l[i].netdev);
	if (!d->t_plan)
		d->t_plan = now + d->cfg.debounce_ms;
}

static void poll_files(struct daemon *d, int64_t now)
{
	int ch = rpd_statpoll_check(&d->sp);

	d->t_poll = now + d->cfg.poll_ms;
	if (ch <= 0)
		return;
	/* inotify saw it too, unless the write came from another NFS client */
	rpd_log(d->t_plan ? RPD_LOG_DEBUG : RPD_LOG_INFO,
		"poll: %s%s%s changed", ch & 1 ? d->cfg.topology : "",
		ch == 3 ? " and " : "", ch & 2 ? d->cfg.placement : "");
	files_changed(d, now);
}

static void reload(struct daemon *d, int64_t now)
{
	struct rpd_config nc;
	char err[1024];
	int ret;

	/* the job reads d->cfg: end its probing, reload once it is joined */
	if (d->job.running) {
		d->reload_pending = true;
		rpd_plan_job_cancel(&d->job);
		return;
	}
	ret = rpd_config_load(d->cfg_path, &nc, err, sizeof(err));
	if (!ret) {
		ret = rpd_budget_check(&nc, err, sizeof(err));
		if (ret)
			rpd_config_free(&nc);
	}
	if (ret) {
		rpd_err("reload: %s; keeping the running configuration", err);
		rpd_metrics_note_reload(&d->mx, false);
		return;
	}
	rpd_config_free(&d->cfg);
	d->cfg = nc;	/* the reconciler points at d->cfg */
	rpd_log_set_level(d->debug ? RPD_LOG_DEBUG : d->cfg.log_level);
	rpd_info("reload: %s (topology %s, placement %s, host %s)", d->cfg_path,
		 d->cfg.topology, d->cfg.placement, d->cfg.host);
	watch_files(d, now);
	d->t_resync = d->cfg.resync_s ? now + d->cfg.resync_s * 1000LL : 0;
	d->t_metrics = d->cfg.metrics_interval_s ? now : 0;
	rpd_metrics_note_reload(&d->mx, true);
	d->t_change = now;
	do_plan(d);
	d->need_dcqcn = true;
	d->need_sync = true;
}

static void on_signal(struct daemon *d, int64_t now)
{
	struct signalfd_siginfo si;

	while (read(d->sfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			rpd_info("SIGHUP: reloading");
			reload(d, now);
			break;
		case SIGTERM:
		case SIGINT:
			rpd_info("SIG%s: exiting; the installed pins stay in place",
				 sigabbrev_np(si.ssi_signo));
			d->stop = true;
			break;
		}
	}
}

static void on_genl_ctrl(struct daemon *d)
{
	int ev = rpd_genl_ctrl_read(&d->g);

	if (ev < 0) {
		rpd_err("nlctrl watch: %s", strerror(-ev));
		return;
	}
	if (ev & RPD_EV_FAMILY_DEL) {
		rpd_warn("rocepath module unloaded: its pins went with it; waiting for it to return");
		module_close(d);
		status(d);
	}
	if (ev & (RPD_EV_FAMILY_NEW | RPD_EV_RESYNC)) {
		if (ev & RPD_EV_FAMILY_NEW)
			rpd_info("rocepath module (re)loaded: re-pushing pins and DCQCN");
		module_close(d);
		d->need_sync = d->need_dcqcn = true;
		d->t_retry = 0;
		d->backoff_ms = 0;
	}
}

static void on_genl_mon(struct daemon *d)
{
	int ev = rpd_genl_mon_read(&d->g);

	if (ev < 0) {
		rpd_err("monitor: %s", strerror(-ev));
		return;
	}
	if (ev & (RPD_EV_DEV_ADD | RPD_EV_RESYNC))
		d->need_dcqcn = d->need_sync = true;
	if ((ev & RPD_EV_PINS) && d->g.pins_gen != d->r.installed_gen &&
	    d->r.have_desired) {
		rpd_info("pin set changed outside rocepathd (generation %u): reconciling",
			 d->g.pins_gen);
		d->need_sync = true;
	}
	if (ev & RPD_EV_DEV_DEL)
		d->need_dcqcn = true;	/* refresh the device/link list */
}

static int setup_signals(struct daemon *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	d->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return d->sfd < 0 ? -errno : 0;
}

static int check_once(struct daemon *d)
{
	char summary[512] = "", err[1024] = "", buf[512];
	struct rp_pins pins = { 0 };
	struct rpd_plan_info in;
	int ret;

	memset(&in, 0, sizeof(in));
	ret = rpd_plan_files_sum(&d->cfg, NULL, &pins, &in, summary,
				 sizeof(summary), err, sizeof(err));
	if (ret) {
		fprintf(stderr, "Error: %s.\n", err[0] ? err : strerror(-ret));
		rp_pins_free(&pins);
		return 1;
	}
	rp_pins_sort(&pins);
	printf("host %s: %zu pins (%s)\n", d->cfg.host, pins.n, summary);
	printf("digest plan " RP_DIGEST_FMT " input " RP_DIGEST_FMT
	       " topology " RP_DIGEST_FMT " placement " RP_DIGEST_FMT
	       " probes " RP_DIGEST_FMT "\n",
	       (unsigned long long)in.plan, (unsigned long long)in.input,
	       (unsigned long long)in.topology, (unsigned long long)in.placement,
	       (unsigned long long)in.probes);
	for (size_t i = 0; i < pins.n; i++) {
		rp_pin_format(&pins.v[i], buf, sizeof(buf));
		printf("pin %s\n", buf);
	}
	rp_pins_free(&pins);
	return 0;
}

/* --status: the running daemon's status file, as `rocepath stats` shows it. */
static int status_once(const struct rpd_config *cfg)
{
	struct rp_out *o;
	struct rpd_status st;
	char err[1200];
	bool running;
	int ret;

	if (!cfg->status_file) {
		fprintf(stderr, "Error: %s: key 'status_file' is null: the daemon writes no status.\n",
			cfg->path);
		return 1;
	}
	ret = rpd_status_read(cfg->status_file, &st, err, sizeof(err));
	if (ret && ret != -ENOENT) {
		fprintf(stderr, "Error: %s.\n", err);
		return 1;
	}
	running = !ret && rpd_status_running(&st);
	o = rp_out_new(stdout, false, false);
	if (!o)
		return 1;
	rpd_status_print(o, cfg->status_file, ret ? NULL : &st, running);
	rp_out_free(o);
	if (!running) {
		fprintf(stderr, "Error: rocepathd is not running%s.\n",
			ret ? "" : ": the status above is from its last plan");
		return 1;
	}
	return 0;
}

static void add_fd(struct pollfd *p, int *n, int fd)
{
	if (fd < 0)
		return;
	p[*n].fd = fd;
	p[*n].events = POLLIN;
	p[*n].revents = 0;
	(*n)++;
}

static int run(struct daemon *d)
{
	int64_t now = now_ms();

	/* before the plan's thread: it inherits the blocked signals */
	if (setup_signals(d)) {
		rpd_err("signals: %s", strerror(errno));
		return 1;
	}
	if (rpd_plan_job_init(&d->job)) {
		rpd_err("eventfd: %s", strerror(errno));
		return 1;
	}
	d->k.replan.cancel = &d->job.cancel;
	if (rpd_watch_open(&d->w)) {
		rpd_err("inotify: %s", strerror(errno));
		return 1;
	}
	if (watch_files(d, now))
		return 1;
	if (!d->dry_run) {
		int ret = rpd_genl_open(&d->g);

		d->have_genl = !ret;
		if (ret)
			rpd_warn("cannot watch nlctrl (%s); polling for the module instead",
				 strerror(-ret));
		if (rpd_linkmon_open(&d->lm))
			rpd_warn("link monitor disabled");
	}
	rpd_info("rocepathd " RPD_VERSION " starting: config %s, host %s, topology %s, placement %s%s",
		 d->cfg.path, d->cfg.host, d->cfg.topology, d->cfg.placement,
		 d->dry_run ? " (dry run)" : "");
	if (!d->dry_run && !module_open(d))
		rpd_warn("rocepath module not loaded; waiting for its generic netlink family");

	d->t_change = 0;
	do_plan(d);
	d->need_dcqcn = true;
	d->t_resync = d->cfg.resync_s ? now + d->cfg.resync_s * 1000LL : 0;
	d->t_metrics = d->cfg.metrics_interval_s ? now : 0;

	while (!d->stop) {
		struct pollfd pfd[7];
		int64_t next = -1, deadlines[6];
		int n = 0, timeout, ifd, cfd, mfd, lfd, jfd;

		now = now_ms();
		/* a change during a job is planned once the job is joined */
		if (d->t_plan && now >= d->t_plan && !d->job.running) {
			d->t_plan = 0;
			do_plan(d);
		}
		if (d->t_poll && now >= d->t_poll)
			poll_files(d, now);
		if (d->t_rearm && now >= d->t_rearm) {
			if (rpd_watch_rearm(&d->w)) {
				d->t_rearm = now + REARM_MS;
			} else {
				d->t_rearm = 0;
				/* The files may have appeared meanwhile. */
				d->t_plan = now;
			}
		}
		if (d->t_resync && now >= d->t_resync) {
			d->t_resync = now + d->cfg.resync_s * 1000LL;
			d->need_sync = true;
			if (!d->have_genl)
				d->need_dcqcn = true;	/* no event source */
		}
		if (d->t_retry && now >= d->t_retry)
			d->t_retry = 0;
		if (d->t_metrics && now >= d->t_metrics) {
			d->t_metrics = now + d->cfg.metrics_interval_s * 1000LL;
			rpd_metrics_tick(&d->mx, d->cfg.metrics_path,
					 d->dry_run ? NULL : d->k.nl, &d->r,
					 &d->k.plan_info);
		}
		if ((d->need_sync || d->need_dcqcn) && !d->t_retry)
			kernel_work(d, now);
		if (!d->module && !d->have_genl && !d->dry_run && !d->t_retry &&
		    (d->need_sync || d->need_dcqcn))
			d->t_retry = now + 2000;	/* poll for the module */

		deadlines[0] = d->job.running ? 0 : d->t_plan;
		deadlines[1] = d->t_rearm;
		deadlines[2] = d->t_resync;
		deadlines[3] = d->t_retry;
		deadlines[4] = d->t_metrics;
		deadlines[5] = d->t_poll;
		for (int i = 0; i < 6; i++)
			if (deadlines[i] && (next < 0 || deadlines[i] < next))
				next = deadlines[i];
		now = now_ms();
		timeout = next < 0 ? -1 : next <= now ? 0 : (int)(next - now);

		add_fd(pfd, &n, d->sfd);
		ifd = d->w.fd;
		add_fd(pfd, &n, ifd);
		cfd = d->have_genl ? rpd_genl_ctrl_fd(&d->g) : -1;
		add_fd(pfd, &n, cfd);
		mfd = d->have_genl ? rpd_genl_mon_fd(&d->g) : -1;
		add_fd(pfd, &n, mfd);
		lfd = rpd_linkmon_fd(&d->lm);
		add_fd(pfd, &n, lfd);
		jfd = d->job.running ? rpd_plan_job_fd(&d->job) : -1;
		add_fd(pfd, &n, jfd);

		if (poll(pfd, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			rpd_err("poll: %s", strerror(errno));
			return 1;
		}
		now = now_ms();
		for (int i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == d->sfd) {
				on_signal(d, now);
			} else if (pfd[i].fd == ifd) {
				int ch = rpd_watch_read(&d->w);

				if (ch > 0) {
					files_changed(d, now);
					if (!d->t_rearm && rpd_watch_rearm(&d->w))
						d->t_rearm = now + REARM_MS;
				}
			} else if (pfd[i].fd == cfd) {
				on_genl_ctrl(d);
			} else if (pfd[i].fd == mfd) {
				on_genl_mon(d);
			} else if (pfd[i].fd == lfd) {
				if (rpd_linkmon_process(&d->lm) > 0)
					links_came_up(d, now);
			} else if (pfd[i].fd == jfd) {
				plan_finished(d, now);
			}
		}
	}
	rpd_sd_notify("STOPPING=1");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "check", no_argument, NULL, 't' },
		{ "status", no_argument, NULL, 's' },
		{ "debug", no_argument, NULL, 'd' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct daemon d = { .cfg_path = RPD_CONFIG_DEFAULT, .sfd = -1 };
	bool check = false, debug = false, show_status = false;
	char err[1024];
	int c, ret;

	rpd_log_init();
	while ((c = getopt_long(argc, argv, "c:ntsdVh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d.cfg_path = optarg;
			break;
		case 'n':
			d.dry_run = true;
			break;
		case 't':
			check = true;
			break;
		case 's':
			show_status = true;
			break;
		case 'd':
			debug = true;
			break;
		case 'V':
			printf("rocepathd " RPD_VERSION "\n");
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "Error: unexpected argument \"%s\".\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (rpd_config_load(d.cfg_path, &d.cfg, err, sizeof(err))) {
		fprintf(stderr, "Error: %s.\n", err);
		return 1;
	}
	if (!check && !show_status && rpd_budget_check(&d.cfg, err, sizeof(err))) {
		fprintf(stderr, "Error: %s.\n", err);
		rpd_config_free(&d.cfg);
		return 1;
	}
	rpd_log_set_level(debug ? RPD_LOG_DEBUG : d.cfg.log_level);
	if (show_status) {
		ret = status_once(&d.cfg);
		rpd_config_free(&d.cfg);
		return ret;
	}
	if (check) {
		ret = check_once(&d);
		rpd_config_free(&d.cfg);
		return ret;
	}

	d.job.efd = -1;
	rpd_kernel_init(&d.k, d.dry_run);
	rpd_backend_init(&d.be, &d.k);
	rpd_rec_init(&d.r, &d.be, &d.cfg);
	rpd_metrics_init(&d.mx);
	d.debug = debug;
	ret = run(&d);

	rpd_plan_job_free(&d.job);	/* cancels a running probe round */
	rpd_rec_free(&d.r);
	rpd_metrics_free(&d.mx);
	module_close(&d);
	if (d.have_genl)
		rpd_genl_close(&d.g);
	rpd_linkmon_close(&d.lm);
	rpd_watch_close(&d.w);
	rpd_statpoll_free(&d.sp);
	rpd_kernel_free(&d.k);
	if (d.sfd >= 0)
		close(d.sfd);
	rpd_config_free(&d.cfg);
	return ret;
}
