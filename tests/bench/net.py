#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Network benchmarks of `confpol run` (spec/runtime.md 14), figures only:
#   1. connection set-up through the bridge and the proxy (HTTP CONNECT to a
#      local server, from inside the sandbox): median and p90 in ms
#   1b. the first byte of a new connection (connect, a request, the first
#      byte of the answer): outside, through the direct path (14.8), through
#      the proxy's CONNECT; against two servers on loopback: the C server of
#      tests/bench/netserve.c (answers in microseconds, so that the figure
#      is the path's) and the Python server below (a thread per connection,
#      about 0.14 ms of its own); interleaved rounds (BENCH_NET_FB_ROUNDS,
#      5) of 300 connections each, the median of the rounds' medians and
#      their range
#   2. a 200 MB download from a local server: directly (outside), through
#      the direct path, the proxy (plain HTTP and CONNECT) and, when `srt` is
#      installed, Claude Code's sandbox runtime; curl's time_total,
#      interleaved rounds (BENCH_NET_ROUNDS, 21): medians, the quartiles,
#      and the median of each round's ratio to that round's direct transfer
#      (one transfer takes about 60 ms: the load of a shared machine moves
#      single rounds by half of that); the direct path against the direct
#      transfer first, alone, then the proxy and srt
#   3. `confpol run POLICY -- true` with a net allow-list against `net deny`
# Usage: net.py CONFPOL[::CONFPOL...] WORKDIR
#   Several builds separated by `::` (an old and a new one, say) are run
#   side by side, interleaved in every section; BENCH_NET_LABELS="old::new"
#   names them (default #1, #2, ...).
import atexit
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time

BUILDS = [os.path.abspath(b) for b in sys.argv[1].split("::")]
WORK = sys.argv[2]
LABELS = os.environ.get("BENCH_NET_LABELS", "").split("::")
if len(LABELS) != len(BUILDS):
    LABELS = ["#%d" % (i + 1) for i in range(len(BUILDS))]
SIZE = 200 * 1000 * 1000


def tag(i):
    """The build's name in a figure's label, when there are several."""
    return " [%s]" % LABELS[i] if len(BUILDS) > 1 else ""


def quart(xs):
    """The first and third quartiles of xs."""
    xs = sorted(xs)
    return xs[(len(xs) - 1) // 4], xs[(3 * (len(xs) - 1) + 3) // 4]


def netserve(data):
    """The C server (tests/bench/netserve.c), built here: its port, or None
    when there is no C compiler."""
    exe = os.path.join(WORK, "netserve")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netserve.c")
    r = subprocess.run(["cc", "-O2", "-std=c11", "-pthread", "-Wall", "-Wextra",
                        "-Werror", "-o", exe, src], capture_output=True, text=True)
    if r.returncode:
        print("   (the C server was not built: %s)" % r.stderr.strip()[:200])
        return None
    p = subprocess.Popen([exe, data], stdout=subprocess.PIPE, text=True)
    atexit.register(p.kill)
    return int(p.stdout.readline())


def serve(lsock, path):
    """A small HTTP/1.0 server: every request gets the file, by sendfile."""
    def one(c):
        try:
            buf = b""
            while b"\r\n\r\n" not in buf:
                d = c.recv(4096)
                if not d:
                    return
                buf += d
            if buf.startswith(b"HEAD") or b" /ping " in buf.split(b"\r\n")[0]:
                c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")
                return
            with open(path, "rb") as f:
                c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % SIZE)
                c.sendfile(f)
        except OSError:
            pass
        finally:
            c.close()
    while True:
        c, _ = lsock.accept()
        threading.Thread(target=one, args=(c,), daemon=True).start()


def transfers(ways, rounds):
    """The 200 MB download of each way, interleaved: printed as median
    [quartiles], ratio of the medians, median of the rounds' ratios to the
    first way's (the direct transfer), the bytes alone and their ratio."""
    times = {name: [] for name, _ in ways}
    ratios = {name: [] for name, _ in ways}
    moving = {name: [] for name, _ in ways}  # from the first byte on
    bad = {name: [] for name, _ in ways}
    for k in range(rounds):
        # Each round in its own order (seeded: the same orders every run), and
        # a pause before each transfer: the kernel tears a sandbox's network
        # namespace down after the run, in a worker of its own, and a
        # transfer always run right after another way's would pay for it.
        got = {}
        for name, fn in random.Random(k).sample(ways, len(ways)):
            time.sleep(0.1)
            r = fn()
            o = r.stdout.split()
            if r.returncode or len(o) < 3 or int(o[-1]) != SIZE:
                if not name.startswith("srt"):
                    sys.exit("download %s failed: %s %s" % (name, r.stdout, r.stderr))
                # the peer's failures are figures too: counted, not fatal
                bad[name].append((o[-1] if o else "?") + " bytes; " +
                                 r.stderr.strip().splitlines()[-1:][0:1].__str__())
                continue
            got[name] = float(o[-2]), float(o[-2]) - float(o[-3])
        for name, (total, bytes_only) in got.items():
            times[name].append(total)
            moving[name].append(bytes_only)
            # each to the direct transfer of its own round
            ratios[name].append(total / got[ways[0][0]][0])
    d = statistics.median(times[ways[0][0]])
    dm = statistics.median(moving[ways[0][0]])
    for name, _ in ways:
        if not times[name]:
            print("   %-26s every round failed: %s" % (name, bad[name][0]))
            continue
        m = statistics.median(times[name])
        q1, q3 = quart(times[name])
        mm = statistics.median(moving[name])
        print("   %-26s %.3f s [%.3f-%.3f] (%5.0f MB/s) %.2fx; %.2fx; %.3f s %.2fx%s%s" % (
            name, m, q1, q3, SIZE / m / 1e6, m / d, statistics.median(ratios[name]),
            mm, mm / dm,
            " (target <= 1.10x)" if name.startswith("direct path") else "",
            " (%d of %d rounds cut short: %s)" % (len(bad[name]), rounds, bad[name][0])
            if bad[name] else ""))


def run(policy, *cmd, env=None, build=0):
    return subprocess.run([BUILDS[build], "run", policy, "--"] + list(cmd),
                          cwd=WORK, env=env, capture_output=True, text=True,
                          timeout=300)


def main():
    data = os.path.join(WORK, "data")
    with open(data, "wb") as f:  # real bytes: a sparse file would flatter reads
        block = os.urandom(1 << 20)
        for _ in range(SIZE // len(block)):
            f.write(block)
        f.write(block[:SIZE % len(block)])
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(128)
    port = ls.getsockname()[1]
    threading.Thread(target=serve, args=(ls, data), daemon=True).start()
    cport = netserve(data)
    ports = [port] + ([cport] if cport else [])
    with open(os.path.join(WORK, "hosts"), "w") as f:
        f.write("127.0.0.1 bench.test\n")
    env = dict(os.environ, CONFPOL_PROXY_HOSTS=os.path.join(WORK, "hosts"))
    allow = os.path.join(WORK, "allow.confpol")
    deny = os.path.join(WORK, "deny.confpol")
    with open(allow, "w") as f:
        f.write("confpol 1\nprofile confined\nnet allow %s\n" % " ".join(
            "bench.test:%d 127.0.0.1:%d" % (p, p) for p in ports))
    with open(deny, "w") as f:
        f.write("confpol 1\nprofile confined\nnet deny\n")

    # 1. set-up: CONNECT through the bridge, until "200" arrives, 300 times
    probe = r'''
import os, socket, time, statistics
host, port = os.environ["HTTP_PROXY"].rsplit("/", 1)[1].rsplit(":", 1)
req = b"CONNECT bench.test:%s HTTP/1.1\r\nHost: bench.test\r\n\r\n" % os.environ["BENCH_PORT"].encode()
ts = []
for i in range(330):
    t = time.perf_counter()
    s = socket.create_connection((host, int(port)))
    s.sendall(req)
    got = s.recv(100)
    ts.append((time.perf_counter() - t) * 1000)
    assert got.startswith(b"HTTP/1.1 200"), got
    s.close()
ts = ts[30:]
ts.sort()
print("%.3f %.3f" % (statistics.median(ts), ts[int(len(ts) * 0.9)]))
'''
    env1 = dict(env, BENCH_PORT=str(port))
    setup = []
    for b in range(len(BUILDS)):
        r = run(allow, "python3", "-c", probe, env=env1, build=b)
        if r.returncode:
            sys.exit("set-up probe failed: " + r.stderr)
        setup.append(r.stdout.split())
    # The same loop against the server directly (outside, no proxy), for scale.
    ts = []
    for i in range(330):
        t = time.perf_counter()
        s = socket.create_connection(("127.0.0.1", port))
        ts.append((time.perf_counter() - t) * 1000)
        s.close()
    ts = sorted(ts[30:])
    print("1. connection set-up through bridge + proxy (CONNECT, 300 after 30 warm-up):")
    for b, (med, p90) in enumerate(setup):
        print("  %s median %s ms, p90 %s ms (target <= 2 ms)" % (tag(b), med, p90))
    print("   a direct TCP connect outside: median %.3f ms" % statistics.median(ts))

    # 1b. first byte of a new connection, 300 after 30 warm-up, medians
    fb = r"""
import os, socket, sys, time, statistics
mode, port = sys.argv[1], int(os.environ["BENCH_PORT"])
if mode == "direct":
    addr = (socket.gethostbyname(os.environ.get("BENCH_HOST", "bench.test")), port)
else:
    h, p = os.environ["HTTP_PROXY"].rsplit("/", 1)[1].rsplit(":", 1)
    addr = (h, int(p))
ts = []
for i in range(330):
    t = time.perf_counter()
    s = socket.create_connection(addr)
    if mode == "connect":
        s.sendall(b"CONNECT bench.test:%d HTTP/1.1\r\n\r\n" % port)
        got = b""
        while b"\r\n\r\n" not in got:
            got += s.recv(100)
    s.sendall(b"GET /ping HTTP/1.0\r\n\r\n")
    assert s.recv(1) == b"H"
    ts.append((time.perf_counter() - t) * 1000)
    s.close()
print("%.3f" % statistics.median(ts[30:]))
"""
    def probe_fb(srv, mode, b):
        envp = dict(env, BENCH_PORT=str(srv))
        if b is None:  # outside
            r = subprocess.run(["python3", "-c", fb, mode], capture_output=True,
                               text=True, timeout=300,
                               env=dict(envp, BENCH_HOST="127.0.0.1"))
        else:
            r = run(allow, "python3", "-c", fb, mode, env=envp, build=b)
        if r.returncode:
            sys.exit("first-byte probe failed: " + r.stderr)
        return float(r.stdout)

    fb_rounds = int(os.environ.get("BENCH_NET_FB_ROUNDS", "5"))
    print("1b. first byte of a new connection (connect, GET, first byte): the median")
    print("   of %d interleaved rounds' medians of 300 [the rounds' range]:" % fb_rounds)
    servers = ([("C server (tests/bench/netserve.c)", cport)] if cport else []) + \
        [("Python server (a thread per connection)", port)]
    for sname, srv in servers:
        kinds = [("outside", "direct", None)]
        for b in range(len(BUILDS)):
            kinds += [("direct path" + tag(b), "direct", b),
                      ("proxy CONNECT" + tag(b), "connect", b)]
        got = {k[0]: [] for k in kinds}
        for _ in range(fb_rounds):
            for name, mode, b in kinds:
                got[name].append(probe_fb(srv, mode, b))
        out = statistics.median(got["outside"])
        print("   %s:" % sname)
        for name, _, _ in kinds:
            m = statistics.median(got[name])
            print("     %-26s %.3f ms [%.3f-%.3f]%s" % (
                name, m, min(got[name]), max(got[name]),
                "" if name == "outside" else " (+%.3f ms%s)" % (
                    m - out, "; target <= 0.3 ms"
                    if name.startswith("direct") and srv == cport else "")))
    sys.stdout.flush()

    # 2. 200 MB, interleaved rounds, from the C server when there is one
    tport = cport or port
    url = "http://bench.test:%d/data" % tport
    fmt = "%{time_starttransfer} %{time_total} %{size_download}"
    curl = ["curl", "-sS", "-o", "/dev/null", "-w", fmt]
    srt = shutil.which("srt")
    srt_cfg = os.path.join(WORK, "srt.json")
    with open(srt_cfg, "w") as f:
        json.dump({"network": {"allowedDomains": ["localhost"], "deniedDomains": []},
                   "filesystem": {"denyRead": [], "allowRead": [],
                                  "allowWrite": [WORK], "denyWrite": []}}, f)
    ways = [("direct (outside)", lambda: subprocess.run(
                curl + ["--noproxy", "*", "http://127.0.0.1:%d/data" % tport],
                capture_output=True, text=True, timeout=300))]
    for b in range(len(BUILDS)):
        ways += [("direct path" + tag(b), lambda b=b: run(
                     allow, *(curl + ["--noproxy", "*", url]), env=env, build=b)),
                 ("proxy, plain HTTP" + tag(b), lambda b=b: run(
                     allow, *(curl + [url]), env=env, build=b)),
                 ("proxy, CONNECT" + tag(b), lambda b=b: run(
                     allow, *(curl + ["-p", url]), env=env, build=b))]
    if srt:
        ways.append(("srt %s, CONNECT" % subprocess.run(
            [srt, "--version"], capture_output=True, text=True).stdout.strip(),
            lambda: subprocess.run(
                [srt, "--settings", srt_cfg, "-c",
                 " ".join(curl[:4]) + " -w '" + fmt + "' "
                 "--noproxy '' -x \"$HTTPS_PROXY\" -p http://localhost:" + str(tport)
                 + "/data"],
                cwd=WORK, capture_output=True, text=True, timeout=300)))
    rounds = int(os.environ.get("BENCH_NET_ROUNDS", "21"))
    print("2. 200 MB download (%s), curl time_total, %d interleaved rounds:"
          % ("C server" if cport else "Python server", rounds))
    print("   median [quartiles]; ratio of the medians; median of the rounds' ratios;")
    print("   the bytes alone (time_total - time_starttransfer): median, ratio")
    # The target's pair first, alone: the proxy's relays and srt keep both
    # CPUs busy and their processes outlive a run, so that interleaved with
    # them the direct transfers measured the neighbours more than the path.
    # Then the relays and srt, against the direct transfer again.
    direct = [w for w in ways if w[0].startswith("direct")]
    transfers(direct, rounds)
    print("   -- the proxy and srt, with the direct transfer again:")
    transfers(ways[:1] + [w for w in ways if not w[0].startswith("direct")],
              rounds)
    sys.stdout.flush()

    # 3. confpol run ... -- true, allow-list against net deny, interleaved
    ta = [[] for _ in BUILDS]
    td = [[] for _ in BUILDS]
    for i in range(25):
        for b in range(len(BUILDS)):
            for pol, acc in ((allow, ta[b]), (deny, td[b])):
                t = time.perf_counter()
                r = run(pol, "true", env=env, build=b)
                acc.append((time.perf_counter() - t) * 1000)
                if r.returncode:
                    sys.exit("confpol run failed: " + r.stderr)
    print("3. confpol run -- true, median of 20 after 5 warm-up:")
    for b in range(len(BUILDS)):
        a, dn = statistics.median(ta[b][5:]), statistics.median(td[b][5:])
        print("  %s net allow list %.1f ms, net deny %.1f ms: %.2fx (target <= 1.2x)"
              % (tag(b), a, dn, a / dn))

main()
