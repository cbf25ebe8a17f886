#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Serves ynl_client's calls of the kernel's YNL CLI from a warm Python.

Usage: ynl_server.py SOCKET PATH/TO/cli.py|- [SPEC]

Imports YNL's lib, compiles cli.py and parses SPEC once (libyaml, as
ynl_cli.py does), then per connection forks a worker that takes the
client's stdin, stdout and stderr and runs cli.py's main with the
client's arguments, in the client's directory, and sends back its exit
code. What the kernel sees is unchanged: the worker opens its own netlink
socket and looks the family up again, so a module reloaded between calls
is found anew.

A worker stands in for two kinds of caller only: root with the server's
own capabilities, or a user with no capabilities at all, whose user and
groups it takes before it opens anything (setpriv --reuid ... as the
tests use it). Any other caller (other namespaces, partial capabilities,
seccomp) is told to run python3 itself.

`ynl_client --python ARGS` stands for `python3 ARGS` (a script, `-c CODE`
or `-`, the code on stdin) the same way: a worker runs it in the caller's
environment (read from /proc) and directory, and under TCG a test's JSON
one-liner costs a fork instead of a cold interpreter (0.13 s against
0.37 s on 6.12). The server then need not have cli.py (`-`).
"""

# What the tests' own Python uses, imported once here for every worker.
import ast  # noqa: F401 pylint: disable=unused-import
import collections  # noqa: F401 pylint: disable=unused-import
import ipaddress  # noqa: F401 pylint: disable=unused-import
import json  # noqa: F401 pylint: disable=unused-import
import os
import re  # noqa: F401 pylint: disable=unused-import
import signal
import socket
import struct
import sys
import threading
import traceback

from ynl_cli import use_libyaml

import yaml


def status(pid):
    """The fields of /proc/PID/status, as strings."""
    fields = {}
    with open(f'/proc/{pid}/status', encoding='ascii') as f:
        for line in f:
            key, _, value = line.partition(':')
            fields[key] = value.strip()
    return fields


def same_namespaces(pid):
    for ns in ('net', 'user', 'mnt'):
        try:
            own = os.stat(f'/proc/self/ns/{ns}').st_ino
        except FileNotFoundError:
            # A kernel without that kind of namespace (the debug lane's
            # has no user namespaces): everyone shares the one there is.
            # Raising here cost every call on it a cold python3.
            continue
        if os.stat(f'/proc/{pid}/ns/{ns}').st_ino != own:
            return False
    return True


def stand_in(pid):
    """Takes the caller's credentials; False when a worker cannot."""
    if not same_namespaces(pid):
        return False
    peer, own = status(pid), status('self')
    if peer.get('Seccomp', '0') != '0':
        return False
    uids = set(peer['Uid'].split())
    gids = set(peer['Gid'].split())
    if len(uids) != 1 or len(gids) != 1:
        return False
    uid, gid = int(uids.pop()), int(gids.pop())
    caps = [peer[k] for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')]
    if uid == 0:
        return gid == 0 and caps == [own[k] for k in
                                     ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')]
    if any(int(c, 16) for c in caps[:3] + caps[4:]) or caps[3] != own['CapBnd']:
        return False
    os.setgroups([int(g) for g in peer.get('Groups', '').split()])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    return int(status('self')['CapEff'], 16) == 0


def watch(conn):
    """A caller that goes away (timeout(1) killed it) takes its worker along."""
    while True:
        try:
            if not conn.recv(1, socket.MSG_PEEK):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    os.kill(os.getpid(), signal.SIGKILL)


def recv_request(conn):
    data, fds, _, _ = socket.recv_fds(conn, 65536, 3)
    if len(fds) != 3 or len(data) < 4:
        raise ValueError('bad request')
    need = 4 + struct.unpack('=I', data[:4])[0]
    while len(data) < need:
        more = conn.recv(need - len(data))
        if not more:
            raise ValueError('short request')
        data += more
    args = [a.decode() for a in data[4:need].split(b'\0')[:-1]]
    return args, fds


def run(code, args, file=None):
    """cli.py's main as `python3 ynl_cli.py cli.py ...` runs it (or a
    script as python3 would): its exit code."""
    sys.argv = args[1:]
    try:
        exec(code, {'__name__': '__main__', '__file__': file or args[1]})  # pylint: disable=exec-used
        rc = 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            rc = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            rc = 1
    except BaseException as e:  # pylint: disable=broad-except
        # As python3 shows it: from the caller's code, without run()'s frame.
        traceback.print_exception(type(e), e, e.__traceback__.tb_next)
        rc = 1
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except OSError:
            pass
    return rc


def environ(pid):
    """The caller's environment, as it was started."""
    with open(f'/proc/{pid}/environ', 'rb') as f:
        pairs = [v.split(b'=', 1) for v in f.read().split(b'\0') if b'=' in v]
    return {k.decode(): v.decode() for k, v in pairs}


def python_args(args):
    """`python3 ARGS` as (script path, -c code, sys.argv), or None when a
    worker cannot stand in for it (an option other than -c or -)."""
    if args[0] == '-c' and len(args) > 1:
        return None, args[1], ['-c'] + args[2:]
    if args[0] == '-':
        return None, None, args
    if args[0].startswith('-'):
        return None
    return args[0], None, args


def worker(conn, codes, base_path):
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    args, fds = recv_request(conn)
    pid = struct.unpack('3i', conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                              struct.calcsize('3i')))[0]
    os.chdir(f'/proc/{pid}/cwd')
    python = args[0] == '--python' and len(args) > 1
    if python:
        env = environ(pid)
        how = python_args(args[1:])
    if len(args) < 2 or (python and how is None) or not stand_in(pid):
        conn.sendall(b'F')
        return
    for i, fd in enumerate(fds):
        os.dup2(fd, i)
        os.close(fd)
    threading.Thread(target=watch, args=(conn,), daemon=True).start()
    conn.sendall(b'R')
    if python:
        os.environ.clear()
        os.environ.update(env)
        script, source, argv = how
        sys.path[:] = [os.path.dirname(os.path.realpath(script)) if script else ''] + base_path
        if script:
            with open(script, encoding='utf-8') as f:
                code = compile(f.read(), script, 'exec')
        elif source is not None:
            code = compile(source, '<string>', 'exec')
        else:
            code = compile(sys.stdin.read(), '<stdin>', 'exec')
        rc = run(code, [None] + argv, script or argv[0])
    else:
        code = codes.get(os.path.realpath(args[1]))
        if code is None:
            sys.path.insert(0, os.path.dirname(os.path.realpath(args[1])))
            with open(args[1], encoding='utf-8') as f:
                code = compile(f.read(), args[1], 'exec')
        rc = run(code, args)
    conn.sendall(struct.pack('=i', rc & 0xff))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().split('\n')[2])
    base_path = sys.path[1:]
    path, cli = sys.argv[1], sys.argv[2]
    use_libyaml()
    load = yaml.safe_load
    specs = {}

    def cached_load(stream):
        try:
            st = os.fstat(stream.fileno())
        except (AttributeError, OSError, ValueError):
            return load(stream)
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        if key not in specs:
            specs[key] = load(stream)
        return specs[key]

    yaml.safe_load = cached_load
    # cli.py's imports (YNL's lib among them), done here once for every worker.
    codes = {}
    if cli != '-':
        cli = os.path.realpath(cli)
        sys.path.insert(0, os.path.dirname(cli))
        with open(cli, encoding='utf-8') as f:
            codes[cli] = compile(f.read(), cli, 'exec')
        exec(codes[cli], {'__name__': 'ynl_cli_preload', '__file__': cli})  # pylint: disable=exec-used
    if len(sys.argv) > 3 and sys.argv[3]:
        with open(sys.argv[3], encoding='utf-8') as f:
            cached_load(f)

    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tmp = f'{path}.{os.getpid()}'
    srv.bind(tmp)
    os.chmod(tmp, 0o666)
    srv.listen(64)
    os.rename(tmp, path)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    sys.stdout.flush()
    sys.stderr.flush()
    while True:
        conn, _ = srv.accept()
        if os.fork() == 0:
            srv.close()
            try:
                worker(conn, codes, base_path)
            except BaseException:  # pylint: disable=broad-except
                traceback.print_exc()
            finally:
                os._exit(0)
        conn.close()


if __name__ == '__main__':
    main()
