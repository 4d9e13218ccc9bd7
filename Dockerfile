# syntax=docker/dockerfile:1
# Athaus MCP servers as an image: built in one stage (pip, setuptools), run in another that has neither build tools
# nor the sources, only the installed package (docs site included) in a virtual environment, as an unprivileged user.
# Run it with compose.yaml (PostgreSQL and nginx in front) or alone: docs/betrieb.md, "Als Container".

FROM python:3.12-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv /opt/athaus
COPY pyproject.toml ./
COPY contract ./contract
COPY shared ./shared
COPY broker_server ./broker_server
COPY search_server ./search_server
COPY athaus ./athaus
COPY migrations ./migrations
# psycopg[binary] and every other dependency come as wheels: no compiler needed here either
RUN /opt/athaus/bin/pip install . && /opt/athaus/bin/pip uninstall -y pip setuptools

FROM python:3.12-slim-bookworm
# the commit the image is built from, for the version (`0.2.0+g<commit>`: athaus --version, /healthz, serverInfo); the
# image has no .git: docker build --build-arg ATHAUS_COMMIT=$(git rev-parse HEAD) .
ARG ATHAUS_COMMIT=""
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/athaus --create-home athaus \
    && mkdir -p /var/lib/athaus/var/images && chown -R athaus:athaus /var/lib/athaus/var \
    && pip uninstall -y pip setuptools wheel 2>/dev/null; true
COPY --from=build /opt/athaus /opt/athaus
# Production mode: the container listens on every address (a proxy or a published port reaches it), where development
# mode (demo accounts with published passwords, `athaus token`) is refused; so the start needs ATHAUS_PUBLIC_URL=https://…
# and says so in German without it. The demo: scripts/serve, or this image on the host's loopback (docs/betrieb.md).
ENV PATH=/opt/athaus/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ATHAUS_HOST=0.0.0.0 \
    ATHAUS_PORT=8000 \
    ATHAUS_DEVELOPMENT=false \
    ATHAUS_COMMIT=${ATHAUS_COMMIT}
USER athaus
WORKDIR /var/lib/athaus
EXPOSE 8000
# liveness: /healthz answers while the process does (the database is readiness's: /healthz/ready)
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status != 200)"]
CMD ["athaus", "serve"]
