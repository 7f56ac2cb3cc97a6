#!/usr/bin/env python3
"""Suggest's cost for given texts on two or more servers side by side: the best of 60 requests each,
over a Unix socket, one request at a time. A text starting with @ is read from that file, its
invalid UTF-8 replaced, as the fuzzer reads it. The table of BENCHMARKS.md's "Suggest's worst
inputs bounded".

    locus serve --index Index/portland.locus --listen unix:/tmp/old.sock &   # one build
    locus serve --index Index/portland.locus --listen unix:/tmp/new.sock &   # another
    python3 scripts/suggest_timings.py /tmp/old.sock,/tmp/new.sock "stc pond & 2" "NE 34th & Killings"
"""
import json
import socket
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: suggest_timings.py SOCKET[,SOCKET…] TEXT…")
    conns = []
    for path in sys.argv[1].split(","):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        conns.append(s.makefile("rwb"))
    for arg in sys.argv[2:]:
        text = open(arg[1:], "rb").read().decode("utf-8", "replace") if arg.startswith("@") else arg
        row = []
        for f in conns:
            best = float("inf")
            for _ in range(60):
                start = time.perf_counter()
                f.write((json.dumps({"op": "suggest", "text": text, "maxResults": 10,
                                     "near": {"x": -122.6296, "y": 45.5676}}) + "\n").encode())
                f.flush()
                f.readline()
                best = min(best, time.perf_counter() - start)
            row.append(f"{best * 1000:6.2f} ms")
        print("  ".join(row), repr(text[:50]))


if __name__ == "__main__":
    main()
