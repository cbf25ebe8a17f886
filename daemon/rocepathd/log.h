/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepathd logging: one line per event on stderr. Under systemd (stderr
 * connected to the journal) lines carry a "<N>" syslog priority prefix and
 * no timestamp; otherwise an ISO-8601 UTC timestamp with milliseconds.
 */
#ifndef ROCEPATHD_LOG_H
#define ROCEPATHD_LOG_H

enum rp_log_level {
	RP_LOG_ERR = 3,
	RP_LOG_WARN = 4,
	RP_LOG_INFO = 6,
	RP_LOG_DEBUG = 7,
};

void rp_log_init(void);
void rp_log_set_level(int level);
int rp_log_get_level(void);
/* "error", "warn", "info", "debug" -> level; -EINVAL when unknown. */
int rp_log_level_parse(const char *name);
const char *rp_log_level_name(int level);

void rp_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define rpd_err(...) rp_log(RP_LOG_ERR, __VA_ARGS__)
#define rpd_warn(...) rp_log(RP_LOG_WARN, __VA_ARGS__)
#define rpd_info(...) rp_log(RP_LOG_INFO, __VA_ARGS__)
#define rpd_dbg(...) rp_log(RP_LOG_DEBUG, __VA_ARGS__)

#endif
