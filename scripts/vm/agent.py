#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""rocepath VM agent: runs shell commands for the driver guest (on_host).

Runs on guests 2..N (commands wait until READY_FILE exists), listening on the control link (eth1, never the test
link, so captures on eth0 see no harness traffic).

Protocol, one command per TCP connection:
  request:  b"RPV1 <timeout_s> <nbytes>\\n" + command (nbytes, for bash -c)
  response: b"RPV1 <rc> <nbytes>\\n" + combined stdout/stderr (nbytes)
rc is the command's exit code, 124 on timeout (the whole process group is
killed), 128+N when killed by signal N. A client that goes away kills the
command, so killing an on_host_bg job on the driver stops the remote side.
The command's environment is the guest's test environment (HOST_INDEX,
HOST_IP4, ROCEPATH_TOP, ...), its cwd the project tree, stdin /dev/null.
"""

import os
import select
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time

MAX_OUTPUT = 32 << 20

# Under TCG a bash takes some 90 ms to start (0.25 to 0.45 s on a debug
# kernel), and every on_host waited for one. So the agent starts the next
# bash while the guest is idle, after answering, and that bash waits for
# its command on a pipe: NUL-terminated (a bash string has no NUL), run
# by eval with the pipe closed, as bash -c would run it. SPARES bound the
# idle shells (a few MB each); a command that finds none starts one.
SPARES = 2
SPARE_SH = 'IFS= read -r -d "" -u {fd} __rpvm_cmd || exit 127; exec {fd}<&-; eval "unset __rpvm_cmd; $__rpvm_cmd"'
spares = []
starting = 0
spares_lock = threading.Lock()


def start_bash(script, **kw):
    """bash -c SCRIPT in a session of its own, stdout and stderr one pipe."""
    return subprocess.Popen(["/bin/bash", "-c", script], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, **kw)


def start_spare():
    """A bash waiting for its command, and the write end of its pipe."""
    r, w = os.pipe()
    try:
        proc = start_bash(SPARE_SH.format(fd=r), pass_fds=(r,))
    except BaseException:
        os.close(w)
        raise
    finally:
        os.close(r)
    return proc, w


def refill():
    """Back to SPARES idle shells; runs after an answer, off its path."""
    global starting
    with spares_lock:
        n = SPARES - len(spares) - starting
        starting += max(n, 0)
    for _ in range(n):
        try:
            spare = start_spare()
        finally:
            with spares_lock:
                starting -= 1
        with spares_lock:
            spares.append(spare)


def spawn(cmd):
    """CMD running in bash: a spare one when there is one."""
    while True:
        with spares_lock:
            spare = spares.pop(0) if spares else None
        if spare is None:
            return start_bash(cmd)
        proc, w = spare
        data = os.fsencode(cmd) + b"\0"
        try:
            while data:
                data = data[os.write(w, data):]
            return proc
        except OSError:
            # It died waiting (killed from outside): reap it, take another.
            proc.kill()
            proc.wait()
            proc.stdout.close()
        finally:
            os.close(w)


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run(sock, timeout, cmd):
    proc = spawn(cmd)
    out = bytearray()
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    # Readable when the command has exited: no polling for its end.
    try:
        pfd = os.pidfd_open(proc.pid)
    except OSError:
        pfd = None
    deadline = time.monotonic() + timeout
    rc = None
    eof = False
    exited_at = None
    while True:
        now = time.monotonic()
        if rc is None:
            rc = proc.poll()
            if rc is not None:
                exited_at = now
        # Done: the command exited and its output is drained (or background
        # children still hold the pipe: give them 0.3 s, then stop reading).
        if rc is not None and (eof or now - exited_at > 0.3):
            break
        if rc is None and now > deadline:
            kill_group(proc)
            proc.wait()
            out += b"\nagent: command timed out after %d s\n" % timeout
            rc = 124
            break
        rl = [sock] + ([] if eof else [fd])
        if rc is None and pfd is not None:
            rl.append(pfd)
            wait = deadline - now
        elif rc is None:
            wait = min(0.1, deadline - now)
        else:
            wait = exited_at + 0.3 - now
        r, _, _ = select.select(rl, [], [], max(wait, 0))
        if pfd is not None and pfd in r and proc.poll() is None:
            # Not reaped yet although the pidfd says it exited: poll.
            os.close(pfd)
            pfd = None
        if sock in r:
            try:
                gone = sock.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                gone = True
            if gone:
                kill_group(proc)
                proc.wait()
                return None
        if fd in r:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                data = None
            if data == b"":
                eof = True
            elif data and len(out) < MAX_OUTPUT:
                out += data
    if pfd is not None:
        os.close(pfd)
    if rc < 0:
        rc = 128 - rc
    proc.stdout.close()
    return rc, bytes(out)


READY = None


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        while READY and not os.path.exists(READY):
            time.sleep(0.05)
        f = self.request.makefile("rb")
        hdr = f.readline(256).split()
        if len(hdr) != 3 or hdr[0] != b"RPV1":
            self.request.sendall(b"RPV1 2 24\nagent: malformed request\n")
            return
        timeout, n = int(hdr[1]), int(hdr[2])
        cmd = f.read(n)
        if len(cmd) != n:
            return
        res = run(self.request, timeout, cmd.decode(errors="replace"))
        if res is None:
            return
        rc, out = res
        try:
            self.request.sendall(b"RPV1 %d %d\n" % (rc, len(out)) + out)
        except OSError:
            pass
        refill()


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    global READY
    if len(sys.argv) not in (4, 5) or sys.argv[1] != "serve":
        sys.exit("usage: agent.py serve ADDR PORT [READY_FILE]")
    READY = sys.argv[4] if len(sys.argv) == 5 else None
    with Server((sys.argv[2], int(sys.argv[3])), Handler) as srv:
        srv.serve_forever()


if __name__ == "__main__":
    main()
