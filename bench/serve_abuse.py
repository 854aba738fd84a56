#!/usr/bin/python3
# serve_abuse.py: abuse a running `dab serve` on loopback: slow clients that
# hold connections open (slowloris), malformed requests, oversized bodies.
# Then asks one good question and checks the answer.
# Usage: serve_abuse.py PORT [--slow N] [--malformed N] [--oversized N] [--hold S]
# Prints one line per phase and "abuse: ok" (exit 0) when the server answered
# the good request correctly afterwards; exit 1 otherwise.
import json, random, socket, sys, time, urllib.request

def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default

port = int(sys.argv[1])
slow, malformed, oversized, hold = arg("--slow", 100), arg("--malformed", 10000), arg("--oversized", 20), arg("--hold", 3)
rng = random.Random(7)

def connect():
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s

# 1. slow clients: half a request line each, a byte now and then.
t0 = time.time()
slows = []
for i in range(slow):
    try:
        s = connect()
        s.sendall(b"GET /api/v1/analyze?pos=3x3 HTTP/1.1\r\nHost: x\r\n")
        slows.append(s)
    except OSError:
        break
print(f"slow: {len(slows)} connections opened and held", flush=True)

# 2. malformed requests: garbage, bad request lines, bad headers, bad positions.
bad = [b"\x00\x01\x02garbage\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n",
       b"GET /api/v1/analyze?pos=%zz%00 HTTP/1.1\r\nHost: x\r\n\r\n", b"GET /api/v1/analyze?pos=3x3:01 HTTP/1.1\r\nHost: x\r\n\r\n",
       b"GET /api/v1/analyze?pos=99x99 HTTP/1.1\r\nHost: x\r\n\r\n", b"GET /api/v1/play?pos=3x3&player=%ff%fe HTTP/1.1\r\nHost: x\r\n\r\n",
       b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n[1,2]",
       b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n{{{",
       b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
       b"GET / HTTP/1.1\r\n" + b"X: " + b"b" * 70000 + b"\r\n\r\n",
       b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
       b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"]
answered = 0
sent = 0
statuses = {}
conn = None
for i in range(malformed):
    req = bad[i % len(bad)] if i % 5 else bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))) + b"\r\n\r\n"
    try:
        s = connect()
        s.sendall(req)
        s.shutdown(socket.SHUT_WR)
        data = s.recv(200)
        s.close()
        sent += 1
        if data.startswith(b"HTTP/1."):
            answered += 1
            code = data[9:12].decode("ascii", "replace")
            statuses[code] = statuses.get(code, 0) + 1
    except OSError:
        sent += 1
print(f"malformed: {sent} sent in {time.time() - t0:.1f} s, {answered} answered, statuses {dict(sorted(statuses.items()))}",
      flush=True)
if statuses.get("200", 0):
    print("abuse: a malformed request got 200", flush=True)

# 3. oversized bodies: announced (Content-Length) and streamed (chunked).
big_ok = 0
for i in range(oversized):
    try:
        s = connect()
        if i % 2:
            s.sendall(b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n" + b"[" * 65536)
        else:
            s.sendall(b"POST /api/v1/analyze HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            chunk = b"[\"3x3\"," * 10000
            for _ in range(40):
                s.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            s.sendall(b"0\r\n\r\n")
        data = s.recv(300)
        if b" 413 " in data[:20]:
            big_ok += 1
        s.close()
    except OSError:
        pass   # the server may close a connection that keeps sending after its 413
print(f"oversized: {oversized} bodies over the limit, {big_ok} answered 413", flush=True)

# 4. the slow clients are still open (or timed out); a good request must be answered correctly now.
time.sleep(max(0, hold - (time.time() - t0)))
with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/analyze?pos=2x2", timeout=10) as r:
    d = json.loads(r.read())
for s in slows:
    s.close()
good = d.get("value") == 2 and d.get("exact") is True and len(d.get("moves", [])) == 12
print("abuse: ok" if good and not statuses.get("200", 0) else f"abuse: FAILED, answer {d}", flush=True)
sys.exit(0 if good and not statuses.get("200", 0) else 1)
