#!/usr/bin/env python3
# Games per second of the quickstart (joute run, 800 games, 2 threads) without --serve, with
# --serve and no client, and with --serve and 50 clients that behave as the live page does: an
# /events stream each, and on a `game` event (at most once a second per client) GET
# /summary.json and GET / on fresh connections.
import re, socket, subprocess, sys, threading, time, shutil, statistics
# Usage: python3 scripts/serve-viewers.py JOUTE_BINARY REPETITIONS (the folders go to /tmp).
JOUTE = sys.argv[1]; REPS = int(sys.argv[2]); CLIENTS = 50
STATUS = {}
LOCK = threading.Lock()

def get(addr, path):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=30)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n".encode())
    n = 0; first = b""
    while True:
        d = s.recv(65536)
        if not d: break
        if not first: first = d[:12]
        n += len(d)
    s.close()
    with LOCK:
        STATUS[first] = STATUS.get(first, 0) + 1

    return n

def client(addr, stop, stats):
    host, port = addr.rsplit(":", 1)
    try:
        s = socket.create_connection((host, int(port)), timeout=1)
        s.sendall(f"GET /events HTTP/1.1\r\nHost: {addr}\r\n\r\n".encode())
    except OSError:
        stats["errors"] += 1; return
    last = 0.0; buf = b""
    while not stop.is_set():
        try:
            d = s.recv(4096)
        except socket.timeout:
            continue
        except OSError:
            break
        if not d: break
        buf += d
        if b"event: game" in buf and time.time() - last >= 1.0:
            buf = b""; last = time.time()
            try:
                got = get(addr, "/summary.json") + get(addr, "/")
                with LOCK:
                    stats["bytes"] += got
                    stats["polls"] += 1
            except OSError:
                stats["errors"] += 1
        elif len(buf) > 65536:
            buf = b""
    s.close()

def run(mode, port):
    out = f"/tmp/joute-serve-viewers-{mode}"
    shutil.rmtree(out, ignore_errors=True)
    args = [JOUTE, "run", "--out", out, "--threads", "2"]
    if mode != "plain": args += ["--serve", f"127.0.0.1:{port}"]
    p = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    stop = threading.Event(); threads = []; stats = {"polls": 0, "bytes": 0, "errors": 0}
    err = []
    for line in p.stderr:
        err.append(line)
        if "live page:" in line and mode == "clients":
            addr = re.search(r"http://([^/]+)/", line).group(1)
            for _ in range(CLIENTS):
                t = threading.Thread(target=client, args=(addr, stop, stats)); t.start(); threads.append(t)
    outtext = p.stdout.read(); p.wait(); stop.set()
    for t in threads: t.join()
    text = "".join(err) + outtext
    m = re.search(r"800 games played in ([\d.]+) s \(([\d.]+) games/s", text)
    if not m: print(text); raise SystemExit(1)
    return float(m.group(2)), stats

results = {"plain": [], "serve": [], "clients": []}
modes = ["plain", "serve", "clients"]
for rep in range(REPS):
    order = modes[rep % 3:] + modes[:rep % 3]
    for mode in order:
        gps, stats = run(mode, 8700 + rep)
        results[mode].append(gps)
        print(rep, mode, gps, stats if mode == "clients" else "", flush=True)
print("statuses", STATUS)
for mode in modes:
    v = results[mode]

    print(mode, "median %.1f games/s" % statistics.median(v), "runs", v)
