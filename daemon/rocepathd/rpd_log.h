/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocepathd logging: one line per event on stderr. Under systemd (stderr
 * connected to the journal) lines carry a "<N>" syslog priority prefix and
 * no timestamp; otherwise an ISO-8601 UTC timestamp with milliseconds.
 */
#ifndef ROCEPATHD_RPD_LOG_H
#define ROCEPATHD_RPD_LOG_H

/* The levels and their names are the config model's (rpd_config.h). */
#include "rpd_config.h"

void rpd_log_init(void);
void rpd_log_set_level(int level);
int rpd_log_get_level(void);

void rpd_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define rpd_err(...) rpd_log(RPD_LOG_ERR, __VA_ARGS__)
#define rpd_warn(...) rpd_log(RPD_LOG_WARN, __VA_ARGS__)
#define rpd_info(...) rpd_log(RPD_LOG_INFO, __VA_ARGS__)
#define rpd_dbg(...) rpd_log(RPD_LOG_DEBUG, __VA_ARGS__)

#endif
