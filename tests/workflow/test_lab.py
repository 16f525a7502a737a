"""`make lab`'s JupyterLab: on the loopback address with a token, it lists and serves every notebook
of notebooks/ and runs one through its own kernel, then stops by its process id."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import quote

import nbformat
import pytest
from tornado.websocket import websocket_connect

from conftest import ROOT

NOTEBOOKS = ROOT / "notebooks"
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""Requests to the loopback address bypass any http_proxy."""
RUN = "arena-your-algorithm.ipynb"
"""The notebook run through the kernel: it needs no results; its first two code cells take ~2 s."""
START_TIMEOUT = 60.0
EXECUTE_TIMEOUT = 120.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Lab:
    """A running `jupyter lab`: its process, address, token and log."""

    def __init__(self, proc: subprocess.Popen, port: int, token: str, log: Path):
        self.proc, self.port, self.token, self.log = proc, port, token, log

    def url(self, path: str, scheme: str = "http") -> str:
        sep = "&" if "?" in path else "?"
        return f"{scheme}://127.0.0.1:{self.port}/{path}{sep}token={self.token}"

    def request(self, path: str, method: str = "GET", body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.url(path), data=data, method=method, headers={"Content-Type": "application/json"}
        )
        with NO_PROXY.open(req, timeout=30) as resp:
            raw = resp.read()
            return resp.status, (
                json.loads(raw) if raw and "json" in resp.headers.get("Content-Type", "") else raw
            )

    def api(self, path: str, method: str = "GET", body: dict | None = None):
        return self.request(f"api/{path}", method, body)[1]

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-6000:]


def _wait_until_up(lab: Lab) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if lab.proc.poll() is not None:
            pytest.fail(f"jupyter lab exited with {lab.proc.returncode}:\n{lab.output()}")
        try:
            if "started" in lab.api("status"):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    pytest.fail(f"jupyter lab did not answer within {START_TIMEOUT:.0f} s:\n{lab.output()}")


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM (the server shuts its kernels down and exits), then SIGKILL as a last resort."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


@pytest.fixture
def lab(tmp_path):
    """`jupyter lab` on a copy of notebooks/, with every Jupyter and temporary dir in tmp_path."""
    root = tmp_path / "notebooks"
    root.mkdir()
    for nb in NOTEBOOKS.glob("*.ipynb"):
        shutil.copy(nb, root / nb.name)
    dirs = {
        name: tmp_path / name.lower()
        for name in (
            "JUPYTER_RUNTIME_DIR",
            "JUPYTER_DATA_DIR",
            "JUPYTER_CONFIG_DIR",
            "IPYTHONDIR",
            "TMPDIR",
        )
    }
    for d in dirs.values():
        d.mkdir()
    env = dict(os.environ, **{k: str(v) for k, v in dirs.items()})
    env.pop("DELAYED_BANDITS_RESULTS", None)
    port, token = _free_port(), secrets.token_hex(24)
    log = tmp_path / "lab.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--ip=127.0.0.1",
                f"--port={port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={token}",
                f"--ServerApp.root_dir={root}",
                *(["--allow-root"] if os.geteuid() == 0 else []),
            ],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Lab(proc, port, token, log)
    try:
        yield server
    finally:
        _stop(proc)
    assert proc.returncode is not None


async def _execute(lab: Lab, kernel_id: str, codes: list[str]) -> list[str]:
    """Each code's stdout, run in turn on the kernel over its websocket (the JSON protocol)."""
    session, outputs = uuid.uuid4().hex, []
    ws = await websocket_connect(
        lab.url(f"api/kernels/{kernel_id}/channels?session_id={session}", "ws")
    )
    try:
        for code in codes:
            msg_id = uuid.uuid4().hex
            ws.write_message(
                json.dumps(
                    {
                        "header": {
                            "msg_id": msg_id,
                            "msg_type": "execute_request",
                            "username": "test",
                            "session": session,
                            "date": "",
                            "version": "5.3",
                        },
                        "parent_header": {},
                        "metadata": {},
                        "channel": "shell",
                        "buffers": [],
                        "content": {
                            "code": code,
                            "silent": False,
                            "store_history": False,
                            "user_expressions": {},
                            "allow_stdin": False,
                            "stop_on_error": True,
                        },
                    }
                )
            )
            stdout, reply, idle = [], None, False
            while reply is None or not idle:
                raw = await ws.read_message()
                assert raw is not None, f"the kernel's websocket closed:\n{lab.output()}"
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = msg["msg_type"], msg["content"]
                if kind == "stream" and content["name"] == "stdout":
                    stdout.append(content["text"])
                elif kind == "error":
                    pytest.fail("\n".join(content["traceback"]))
                elif kind == "execute_reply":
                    reply = content
                elif kind == "status" and content["execution_state"] == "idle":
                    idle = True
            assert reply["status"] == "ok", reply
            outputs.append("".join(stdout))
    finally:
        ws.close()
    return outputs


@pytest.mark.slow
def test_lab_serves_and_runs_the_notebooks(lab):
    _wait_until_up(lab)
    status, page = lab.request("lab")  # the JupyterLab application itself
    assert status == 200 and b"jupyter-config-data" in page

    on_disk = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
    assert RUN in on_disk
    listing = lab.api("contents")
    assert listing["type"] == "directory"
    assert sorted(m["name"] for m in listing["content"] if m["type"] == "notebook") == on_disk
    for name in on_disk:
        model = lab.api(f"contents/{quote(name)}")
        assert (model["type"], model["format"], model["name"]) == ("notebook", "json", name)
        served = nbformat.from_dict(model["content"])
        nbformat.validate(served)
        cells = nbformat.read(NOTEBOOKS / name, as_version=4).cells  # served with "trusted"
        assert [(c.cell_type, c.source) for c in served.cells] == [
            (c.cell_type, c.source) for c in cells
        ], name

    # Open RUN as JupyterLab does: a session, whose kernel starts in the notebook's folder.
    notebook = nbformat.read(NOTEBOOKS / RUN, as_version=4)
    kernel_name = notebook.metadata.kernelspec.name
    assert kernel_name in lab.api("kernelspecs")["kernelspecs"]
    session = lab.api(
        "sessions",
        "POST",
        {"path": RUN, "type": "notebook", "name": RUN, "kernel": {"name": kernel_name}},
    )
    kernel_id = session["kernel"]["id"]
    cells = [c.source for c in notebook.cells if c.cell_type == "code"][:2]
    probe = (
        "import os, sys, delayed_bandits\n"
        "print(sys.prefix, os.getcwd(), delayed_bandits.__name__, sep='\\n')"
    )
    outputs = asyncio.run(
        asyncio.wait_for(_execute(lab, kernel_id, [*cells, probe]), EXECUTE_TIMEOUT)
    )
    assert "my_policies" in outputs[0]
    assert outputs[1].startswith("dc-ts: ")  # the entrant the first cell declared
    prefix, cwd, package = outputs[2].splitlines()
    assert Path(prefix).resolve() == Path(sys.prefix).resolve()  # the project's venv
    assert Path(cwd).resolve() == (lab.log.parent / "notebooks").resolve()
    assert package == "delayed_bandits"

    lab.request(f"api/sessions/{session['id']}", "DELETE")
    assert lab.api("sessions") == [] and lab.api("kernels") == []
    _stop(lab.proc)
    assert lab.proc.returncode == 0, lab.output()
    with pytest.raises(urllib.error.URLError):
        lab.api("status")
