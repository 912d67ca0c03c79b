#!/usr/bin/env python3
"""A small TCP transfer for the virtual fabric tests (no iperf3 needed).

  xfer.py serve PORT [--log FILE] [--timeout S]
      accept one connection, read until EOF, answer one byte, print "received BYTES"; with --log, append
      "SECONDS_SINCE_ACCEPT CUMULATIVE_BYTES" every 0.05 s while data flows (and while it does not).
  xfer.py send ADDR PORT BYTES [--timeout S]
      connect (retrying until the server listens), send BYTES, wait for the answer, print
      "bytes=B seconds=T rate_Bps=R" (T from connect to the answer, so every byte has arrived).
"""
import argparse
import socket
import sys
import time

CHUNK = 1 << 20


def serve(args):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", args.port))
    srv.listen(1)
    srv.settimeout(args.timeout)
    conn, _ = srv.accept()
    conn.settimeout(0.05)
    t0 = time.monotonic()
    total = 0
    log = open(args.log, "a", buffering=1) if args.log else None
    next_log = 0.0
    buf = bytearray(CHUNK)
    while True:
        now = time.monotonic() - t0
        if now > args.timeout:
            print(f"xfer: timeout after {total} bytes", file=sys.stderr)
            return 1
        if log and now >= next_log:
            log.write(f"{now:.3f} {total}\n")
            next_log = now + 0.05
        try:
            n = conn.recv_into(buf)
        except socket.timeout:
            continue
        if not n:
            break
        total += n
    if log:
        log.write(f"{time.monotonic() - t0:.3f} {total}\n")
    conn.sendall(b"k")
    conn.close()
    print(f"received {total}")
    return 0


def send(args):
    deadline = time.monotonic() + min(args.timeout, 10.0)
    while True:
        try:
            s = socket.create_connection((args.addr, args.port), timeout=args.timeout)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    buf = memoryview(b"\xa5" * CHUNK)
    t0 = time.monotonic()
    left = args.bytes
    while left > 0:
        n = min(CHUNK, left)
        s.sendall(buf[:n])
        left -= n
    s.shutdown(socket.SHUT_WR)
    ack = s.recv(1)
    t = time.monotonic() - t0
    if ack != b"k":
        print("xfer: no answer from the receiver", file=sys.stderr)
        return 1
    print(f"bytes={args.bytes} seconds={t:.6f} rate_Bps={args.bytes / t:.0f}")
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="mode", required=True)
    a = sub.add_parser("serve")
    a.add_argument("port", type=int)
    a.add_argument("--log")
    a.add_argument("--timeout", type=float, default=60.0)
    b = sub.add_parser("send")
    b.add_argument("addr")
    b.add_argument("port", type=int)
    b.add_argument("bytes", type=int)
    b.add_argument("--timeout", type=float, default=60.0)
    args = p.parse_args()
    return serve(args) if args.mode == "serve" else send(args)


if __name__ == "__main__":
    sys.exit(main())
