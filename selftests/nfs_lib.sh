# SPDX-License-Identifier: GPL-2.0
#
# A real NFS server in guest 2 for the tests and benchmarks that read
# rocepathd's files over NFS (sourced after lib.sh): Debian's
# nfs-kernel-server (knfsd, rpc.mountd) exporting a tmpfs over NFSv4.2,
# mounted by guests at $NFS_MNT. NFSv4 only, so neither rpcbind nor statd
# runs. The export is the NFSv4 root (fsid=0): the guest's / is an
# overlay, which knfsd cannot serve as the pseudo-root above an export.
# nfs_stop undoes all of it, so a batch's state check finds nothing left.

NFS_SRV=198.51.100.2
NFS_EXPORT=/mnt/rp-nfs-export	# h2: the exported tmpfs
NFS_MNT=/mnt/rp-nfs		# every client guest's mount

# nfs_require N...: skip unless the guests' kernel has knfsd and the NFSv4
# client and the host root has the server's tools.
nfs_require() {
	local n
	require_cmd rpc.nfsd rpc.mountd exportfs mount.nfs4
	for n in "$@"; do
		on_host "$n" "modprobe -n -q nfsd && modprobe -n -q nfsv4" >/dev/null ||
			ksft_skip_all "h$n's kernel has no nfsd or nfsv4 module (the debug lane's config leaves NFS out)"
	done
}

# nfs_server_start [SIZE]: the server on h2 (a SIZE tmpfs, default 16m).
# Grace and lease at their minimum (10 s), set before nfsd starts: a
# fresh server refuses opens during its grace period (90 s by default).
# Its output goes to $RUN_DIR/nfs-server.out.
nfs_server_start() {
	on_host 2 "set -e
		modprobe nfsd
		mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
		echo 10 >/proc/fs/nfsd/nfsv4leasetime
		echo 10 >/proc/fs/nfsd/nfsv4gracetime
		mkdir -p $NFS_EXPORT
		mount -t tmpfs -o size=${1:-16m},mode=0755 rp-nfs $NFS_EXPORT
		exportfs -o rw,no_root_squash,no_subtree_check,fsid=0 198.51.100.0/24:$NFS_EXPORT
		rpc.mountd -N 2 -N 3 --no-udp
		rpc.nfsd -N 3 -U 2" >"$RUN_DIR/nfs-server.out" 2>&1 && return 0
	sed 's/^/#   /' "$RUN_DIR/nfs-server.out"
	return 1
}

# nfs_mount N: guest N mounts the export at $NFS_MNT (NFSv4.2, hard),
# retrying while the server is still in its grace period.
nfs_mount() {
	on_host "$1" "mkdir -p $NFS_MNT && for i in \$(seq 30); do
			mount -t nfs4 -o vers=4.2,hard,timeo=50 $NFS_SRV:/ $NFS_MNT && exit 0
			sleep 1
		done; exit 1"
}

# nfs_stop N...: unmount on the client guests N..., then stop the server.
nfs_stop() {
	local n
	for n in "$@"; do
		on_host "$n" "umount $NFS_MNT || umount -f -l $NFS_MNT; rmdir $NFS_MNT; true"
	done
	on_host 2 "exportfs -ua; rpc.nfsd 0; pkill -x rpc.mountd
		for i in \$(seq 50); do pgrep -x rpc.mountd >/dev/null || break; sleep 0.1; done
		umount /proc/fs/nfsd; umount $NFS_EXPORT; rmdir $NFS_EXPORT; true"
}
