"""A minimal JSON-RPC client for the `vox lsp` benchmarks (stdio, Content-Length framing)."""
import json, os, subprocess, threading, queue, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def find_vox(explicit=None):
    if explicit:
        return explicit
    for d in [os.environ.get("CARGO_TARGET_DIR"), os.path.join(ROOT, "target")]:
        if d and os.path.exists(os.path.join(d, "release", "vox")):
            return os.path.join(d, "release", "vox")
    subprocess.run(["cargo", "build", "--release", "-p", "vox-cli"], cwd=ROOT, check=True)
    return os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release", "vox")


def uri(path):
    return "file://" + os.path.abspath(path)


class Client:
    def __init__(self, vox, root, env=None, argv=None):
        e = dict(os.environ)
        e.update(env or {})
        self.p = subprocess.Popen(argv or [vox, "lsp"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=e)
        self.msgs = queue.Queue()
        self.stderr = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self):
        out = self.p.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = out.read(length)
            # Stamped when read whole, before decoding (lsp_latency.py times decoding apart).
            read_at = time.perf_counter()
            self.msgs.put((read_at, json.loads(body)))

    def _read_err(self):
        for line in self.p.stderr:
            self.stderr.put((time.perf_counter(), line.decode("utf-8", "replace")))

    def send(self, obj):
        """Sends `obj`; returns the time just before writing it (stamped after the write, a client
        descheduled or waiting for the GIL once the write returned stamped late, after the reply)."""
        body = json.dumps(obj).encode()
        frame = b"Content-Length: %d\r\n\r\n" % len(body) + body
        sent_at = time.perf_counter()
        self.p.stdin.write(frame)
        self.p.stdin.flush()
        return sent_at

    def notify(self, method, params):
        return self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=600):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)[1]

    def wait(self, pred, timeout=600):
        deadline = time.time() + timeout
        while True:
            t, m = self.msgs.get(timeout=max(0.01, deadline - time.time()))
            if "method" in m and "id" in m:  # a request from the server: answer null
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": None})
                continue
            if pred(m):
                return t, m

    def initialize(self, root, capabilities):
        r = self.request("initialize", {"processId": os.getpid(), "rootUri": uri(root),
                                        "workspaceFolders": [{"uri": uri(root), "name": "bench"}],
                                        "capabilities": capabilities})
        self.notify("initialized", {})
        return r

    def close(self):
        try:
            self.request("shutdown", None, timeout=30)
            self.notify("exit", None)
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()

    def peak_rss_kib(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    i = min(len(xs) - 1, max(0, int(round(q / 100.0 * (len(xs) - 1)))))
    return xs[i]
