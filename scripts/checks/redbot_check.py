"""Runs REDbot on representative URLs of a running Trips server.

Usage: python scripts/checks/redbot_check.py http://127.0.0.1:PORT

Each URL is checked as a JSON client and as a text client, the pages as a browser, and the
page's assets. Any note REDbot rates bad, and any warning about negotiation, validators,
Vary or framing, fails the run.
"""

import subprocess
import sys
from configparser import ConfigParser

import thor
from httplint.note import categories, levels
from redbot.resource import HttpResource

PATHS = ["/trips/2", "/trips", "/trips?filter=favorites&sort=-price", "/favorites", "/health"]
ACCEPTS = ["application/json", "text/plain"]
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
CHECKS = [(path, accept) for path in PATHS for accept in ACCEPTS] + [
    ("/trips", BROWSER), ("/trips/2", BROWSER), ("/trips?country=Canada", BROWSER),
    ("/session", "application/json"), ("/session", BROWSER),
    ("/assets/trips.css", "text/css,*/*;q=0.1"), ("/assets/trips.js", "*/*"), ("/assets/trips.svg", "image/svg+xml,*/*;q=0.8"),
]
# Warnings in these categories count as failures: they are what the issue asks REDbot to watch.
STRICT = {categories.CONNEG, categories.VALIDATION, categories.GENERAL, categories.CONNECTION}


def check(url: str, accept: str) -> list[str]:
    parser = ConfigParser()
    parser.read_dict({"redbot": {"enable_local_access": "True"}})
    resource = HttpResource(parser["redbot"])
    resource.set_request(url, headers=[("Accept", accept)])

    @thor.events.on(resource)
    def check_done() -> None:
        thor.stop()

    resource.check()
    thor.run()
    if resource.response.status_code is None:
        return [f"no response from {url}"]
    problems = []
    notes = list(resource.response.notes)
    for subrequest in resource.subreqs.values():
        notes.extend(subrequest.response.notes)
    for note in notes:
        if note.level == levels.BAD or (note.level == levels.WARN and note.category in STRICT):
            problems.append(f"{note.level.value} [{note.category.value}] {note.summary}")
    return sorted(set(problems))


def main() -> int:
    if sys.argv[1] == "--one":  # thor's loop runs once per process: one check per child
        problems = check(sys.argv[2], sys.argv[3])
        print("\n".join(problems))
        return 1 if problems else 0
    base = sys.argv[1].rstrip("/")
    failed = 0
    for path, accept in CHECKS:
        child = subprocess.run(
            [sys.executable, __file__, "--one", base + path, accept], capture_output=True, text=True, timeout=60
        )
        status = "ok" if child.returncode == 0 else "FAILED"
        print(f"redbot {status}: GET {path} (Accept: {accept})")
        for line in (child.stdout + child.stderr).splitlines():
            print(f"  {line}")
        failed += child.returncode != 0
    print(f"redbot: {len(CHECKS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
