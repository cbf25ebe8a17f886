/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files that readers must never see half written (the metrics textfile,
 * a placement the scheduler adopts): written to a temporary file in the
 * same directory, then renamed over the target.
 */
#ifndef ROCEPATH_ATOMIC_H
#define ROCEPATH_ATOMIC_H

#include <stdbool.h>
#include <stdio.h>

/*
 * render(fp, arg) writes the content (returns 0 or -errno); the file gets
 * mode 0644 (mkostemp() makes 0600, and other users read these files),
 * is fsync'ed first when sync is set, and replaces path only when
 * everything succeeded; else the temporary file is removed and path is
 * untouched. Returns 0 or -errno.
 */
int rp_write_atomic(const char *path, bool sync,
		    int (*render)(FILE *fp, void *arg), void *arg);

/*
 * Whether the directory path would be written in exists: where it does
 * not (no node_exporter, no RuntimeDirectory) the writers skip quietly.
 */
bool rp_dir_of_exists(const char *path);

#endif /* ROCEPATH_ATOMIC_H */
