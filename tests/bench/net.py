#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Network benchmarks of `confpol run` (spec/runtime.md 14), figures only:
#   1. connection set-up through the bridge and the proxy (HTTP CONNECT to a
#      local server, from inside the sandbox): median and p90 in ms
#   2. a 200 MB download from a local server through the proxy against the
#      same download made directly (outside), curl's time_total, median of 3
#   3. `confpol run POLICY -- true` with a net allow-list against `net deny`
# Usage: net.py CONFPOL WORKDIR
import os
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

    # 2. 200 MB: direct (outside) and through the proxy (inside), alternated
    url = "http://bench.test:%d/data" % port
    curl = ["curl", "-sS", "-o", "/dev/null", "-w", "%{time_total} %{size_download}"]
    direct, proxied = [], []
    for _ in range(3):
        o = subprocess.run(curl + ["--noproxy", "*", "http://127.0.0.1:%d/data" % port],
                           capture_output=True, text=True, timeout=300).stdout.split()
        assert int(o[1]) == SIZE, o
        direct.append(float(o[0]))
        r = run(allow, *(curl + [url]), env=env)
        o = r.stdout.split()
        if r.returncode or int(o[1]) != SIZE:
            sys.exit("proxied download failed: %s %s" % (r.stdout, r.stderr))
        proxied.append(float(o[0]))
    d, p = statistics.median(direct), statistics.median(proxied)
    print("2. 200 MB download, curl time_total, median of 3:")
    print("   direct %.3f s (%.0f MB/s), through the proxy %.3f s (%.0f MB/s): %+.1f%% "
          "(target within 10%%)" % (d, SIZE / d / 1e6, p, SIZE / p / 1e6, (p / d - 1) * 100))

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
