# The templatekit server, with every /v1 operation (videos, the caller's S3 bucket) and the
# clients of PostgreSQL and Redis for several hosts (docs/deploy.md#a-container-image):
#
#   podman build -t templatekit .          (or docker build)
#   podman run -p 8000:8000 -v templatekit-data:/data templatekit
#
# BASE is any Debian bookworm image. CI makes one from Debian's packages (mmdebstrap, then
# podman import), builds this file on it and runs the README's quick-start check inside.
ARG BASE=docker.io/library/debian:bookworm-slim
FROM ${BASE}

RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/*

ENV PATH=/opt/templatekit/bin:$PATH \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONUNBUFFERED=1
COPY pyproject.toml README.md LICENSE /build/
COPY src /build/src
COPY examples/templates /build/examples/templates
RUN python3 -m venv /opt/templatekit \
 && pip install "/build[server,redis,postgres]" \
 && rm -rf /build

# the server runs as a user of its own, its database and files in the volume
RUN useradd --system --uid 10001 --home-dir /data --create-home templatekit
USER templatekit
WORKDIR /data
ENV TEMPLATEKIT_DATA_DIR=/data
VOLUME /data
EXPOSE 8000
CMD ["templatekit", "serve", "--host", "0.0.0.0", "--port", "8000"]
