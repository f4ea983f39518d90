#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Network benchmarks of `confpol run` (spec/runtime.md 14), figures only:
#   1. connection set-up through the bridge and the proxy (HTTP CONNECT to a
#      local server, from inside the sandbox): median and p90 in ms
#   1b. the first byte of a new connection (connect, a request, the first
#      byte of the answer): outside, through the direct path (14.8), through
#      the proxy's CONNECT
#   2. a 200 MB download from a local server: directly (outside), through
#      the direct path, the proxy (plain HTTP and CONNECT) and, when `srt` is
#      installed, Claude Code's sandbox runtime; curl's time_total,
#      interleaved rounds (BENCH_NET_ROUNDS, 11), medians
#   3. `confpol run POLICY -- true` with a net allow-list against `net deny`
# Usage: net.py CONFPOL WORKDIR
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time

CONFPOL, WORK = sys.argv[1], sys.argv[2]
SIZE = 200 * 1000 * 1000


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


def run(policy, *cmd, env=None):
    return subprocess.run([CONFPOL, "run", policy, "--"] + list(cmd), cwd=WORK,
                          env=env, capture_output=True, text=True, timeout=300)


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
    with open(os.path.join(WORK, "hosts"), "w") as f:
        f.write("127.0.0.1 bench.test\n")
    env = dict(os.environ, CONFPOL_PROXY_HOSTS=os.path.join(WORK, "hosts"))
    allow = os.path.join(WORK, "allow.confpol")
    deny = os.path.join(WORK, "deny.confpol")
    with open(allow, "w") as f:
        f.write("confpol 1\nprofile confined\nnet allow bench.test:%d 127.0.0.1:%d\n"
                % (port, port))
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
    r = run(allow, "python3", "-c", probe, env=env1)
    if r.returncode:
        sys.exit("set-up probe failed: " + r.stderr)
    med, p90 = r.stdout.split()
    # The same loop against the server directly (outside, no proxy), for scale.
    ts = []
    for i in range(330):
        t = time.perf_counter()
        s = socket.create_connection(("127.0.0.1", port))
        ts.append((time.perf_counter() - t) * 1000)
        s.close()
    ts = sorted(ts[30:])
    print("1. connection set-up through bridge + proxy (CONNECT, 300 after 30 warm-up):")
    print("   median %s ms, p90 %s ms (target <= 2 ms); a direct TCP connect outside: "
          "median %.3f ms" % (med, p90, statistics.median(ts)))

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
    fbs = {}
    for mode in ("direct", "connect"):
        r = run(allow, "python3", "-c", fb, mode, env=env1)
        if r.returncode:
            sys.exit("first-byte probe failed: " + r.stderr)
        fbs[mode] = float(r.stdout)
    r = subprocess.run(["python3", "-c", fb, "direct"], capture_output=True,
                       text=True, timeout=300,
                       env=dict(env1, BENCH_HOST="127.0.0.1"))
    fbs["outside"] = float(r.stdout)
    print("1b. first byte of a new connection (connect, GET, first byte), median of 300:")
    print("   outside %.3f ms, direct path %.3f ms (+%.3f ms; target <= 0.3 ms), "
          "proxy CONNECT %.3f ms" % (fbs["outside"], fbs["direct"],
                                     fbs["direct"] - fbs["outside"], fbs["connect"]))

    # 2. 200 MB, interleaved rounds
    url = "http://bench.test:%d/data" % port
    curl = ["curl", "-sS", "-o", "/dev/null", "-w", "%{time_total} %{size_download}"]
    srt = shutil.which("srt")
    srt_cfg = os.path.join(WORK, "srt.json")
    with open(srt_cfg, "w") as f:
        json.dump({"network": {"allowedDomains": ["localhost"], "deniedDomains": []},
                   "filesystem": {"denyRead": [], "allowRead": [],
                                  "allowWrite": [WORK], "denyWrite": []}}, f)
    ways = [("direct (outside)", lambda: subprocess.run(
                curl + ["--noproxy", "*", "http://127.0.0.1:%d/data" % port],
                capture_output=True, text=True, timeout=300)),
            ("direct path", lambda: run(allow, *(curl + ["--noproxy", "*", url]), env=env)),
            ("proxy, plain HTTP", lambda: run(allow, *(curl + [url]), env=env)),
            ("proxy, CONNECT", lambda: run(allow, *(curl + ["-p", url]), env=env))]
    if srt:
        ways.append(("srt %s, CONNECT" % subprocess.run(
            [srt, "--version"], capture_output=True, text=True).stdout.strip(),
            lambda: subprocess.run(
                [srt, "--settings", srt_cfg, "-c",
                 " ".join(curl[:4]) + " -w '%{time_total} %{size_download}' "
                 "--noproxy '' -x \"$HTTPS_PROXY\" -p http://localhost:" + str(port)
                 + "/data"],
                cwd=WORK, capture_output=True, text=True, timeout=300)))
    times = {name: [] for name, _ in ways}
    bad = {name: [] for name, _ in ways}
    rounds = int(os.environ.get("BENCH_NET_ROUNDS", "11"))
    for _ in range(rounds):
        for name, fn in ways:
            r = fn()
            o = r.stdout.split()
            if r.returncode or len(o) < 2 or int(o[-1]) != SIZE:
                if not name.startswith("srt"):
                    sys.exit("download %s failed: %s %s" % (name, r.stdout, r.stderr))
                # the peer's failures are figures too: counted, not fatal
                bad[name].append((o[-1] if o else "?") + " bytes; " +
                                 r.stderr.strip().splitlines()[-1:][0:1].__str__())
                continue
            times[name].append(float(o[-2]))
    d = statistics.median(times["direct (outside)"])
    print("2. 200 MB download, curl time_total, median of %d interleaved rounds:" % rounds)
    for name, _ in ways:
        if not times[name]:
            print("   %-22s every round failed: %s" % (name, bad[name][0]))
            continue
        m = statistics.median(times[name])
        print("   %-22s %.3f s (%5.0f MB/s) %.2fx%s%s" % (
            name, m, SIZE / m / 1e6, m / d,
            " (target <= 1.10x)" if name == "direct path" else "",
            " (%d of %d rounds cut short: %s)" % (len(bad[name]), rounds, bad[name][0])
            if bad[name] else ""))
    sys.stdout.flush()

    # 3. confpol run ... -- true, allow-list against net deny, interleaved
    ta, td = [], []
    for i in range(25):
        for pol, acc in ((allow, ta), (deny, td)):
            t = time.perf_counter()
            r = run(pol, "true", env=env)
            acc.append((time.perf_counter() - t) * 1000)
            if r.returncode:
                sys.exit("confpol run failed: " + r.stderr)
    a, dn = statistics.median(ta[5:]), statistics.median(td[5:])
    print("3. confpol run -- true, median of 20 after 5 warm-up:")
    print("   net allow list %.1f ms, net deny %.1f ms: %.2fx (target <= 1.2x)"
          % (a, dn, a / dn))


main()
