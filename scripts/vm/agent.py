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
import time

MAX_OUTPUT = 32 << 20


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run(sock, timeout, cmd):
    proc = subprocess.Popen(["/bin/bash", "-c", cmd], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    out = bytearray()
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
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
        r, _, _ = select.select(rl, [], [], 0.1)
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
