"""stub.py — a peer adapter for the runner's tests (tests/test_peer.c): it answers as its knob
`mode` says, to exercise each path of the protocol (peers/README.md) without any package.
With LOGT_STUB_ECHO set, it writes the request it read to that path."""
import json
import os
import subprocess
import sys
import time

req = json.load(sys.stdin)
if os.environ.get("LOGT_STUB_ECHO"):
    with open(os.environ["LOGT_STUB_ECHO"], "w") as f:
        json.dump(req, f)
mode = req.get("knobs", {}).get("mode", "ok")
SLEEP = os.environ.get("LOGT_STUB_SLEEP", "300")   # a test names its own, to find it with pgrep
n = req.get("repeats", 0)
if mode == "ok":
    sys.stderr.write("x" * 200000)   # more than a pipe holds: the runner must drain stderr too
    print(json.dumps({"ok": True, "version": "stub 1.0", "impl": "stub \"quoted\" \u00e9",
                      "times_ms": [float(i + 1) for i in range(n)],
                      "copy_ms": [0.5] * n if req.get("kind") == "kernel" else None,
                      "peak_mem_bytes": 1234, "extra": {"nested": [1, "two", {"three": 3}]}}))
elif mode == "skip":
    print(json.dumps({"ok": False, "skip": True, "message": "stub: install the stub package"}))
elif mode == "error":
    sys.stderr.write("Traceback (most recent call last):\nValueError: the stub's reason\n")
    print(json.dumps({"ok": False, "skip": False, "message": "stub: D = 3 is not supported"}))
elif mode == "garbage":
    sys.stderr.write("stub: a warning before the garbage\n")
    print("Loading... {not json")
elif mode == "crash":
    sys.stderr.write("Traceback (most recent call last):\nRuntimeError: boom\n")
    sys.exit(3)
elif mode == "linger":   # answers and exits, a child of it keeps stdout and stderr open
    subprocess.Popen(["sleep", SLEEP])
    print(json.dumps({"ok": True, "version": "stub 1.0", "impl": "stub",
                      "times_ms": [1.0] * n, "copy_ms": None, "peak_mem_bytes": None}), flush=True)
    os._exit(0)
elif mode == "abort":    # answers, then dies
    print(json.dumps({"ok": True, "version": "stub 1.0", "impl": "stub",
                      "times_ms": [1.0] * n, "copy_ms": None, "peak_mem_bytes": None}), flush=True)
    os._exit(3)
elif mode == "short":    # fewer times than repeats
    print(json.dumps({"ok": True, "version": "stub 1.0", "impl": "stub", "times_ms": [1.0],
                      "copy_ms": None, "peak_mem_bytes": None}))
elif mode == "hang":
    subprocess.Popen(["sleep", SLEEP])   # a child that must die with it
    time.sleep(float(SLEEP))
