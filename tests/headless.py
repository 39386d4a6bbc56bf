"""A headless Chromium driven over the DevTools protocol, for the tests that check a page in a real browser.

Debian's ``chromium`` (``apt-get install -y chromium``) with ``--remote-debugging-pipe``: the protocol's JSON
messages go over two pipes (the browser reads fd 3, writes fd 4, each message ended by a NUL byte), so nothing
listens on a port and nothing beyond the standard library is needed. Started with a fresh profile, no network
services, no first-run pages.
"""

import base64
import json
import os
import select
import shutil
import subprocess
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def chromium_binary():
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    """One browser with one page: ``open(url)``, ``js(expression)``, ``reload()``, ``screenshot(path)``,
    ``allow_downloads(folder)``; ``close()`` (or use as a context manager)."""

    def __init__(self, profile, binary=None, timeout=60):
        self.timeout = timeout
        to_browser, self._in = os.pipe()  # the browser reads to_browser as fd 3
        self._out, from_browser = os.pipe()  # and writes from_browser as fd 4

        def wire():
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        cmd = [binary or chromium_binary(), *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe"]
        self.proc = subprocess.Popen(
            cmd, preexec_fn=wire, pass_fds=(3, 4), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        os.close(to_browser)
        os.close(from_browser)
        self._next, self._buffer, self.events, self.session = 0, b"", [], None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.send("Browser.close")
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._in, self._out):
            try:
                os.close(fd)
            except OSError:
                pass

    # ---------------------------------------------------------------------------------------------- protocol
    def _message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._out, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method, params=None, session=True):
        """The result of one command (on the page's session unless ``session=False``); events go to ``events``."""
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._in, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._message(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, deadline_s=None):
        """The first event ``method`` (already received or to come)."""
        deadline = time.monotonic() + (deadline_s or self.timeout)
        while True:
            for e in self.events:
                if e.get("method") == method:
                    self.events.remove(e)
                    return e
            self.events.append(self._message(deadline))

    # ---------------------------------------------------------------------------------------------- page
    def open(self, url, width=1200, height=1400):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)[
            "sessionId"
        ]
        self.send("Page.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def reload(self):
        self.send("Page.reload")
        self.wait_for("Page.loadEventFired")

    def js(self, expression):
        """The value of a JavaScript expression in the page (promises awaited); raises on a script error."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def allow_downloads(self, folder):
        self.send(
            "Browser.setDownloadBehavior",
            {"behavior": "allow", "downloadPath": str(folder), "eventsEnabled": True},
            session=False,
        )

    def screenshot(self, path, full_page=False):
        params = {"format": "png", "captureBeyondViewport": full_page}
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", params)["data"]))
        return path
