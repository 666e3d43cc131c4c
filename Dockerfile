# syntax=docker/dockerfile:1
# The server's image (issue 13 item 7): `docker build -t specbid .`, or `docker compose up`
# (compose.yaml). Separate build stages, so that npm, pip, their caches and the build backend
# stay out of what runs.
#
# The project is installed *editable* at /app rather than as a wheel: the program finds its
# Alembic migrations and the browser client beside `src/` (store/migrate.py's PROJECT_ROOT,
# web/settings.py's REPO_STATIC), which a wheel in site-packages would not carry. The venv
# (/opt/venv) and the tree (/app) are copied to the same paths, so the venv's link stays true.
ARG PYTHON_VERSION=3.12
ARG NODE_VERSION=20

# The client's bundler: esbuild's own binary for this platform, from the npm registry at the
# version package-lock.json pins. `specbid serve` bundles the browser client with it when it
# starts (src/spectacular_bid/web/bundler.py); only the binary goes into the image, no Node.js.
FROM node:${NODE_VERSION}-slim AS bundler
WORKDIR /client
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund

FROM python:${PYTHON_VERSION}-slim AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /app
RUN python -m venv /opt/venv
COPY pyproject.toml README.md alembic.ini ./
COPY alembic ./alembic
COPY src ./src
COPY static ./static
RUN /opt/venv/bin/pip install --no-cache-dir --editable .

FROM python:${PYTHON_VERSION}-slim AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    SPECBID_DATA_DIR=/data
# A user of its own, no shell, owning only the embedded database's folder (used when no
# DATABASE_URL is given): the code and the venv stay root's, read-only to the server.
RUN groupadd --system --gid 10001 specbid \
    && useradd --system --uid 10001 --gid specbid --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin specbid \
    && mkdir /data \
    && chown specbid:specbid /data
COPY --from=builder /opt/venv /opt/venv
COPY --from=builder /app /app
COPY --from=bundler /client/node_modules/@esbuild/linux-*/bin/esbuild /usr/local/bin/esbuild
WORKDIR /app
USER 10001:10001
EXPOSE 8000
# slim has no curl: Python's urllib asks /livez (the event loop answers), failing on any error.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/livez', timeout=2)"]
# Exec form: no shell between the runtime and the server, so the server itself gets SIGTERM and
# drains (SPECBID_DRAIN_S) before it stops.
CMD ["specbid", "serve", "--host", "0.0.0.0", "--port", "8000"]
