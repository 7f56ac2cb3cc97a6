"""A line-protocol connection for this folder's measuring scripts: `ask(request)` sends one
request (a dict) to a server's Unix socket and returns its reply (a dict)."""
import json
import socket


def connect(path):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    f = s.makefile("rwb")

    def ask(request):
        f.write((json.dumps(request) + "\n").encode())
        f.flush()
        return json.loads(f.readline())

    return ask
