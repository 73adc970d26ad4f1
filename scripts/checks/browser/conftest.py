"""Fixtures for the browser tests: a fresh trips-server per test, Debian's chromium driven by
Playwright, and a small HTTP client to change the list from outside the page (as curl would).

TRIPS_SERVER (the binary) and TRIPS_SCREENSHOTS (a folder) come from scripts/checks/browser.sh.
"""

import json
import os
import re
import subprocess
import tempfile
import threading
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import sync_playwright

SERVER = os.environ.get("TRIPS_SERVER", ".build/debug/trips-server")
# The one way the scripts start trips-server (on 127.0.0.1); it execs, so the pid is the server's.
SERVER_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib", "server.sh")
CHROMIUM = os.environ.get("TRIPS_CHROMIUM", "/usr/bin/chromium")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


class Server:
    """One trips-server on a free port, in memory, with the sample trips."""

    def __init__(self, *flags):
        self.process = subprocess.Popen(
            [SERVER_SH, SERVER, "--in-memory", "--port", "0", "--log-level", "warning", *flags],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = []
        for line in self.process.stdout:
            lines.append(line)
            match = re.search(r"listening on (http://\S+)", line)
            if match:
                self.url = match.group(1)
                # Keeps reading, so the server never blocks on a full pipe.
                threading.Thread(target=self.process.stdout.read, daemon=True).start()
                return
        self.process.kill()
        raise RuntimeError(f"the server did not start: {''.join(lines)}{self.process.stderr.read()}")

    def request(self, method, path, body=None, headers=None, parse=True):
        """Sends a request (a body of bytes, text or JSON); answers (status, headers, parsed JSON
        or text; text if not parse)."""
        headers = dict(headers or {})
        data = None
        if body is not None:
            if isinstance(body, bytes):
                data = body  # a photo: the caller names its Content-Type
            elif isinstance(body, str):
                data = body.encode()
                headers.setdefault("Content-Type", "text/plain")
            else:
                data = json.dumps(body).encode()
                headers.setdefault("Content-Type", "application/json")
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request) as response:
                status, fields, content = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, fields, content = error.code, error.headers, error.read()
        text = content.decode()
        is_json = parse and "json" in (fields.get("Content-Type") or "")
        return status, fields, json.loads(text) if is_json and text else text

    def ids(self, path="/trips"):
        return [trip["id"] for trip in self.request("GET", path)[2]]

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture
def server():
    running = Server()
    yield running
    running.stop()


TOKEN = "s3cret-token-for-the-tests"


def serving_with_tokens(*flags):
    """A server whose token file holds alice's TOKEN, with more flags; stopped after."""
    with tempfile.NamedTemporaryFile("w", suffix=".tokens", delete=False) as tokens:
        tokens.write(f"alice {TOKEN}\n")
    running = Server("--tokens", tokens.name, *flags)
    yield running
    running.stop()
    os.unlink(tokens.name)


@pytest.fixture
def token_server():
    """A server whose changes need a bearer token or a signed-in browser (reads stay open)."""
    yield from serving_with_tokens()


@pytest.fixture
def private_server():
    """A server whose reads need a token too (--private): a browser signs in first."""
    yield from serving_with_tokens("--private")


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


class Console:
    """Every console error, failed request and uncaught exception of a page."""

    def __init__(self, page):
        self.errors = []
        page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))


def open_page(browser, viewport=DESKTOP):
    context = browser.new_context(viewport=viewport)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.set_default_timeout(5000)
    return context, page, Console(page)


@pytest.fixture
def page(browser):
    """A desktop-sized page; the test fails if it logged any console error.

    Tests name their server before `page`, so the page closes first: a server stopped under
    an open page makes its event stream's reconnect log a refused connection."""
    context, page, console = open_page(browser)
    page.console = console
    yield page
    context.close()
    assert console.errors == [], console.errors


def screenshots_folder():
    folder = os.environ.get("TRIPS_SCREENSHOTS", ".build/browser")
    os.makedirs(folder, exist_ok=True)
    return folder
