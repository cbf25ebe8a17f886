#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The rocepath family driven by the kernel's YNL library from the spec.

usage: pin_ynl.py MODE PEER_IP4 PEER_IP6 IBDEV
MODE: main (rules, rejections, replace, monitor), unpriv (every change is
EPERM, dumps work), limits (module loaded with max_rules=2 max_sports=4),
devices PEER_IP4 (an rxe device comes and goes, and its pin rules with it),
monitor SECS, replace-loop PEER_IP4 COUNT.
Prints "PASS desc" / "FAIL desc" lines (pin_ynl.sh turns them into TAP)
and a last line "# counts PASS FAIL".
"""
import ipaddress
import os
import sys
import time

TOP = os.environ.get('ROCEPATH_TOP', os.getcwd())
# selftests/lib.sh exports YNL_DIR and YNL_SPEC; an unprivileged run gets
# readable copies (ynl_stage) since the checkout may be below /root.
sys.path.append(os.environ.get('YNL_DIR', os.path.join(TOP, '.cache/linux-src/tools/net/ynl')))
from lib import YnlFamily, NlError  # noqa: E402
from ynl_cli import use_libyaml  # noqa: E402

use_libyaml()

SPEC = os.environ.get('YNL_SPEC', os.path.join(TOP, 'Documentation/netlink/specs/rocepath.yaml'))
SCHEMA = os.path.join(TOP, '.cache/linux-src/Documentation/netlink/genetlink-legacy.yaml')

n = 0
passed = failed = 0


def result(ok, desc, detail=None):
    global n, passed, failed
    n += 1
    if ok:
        passed += 1
        print(f'PASS {desc}')
    else:
        failed += 1
        print(f'FAIL {desc}')
        if detail is not None:
            print(f'#   {detail}')
    sys.stdout.flush()


def fam(schema=False):
    return YnlFamily(SPEC, SCHEMA if schema else '')


def expect_err(y, op, vals, errno, msg, desc):
    try:
        y.do(op, vals)
    except NlError as e:
        got = -e.nl_msg.error
        ext = e.nl_msg.extack or {}
        text = str(ext.get('msg', ''))
        if 'miss-type' in ext:  # GENL_REQ_ATTR_CHECK: a missing attribute
            text = f"missing attribute {ext['miss-type']}"
        ok = got == errno and msg.lower() in text.lower()
        result(ok, f'{desc}: {os.strerror(errno)}, extack "{text}"',
               f'want errno {errno} and "{msg}", got {got} {ext}')
        return
    result(False, desc, 'request succeeded')


def a(addr):
    return ipaddress.ip_address(addr).packed


def pins(y):
    return [m['pin'][0] if isinstance(m['pin'], list) else m['pin']
            for m in y.dump('pin-get', {}) if 'pin' in m]


def main_mode(peer4, peer6, ibdev):
    y = fam(schema=True)
    r4, r6 = a(peer4), a(peer6)

    expect_err(y, 'pin-add', {'pin': {'remote': r4, 'sport': [50000]}}, 17,
               'exists', 'duplicate rule')
    expect_err(y, 'pin-add', {'pin': {'remote': r4, 'rqpn': 1, 'sport': [1000]}},
               34, 'range', 'port below 49152 (policy)')
    expect_err(y, 'pin-add', {'pin': {'remote': b'\xc0\x00\x02\x02\x01', 'sport': [50000]}},
               22, '4 (IPv4) or 16', 'remote of 5 bytes')
    expect_err(y, 'pin-add', {'pin': {'remote': b'\xc0\x00\x02', 'sport': [50000]}},
               22, '4 (IPv4) or 16', 'remote of 3 bytes')
    expect_err(y, 'pin-add', {'pin': {'remote': r4, 'ibdev': 'nosuchdev', 'sport': [50000]}},
               19, 'unknown RDMA device', 'unknown device')
    expect_err(y, 'pin-add', {'pin': {'remote': r4, 'rqpn': 2}}, 22,
               'path set is empty', 'empty path set')
    expect_err(y, 'pin-add', {'pin': {'remote': r4, 'rqpn': 3,
                                      'sport': list(range(50000, 50065))}},
               7, 'max_sports', '65 ports with max_sports=64')
    expect_err(y, 'pin-add', {'pin': {'remote': r4, 'rqpn': 16777216, 'sport': [50000]}},
               34, 'range', 'rqpn above 2^24-1 (policy)')
    expect_err(y, 'pin-add', {'pin': {'sport': [50000]}}, 22,
               'remote', 'rule without a remote')
    expect_err(y, 'pin-add', {}, 22, 'missing attribute pin', 'pin-add without a pin')
    expect_err(y, 'pin-del', {'pin': {'remote': r4, 'rqpn': 99}}, 2,
               'no pin rule', 'delete a missing rule')
    expect_err(y, 'pin-replace', {'replace-flags': 2}, 22, 'send begin first',
               'commit without begin')
    expect_err(y, 'pin-replace', {'replace-flags': 3, 'generation': 0x7fffffff},
               116, 'changed since', 'commit on a stale generation')

    # Each op takes only the attributes its request lists in the spec: its
    # own policy has no entry for any other ("Unsupported attribute"), and
    # an op whose request lists none has no policy, so the core rejects
    # every attribute ("Unknown attribute type"). Output-only attributes
    # inside a request nest are rejected by the module ("output only").
    expect_err(y, 'pin-add', {'pin': {'remote': r4, 'rqpn': 4, 'sport': [50000],
                                      'sport-qps': [1]}},
               22, 'output only', 'pin-add with sport-qps (output only)')
    expect_err(y, 'pin-add', {'generation': 1,
                              'pin': {'remote': r4, 'rqpn': 4, 'sport': [50000]}},
               22, 'Unsupported attribute', 'pin-add with a generation')
    expect_err(y, 'stats-get', {'ibdev': ibdev}, 22,
               'Unknown attribute type', 'stats-get with an ibdev')
    expect_err(y, 'pin-flush', {'ibdev': ibdev}, 22,
               'Unknown attribute type', 'pin-flush with an ibdev')
    expect_err(y, 'dcqcn-set', {'dcqcn': {'ibdev': ibdev, 'soft': 0}}, 22,
               'output only', 'dcqcn-set with soft (output only)')
    try:
        y.dump('pin-get', {'ibdev': ibdev})
        result(False, 'pin-get dump with an ibdev: EINVAL', 'dump succeeded')
    except NlError as e:
        result(e.nl_msg.error == -22, 'pin-get dump with an ibdev: EINVAL',
               f'{e.nl_msg.error} {e.nl_msg.extack}')
    result(not [x for x in pins(y) if x.get('rqpn') == 4],
           'rejected requests added nothing')
    st = y.do('stats-get', {})['stats']
    result(st.get('ntf-queue-limit') == 1 << 20 and 'ntf-dropped' in st,
           'stats-get reports ntf-queue-limit (1 MiB) and ntf-dropped', st)

    # Exact and device-scoped rules, IPv6.
    y.do('pin-add', {'pin': {'remote': r6, 'ibdev': ibdev, 'rqpn': 17, 'lqpn': 18,
                             'sport': [60000]}})
    p = [x for x in pins(y) if x['remote'] == r6]
    result(len(p) == 1 and p[0].get('ibdev') == ibdev and p[0].get('rqpn') == 17 and
           p[0].get('lqpn') == 18 and p[0]['sport'] == [60000],
           'IPv6 exact device-scoped rule dumps as added', p)
    y.do('pin-del', {'pin': {'remote': r6, 'ibdev': ibdev, 'rqpn': 17, 'lqpn': 18}})
    result(not [x for x in pins(y) if x['remote'] == r6], 'pin-del by key removes it')

    # Replace over several messages of one socket, with the generation.
    gen = y.do('stats-get', {})['stats']['generation']
    y.do('pin-replace', {'replace-flags': 1,
                         'pin': [{'remote': r4, 'sport': [51000]}]})
    y.do('pin-replace', {'pin': [{'remote': r6, 'sport': [51002, 51001]}]})
    mid = pins(y)
    y.do('pin-replace', {'replace-flags': 2, 'generation': gen})
    after = pins(y)
    result(any(x['sport'] == [50000] for x in mid) and
           sorted(x['sport'] for x in after) == [[51000], [51001, 51002]],
           'begin / pins / commit in three messages swaps the whole set',
           f'mid {mid} after {after}')
    gen2 = y.do('stats-get', {})['stats']['generation']
    result(gen2 == gen + 1, 'commit bumps the generation once', f'{gen} -> {gen2}')

    # A staging set belongs to its socket and dies with it.
    y2 = fam()
    y2.do('pin-replace', {'replace-flags': 1, 'pin': [{'remote': r4, 'sport': [52000]}]})
    expect_err(y, 'pin-replace', {'replace-flags': 2}, 22, 'send begin first',
               'another socket cannot commit a staging set')
    del y2
    time.sleep(0.5)
    st = y.do('stats-get', {})['stats']
    result(st['rules'] == 2, 'an abandoned staging set never becomes live', st)

    # A failed transaction message drops the staging set.
    y.do('pin-replace', {'replace-flags': 1, 'pin': [{'remote': r4, 'sport': [53000]}]})
    expect_err(y, 'pin-replace', {'pin': [{'remote': r4, 'sport': [53001]}]}, 17,
               'exists', 'duplicate inside a transaction')
    expect_err(y, 'pin-replace', {'replace-flags': 2}, 22, 'send begin first',
               'the failed transaction is gone')

    # Monitor notifications.
    m = fam()
    m.ntf_subscribe('monitor')
    y.do('pin-flush', {})
    ntfs = []
    for _ in range(20):
        m.check_ntf()
        while m.async_msg_queue:
            msg = m.async_msg_queue.pop(0) if isinstance(m.async_msg_queue, list) \
                else m.async_msg_queue.get_nowait()
            ntfs.append(msg)
        if ntfs:
            break
        time.sleep(0.1)
    result(any(x['name'] == 'pins-replaced-ntf' for x in ntfs),
           'pin-flush sends pins-replaced-ntf to the monitor group', ntfs)
    result(pins(y) == [], 'pin-flush empties the set')

    st = y.do('stats-get', {})['stats']
    result(st['rules-max'] == 131072 and st['qps-max'] == 65536 and
           st['sports-max'] == 64, 'stats-get reports the limits', st)


def unpriv_mode(peer4):
    y = fam()
    r4 = a(peer4)
    for op, vals in (('pin-add', {'pin': {'remote': r4, 'rqpn': 5, 'sport': [50000]}}),
                     ('pin-del', {'pin': {'remote': r4}}),
                     ('pin-flush', {}),
                     ('pin-replace', {'replace-flags': 3}),
                     ('flow-reset', {})):
        try:
            y.do(op, vals)
            result(False, f'unprivileged {op}: EPERM', 'succeeded')
        except NlError as e:
            result(e.nl_msg.error == -1, f'unprivileged {op}: EPERM', e.nl_msg.error)
    # Rules name the host's peers and its jobs' ports: not for other users.
    try:
        y.dump('pin-get', {})
        result(False, 'unprivileged pin-get: EPERM', 'succeeded')
    except NlError as e:
        result(e.nl_msg.error == -1, 'unprivileged pin-get: EPERM', e.nl_msg.error)
    try:
        y.dump('qp-get', {})
        y.dump('dev-get', {})
        y.do('stats-get', {})
        result(True, 'unprivileged qp, dev dumps and stats work', '')
    except NlError as e:
        result(False, 'unprivileged qp, dev dumps and stats work', e)


def limits_mode(peer4, peer6):
    y = fam()
    r4, r6 = a(peer4), a(peer6)
    y.do('pin-add', {'pin': {'remote': r4, 'sport': [50000]}})
    y.do('pin-add', {'pin': {'remote': r6, 'sport': [50000]}})
    expect_err(y, 'pin-add', {'pin': {'remote': r4, 'rqpn': 7, 'sport': [50000]}},
               28, 'full', 'third rule with max_rules=2')
    expect_err(y, 'pin-replace', {'replace-flags': 3, 'pin': [
        {'remote': r4, 'sport': [50000]}, {'remote': r4, 'rqpn': 1, 'sport': [50000]},
        {'remote': r4, 'rqpn': 2, 'sport': [50000]}]},
               28, 'full', 'replace with 3 rules and max_rules=2')
    expect_err(y, 'pin-add', {'pin': {'remote': r4, 'rqpn': 8,
                                      'sport': [50000, 50001, 50002, 50003, 50004]}},
               7, 'max_sports', '5 ports with max_sports=4')
    st = y.do('stats-get', {})['stats']
    result(st['rules-max'] == 2 and st['sports-max'] == 4 and st['rules'] == 2,
           'stats-get reads back max_rules and max_sports', st)


def drain(m, secs):
    """Collect notifications for secs seconds."""
    out = []
    end = time.time() + secs
    while time.time() < end:
        m.check_ntf()
        while m.async_msg_queue:
            out.append(m.async_msg_queue.pop(0))
        time.sleep(0.1)
    return out


def monitor_mode(secs):
    """Print READY once subscribed, then one line per notification as it comes."""
    m = fam()
    m.ntf_subscribe('monitor')
    print('READY', flush=True)
    end = time.time() + secs
    while time.time() < end:
        m.check_ntf()
        while m.async_msg_queue:
            msg = m.async_msg_queue.pop(0)
            print('NTF', msg['name'], msg.get('msg', ''), flush=True)
        time.sleep(0.1)


def devices_mode(peer4):
    """An rxe device on a veth appears and goes with dev-add/del-ntf; its
    pin rules go with it, the live set's and a staged transaction's."""
    import subprocess
    sh = lambda c: subprocess.run(c, shell=True, capture_output=True, text=True)
    m = fam()
    m.ntf_subscribe('monitor')
    y = fam()
    r = sh('ip link add rpv0 type veth peer name rpv1 && ip link set rpv0 up && '
           'ip link set rpv1 up && rdma link add rpxe0 type rxe netdev rpv0')
    if r.returncode:
        result(False, 'create rxe device rpxe0 on a veth', r.stderr)
        sh('ip link del rpv0')
        return
    time.sleep(1)
    devs = [d['dev']['ibdev'] for d in y.dump('dev-get', {})]
    got = drain(m, 2)
    result('rpxe0' in devs, 'dev-get lists a new rxe device', devs)
    result(any(x['name'] == 'dev-add-ntf' and x['msg']['dev']['ibdev'] == 'rpxe0'
               for x in got), 'dev-add-ntf announces it', got)
    # Rules scoped to rpxe0 (live and staged) and for every device.
    r4 = a(peer4)
    scoped = {'remote': r4, 'ibdev': 'rpxe0', 'sport': [54001]}
    y.do('pin-add', {'pin': scoped})
    y.do('pin-add', {'pin': {'remote': r4, 'lqpn': 77, 'sport': [54002]}})
    y2 = fam()
    y2.do('pin-replace', {'replace-flags': 1, 'pin': [
        {'remote': r4, 'ibdev': 'rpxe0', 'sport': [54003]},
        {'remote': r4, 'lqpn': 78, 'sport': [54004]}]})
    before = pins(y)
    drain(m, 1)
    sh('rdma link delete rpxe0')
    time.sleep(1)
    devs = [d['dev']['ibdev'] for d in y.dump('dev-get', {})]
    got = drain(m, 2)
    sh('ip link del rpv0')
    result('rpxe0' not in devs, 'dev-get forgets a removed device', devs)
    result(any(x['name'] == 'dev-del-ntf' and x['msg']['dev']['ibdev'] == 'rpxe0'
               for x in got), 'dev-del-ntf announces the removal', got)
    after = pins(y)
    result(any(p.get('ibdev') == 'rpxe0' and p['sport'] == [54001] for p in before) and
           not any(p['sport'] == [54001] for p in after),
           'a rule scoped to a removed device goes with it (not left looking unscoped)',
           f'before {before} after {after}')
    result(any(p['sport'] == [54002] and 'ibdev' not in p for p in after),
           'a rule for every device stays', after)
    result(any(x['name'] == 'pins-replaced-ntf' for x in got),
           'pins-replaced-ntf announces the dropped rule', got)
    expect_err(y, 'pin-add', {'pin': scoped}, 19, 'unknown RDMA device',
               'pin-add scoped to the removed device')
    y2.do('pin-replace', {'replace-flags': 2})
    after = pins(y)
    result(sorted(p['sport'] for p in after) == [[54004]],
           'a transaction staged before the removal commits without its rule',
           after)
    y.do('pin-flush', {})


def replace_loop(peer4, count):
    """pin-replace count times, alternating 50202 / 50201 (ends on 50201)."""
    y = fam()
    for i in range(1, count + 1):
        y.do('pin-replace', {'replace-flags': 3,
                             'pin': [{'remote': a(peer4), 'sport': [50201 + i % 2]}]})
    result(True, f'{count} replaces')


if __name__ == '__main__':
    mode = sys.argv[1]
    try:
        if mode == 'main':
            main_mode(sys.argv[2], sys.argv[3], sys.argv[4])
        elif mode == 'unpriv':
            unpriv_mode(sys.argv[2])
        elif mode == 'monitor':
            monitor_mode(float(sys.argv[2]))
        elif mode == 'devices':
            devices_mode(sys.argv[2])
        elif mode == 'replace-loop':
            replace_loop(sys.argv[2], int(sys.argv[3]))
        elif mode == 'limits':
            limits_mode(sys.argv[2], sys.argv[3])
    except Exception as e:  # a crash is a failure, not a hang
        result(False, f'{mode}: unexpected exception', repr(e))
    print(f'# counts {passed} {failed}')
    sys.exit(1 if failed else 0)
