"""Dataset fetch against a real HTTP server on loopback, so httpx, retries and
atomic writes are exercised for real rather than through mocks."""

from __future__ import annotations

import hashlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from builder.benchmarks.cibuzzbench.dataset.fetch import (
    DEFAULT_DEST,
    EXPECTED_SHA256,
    PINNED_COMMIT,
    UPSTREAM_REPO,
    UPSTREAM_URL,
    DatasetPathError,
    ensure_dataset,
    fetch_dataset,
    resolve_dataset_path,
)
from builder.core import download as download_mod
from builder.core.download import FetchError, FetchResult
from builder.core.errors import InputError

# Synthetic, not real dataset rows: only the header prefix matters to fetch.
BODY = b"row_id,split,term_zh,gloss\n1,dev,ZZ,synthetic one\n2,test,YY,synthetic two\n"

Action = Callable[[BaseHTTPRequestHandler], None]


def ok(body: bytes = BODY) -> Action:
    def act(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/plain; charset=utf-8")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
    return act


def status(code: int) -> Action:
    def act(h: BaseHTTPRequestHandler) -> None:
        payload = f"error {code}".encode()
        h.send_response(code)
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)
    return act


def redirect(location: str) -> Action:
    def act(h: BaseHTTPRequestHandler) -> None:
        h.send_response(302)
        h.send_header("Location", location)
        h.send_header("Content-Length", "0")
        h.end_headers()
    return act


def truncated(body: bytes = BODY) -> Action:
    """Promise the whole body, send half of it, then drop the connection."""
    def act(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body[: len(body) // 2])
        h.wfile.flush()
        h.close_connection = True
        h.connection.shutdown(socket.SHUT_RDWR)
    return act


def stall(seconds: float) -> Action:
    def act(h: BaseHTTPRequestHandler) -> None:
        time.sleep(seconds)
        try:
            ok()(h)
        except OSError:
            pass  # the client gave up on us, which is the point
    return act


class Server:
    """Loopback server whose responses are scripted per path; records every hit."""

    def __init__(self) -> None:
        self.scripts: dict[str, list[Action]] = {}
        self.hits: list[str] = []
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server._next(self.path)(self)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def _next(self, path: str) -> Action:
        with self._lock:
            self.hits.append(path)
            actions = self.scripts.get(path) or [status(404)]
            return actions.pop(0) if len(actions) > 1 else actions[0]

    def script(self, path: str, *actions: Action) -> str:
        """Serve `actions` in order on `path` (the last one repeats); return its URL."""
        self.scripts[path] = list(actions)
        return self.url(path)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"


@pytest.fixture
def server() -> Iterator[Server]:
    srv = Server()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def fetch(sleeps: list[float], logs: list[str]) -> Callable[..., FetchResult]:
    """fetch_dataset with recorded (not real) backoff sleeps and captured logs."""
    def call(dest: Path, **kw: object) -> FetchResult:
        kw.setdefault("timeout", 5.0)
        return fetch_dataset(dest, sleep=sleeps.append, log=logs.append, **kw)
    return call


@pytest.fixture
def logs() -> list[str]:
    return []


@pytest.fixture
def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/never.csv"


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- constants ---------------------------------------------------------------

def test_url_is_pinned_to_upstream_commit() -> None:
    assert UPSTREAM_URL == (
        "https://raw.githubusercontent.com/SuperYFan/CIBuzzBench/"
        "b9b13f860bb0459fdcac914e647e0f946a517f72/data/cibuzzbench.csv"
    )
    assert UPSTREAM_REPO in UPSTREAM_URL and PINNED_COMMIT in UPSTREAM_URL
    assert EXPECTED_SHA256 == "4b6b3fac65dd85183addc2bb6438ffb36776371d791d0c5a11f72f2d18bc60b0"
    assert DEFAULT_DEST == Path("data/cibuzzbench.csv")


# --- fetch_dataset -----------------------------------------------------------

def test_success_writes_file_and_reports_sha(server, fetch, logs, tmp_path) -> None:
    url = server.script("/data.csv", ok())
    dest = tmp_path / "nested" / "cibuzzbench.csv"

    result = fetch(dest, url=url)

    assert dest.read_bytes() == BODY
    assert result == FetchResult(path=dest, sha256=sha(BODY), bytes=len(BODY), matched_pin=False)
    assert any("warning" in m and sha(BODY) in m and EXPECTED_SHA256 in m for m in logs)
    assert leftovers(dest.parent) == ["cibuzzbench.csv"]
    assert server.hits == ["/data.csv"]


def test_matching_sha_sets_matched_pin_without_warning(server, fetch, logs, tmp_path) -> None:
    url = server.script("/data.csv", ok())
    result = fetch(tmp_path / "d.csv", url=url, expected_sha256=sha(BODY))
    assert result.matched_pin is True
    assert not any("warning" in m for m in logs)


def test_utf8_bom_before_header_is_accepted(server, fetch, tmp_path) -> None:
    body = b"\xef\xbb\xbf" + BODY
    url = server.script("/bom.csv", ok(body))
    result = fetch(tmp_path / "d.csv", url=url)
    assert (tmp_path / "d.csv").read_bytes() == body
    assert result.sha256 == sha(body) and result.bytes == len(body)


def test_500_then_success_is_retried_with_backoff(server, fetch, sleeps, tmp_path) -> None:
    url = server.script("/flaky.csv", status(500), ok())
    result = fetch(tmp_path / "d.csv", url=url, backoff=0.5)
    assert result.path.read_bytes() == BODY
    assert server.hits == ["/flaky.csv", "/flaky.csv"]
    assert sleeps == [0.5]


def test_persistent_5xx_gives_up_after_retries(server, fetch, sleeps, tmp_path) -> None:
    url = server.script("/down.csv", status(503))
    with pytest.raises(FetchError) as info:
        fetch(tmp_path / "d.csv", url=url, retries=2, backoff=1.0)
    assert len(server.hits) == 3
    assert sleeps == [1.0, 2.0]
    message = str(info.value)
    assert url in message and "503" in message and "CIBUZZBENCH_CSV" in message
    assert leftovers(tmp_path) == []


def test_404_fails_fast_naming_the_url(server, fetch, sleeps, tmp_path) -> None:
    url = server.script("/missing.csv", status(404))
    with pytest.raises(FetchError) as info:
        fetch(tmp_path / "d.csv", url=url, retries=3)
    assert server.hits == ["/missing.csv"]
    assert sleeps == []
    assert url in str(info.value) and "404" in str(info.value)
    assert info.value.url == url
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"<!DOCTYPE html><html><body>Rate limited</body></html>", "header"),
        (b"", "empty"),
        (b"id,split,term\n1,dev,x\n", "header"),
        (b"\xef\xbb\xbf", "header"),
    ],
    ids=["html", "empty", "wrong-header", "bom-only"],
)
def test_body_that_is_not_the_csv_is_rejected(server, fetch, tmp_path, body, says) -> None:
    url = server.script("/bad.csv", ok(body))
    dest = tmp_path / "d.csv"
    with pytest.raises(FetchError) as info:
        fetch(dest, url=url)
    assert url in str(info.value) and says in info.value.reason
    assert not dest.exists()
    assert leftovers(tmp_path) == []
    assert server.hits == ["/bad.csv"]  # a wrong 200 body will not fix itself


def test_connection_dropped_mid_body_leaves_nothing_behind(server, fetch, tmp_path) -> None:
    url = server.script("/cut.csv", truncated())
    dest = tmp_path / "d.csv"
    with pytest.raises(FetchError):
        fetch(dest, url=url, retries=1)
    assert len(server.hits) == 2  # a dropped connection is worth a retry
    assert not dest.exists()
    assert leftovers(tmp_path) == []


def test_failed_download_keeps_previous_file_intact(server, fetch, tmp_path) -> None:
    dest = tmp_path / "d.csv"
    dest.write_bytes(b"previous good copy")
    url = server.script("/cut.csv", truncated())
    with pytest.raises(FetchError):
        fetch(dest, url=url, retries=0)
    assert dest.read_bytes() == b"previous good copy"
    assert leftovers(tmp_path) == ["d.csv"]


def test_connection_dropped_then_success(server, fetch, tmp_path) -> None:
    url = server.script("/cut.csv", truncated(), ok())
    result = fetch(tmp_path / "d.csv", url=url)
    assert result.path.read_bytes() == BODY
    assert leftovers(tmp_path) == ["d.csv"]


def test_timeout_is_retried(server, fetch, sleeps, tmp_path) -> None:
    url = server.script("/slow.csv", stall(1.5), ok())
    result = fetch(tmp_path / "d.csv", url=url, timeout=0.3)
    assert result.path.read_bytes() == BODY
    assert len(sleeps) == 1


def test_refused_connection_is_retried_then_reported(fetch, sleeps, tmp_path, closed_port_url) -> None:
    with pytest.raises(FetchError) as info:
        fetch(tmp_path / "d.csv", url=closed_port_url, retries=1, backoff=0.25)
    assert sleeps == [0.25]
    assert closed_port_url in str(info.value)
    assert leftovers(tmp_path) == []


def test_redirects_are_followed(server, fetch, tmp_path) -> None:
    server.script("/real.csv", ok())
    url = server.script("/moved.csv", redirect(server.url("/real.csv")))
    result = fetch(tmp_path / "d.csv", url=url)
    assert result.path.read_bytes() == BODY
    assert server.hits == ["/moved.csv", "/real.csv"]


def test_url_defaults_to_env_override(server, fetch, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CIBUZZBENCH_URL", server.script("/mirror.csv", ok()))
    fetch(tmp_path / "d.csv")
    assert server.hits == ["/mirror.csv"]


# --- resolve_dataset_path ------------------------------------------------------

def test_resolve_returns_none_when_nothing_is_there(tmp_path) -> None:
    assert resolve_dataset_path({}, tmp_path / "d.csv") is None
    assert resolve_dataset_path({"CIBUZZBENCH_CSV": ""}, tmp_path / "d.csv") is None


def test_resolve_prefers_env_over_existing_dest(tmp_path) -> None:
    dest = tmp_path / "d.csv"
    dest.write_bytes(BODY)
    mine = tmp_path / "mine.csv"
    mine.write_bytes(BODY)
    assert resolve_dataset_path({}, dest) == dest
    assert resolve_dataset_path({"CIBUZZBENCH_CSV": str(mine)}, dest) == mine


def test_resolve_rejects_env_pointing_at_directory(tmp_path) -> None:
    with pytest.raises(DatasetPathError):
        resolve_dataset_path({"CIBUZZBENCH_CSV": str(tmp_path)}, tmp_path / "d.csv")


# --- ensure_dataset ------------------------------------------------------------

def test_env_csv_means_no_network(server, tmp_path, monkeypatch, closed_port_url) -> None:
    mine = tmp_path / "mine.csv"
    mine.write_bytes(BODY)
    dest = tmp_path / "data" / "cibuzzbench.csv"

    def no_client(*args: object, **kwargs: object) -> None:
        raise AssertionError("network client created although CIBUZZBENCH_CSV is set")

    import httpx  # the module imports it when a download starts (a build never pays for it)
    monkeypatch.setattr(httpx, "Client", no_client)
    logs: list[str] = []
    for url in (server.script("/x.csv", ok()), closed_port_url):
        env = {"CIBUZZBENCH_CSV": str(mine), "CIBUZZBENCH_URL": url}
        assert ensure_dataset(env, dest, log=logs.append) == mine
    assert server.hits == []
    assert not dest.exists() and not dest.parent.exists()
    assert any(str(mine) in m for m in logs)


def test_env_csv_missing_file_names_variable_and_path(server, tmp_path) -> None:
    missing = tmp_path / "nope.csv"
    env = {"CIBUZZBENCH_CSV": str(missing), "CIBUZZBENCH_URL": server.script("/x.csv", ok())}
    with pytest.raises(FetchError) as info:
        ensure_dataset(env, tmp_path / "d.csv", log=lambda _: None)
    assert isinstance(info.value, InputError)
    assert "CIBUZZBENCH_CSV" in str(info.value) and str(missing) in str(info.value)
    assert server.hits == []
    assert not (tmp_path / "d.csv").exists()


def test_existing_dest_is_used_without_download(server, tmp_path) -> None:
    dest = tmp_path / "d.csv"
    dest.write_bytes(b"already here")
    env = {"CIBUZZBENCH_URL": server.script("/x.csv", ok())}
    assert ensure_dataset(env, dest, log=lambda _: None) == dest
    assert dest.read_bytes() == b"already here"
    assert server.hits == []


def test_missing_dest_is_downloaded_once(server, tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("CIBUZZBENCH_URL", raising=False)
    env = {"CIBUZZBENCH_URL": server.script("/x.csv", ok())}
    dest = tmp_path / "data" / "cibuzzbench.csv"
    assert ensure_dataset(env, dest, log=lambda _: None) == dest
    assert ensure_dataset(env, dest, log=lambda _: None) == dest
    assert dest.read_bytes() == BODY
    assert server.hits == ["/x.csv"]


def test_finding_a_local_copy_does_not_import_httpx() -> None:
    """Every build imports the fetch modules to find the data; only a download needs httpx."""
    import subprocess
    import sys
    code = ("import sys, builder.benchmarks.cibuzzbench.dataset.fetch, builder.benchmarks.mcq.fetch; "
            "sys.exit('httpx' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
