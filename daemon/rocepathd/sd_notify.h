/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sd_notify protocol, without libsystemd: one datagram of
 * newline-separated VAR=value lines to the unix socket named by
 * $NOTIFY_SOCKET ('@' prefix = abstract namespace).
 */
#ifndef ROCEPATHD_SD_NOTIFY_H
#define ROCEPATHD_SD_NOTIFY_H

/*
 * Send @state (e.g. "READY=1\nSTATUS=..."). Returns 1 when sent, 0 when
 * NOTIFY_SOCKET is unset (not under systemd), -errno on failure.
 */
int rpd_sd_notify(const char *state);
int rpd_sd_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
